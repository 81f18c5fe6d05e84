// Google Benchmark's JSON report with gpubench's data added, built as data: what Google Benchmark's own
// reporter writes (public API) is parsed, the report's top level gets "gpubench" (schema version and the
// counter catalog: every counter's unit, kind and meaning), every row gets "gpubench" (its registered name,
// family, arguments by name and GPU), and the whole is written at the end of the run, so readers take them
// as data instead of parsing names.
#pragma once

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "common/detail/precision.h"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::app {

class JsonReport : public benchmark::JSONReporter {
 public:
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // Called once before the report is written: adds to the context what the run learned at its end.
  void add_context_at_end(std::function<void(nlohmann::ordered_json&)> add) { at_end_ = std::move(add); }

 private:
  std::function<void(nlohmann::ordered_json&)> at_end_;
  nlohmann::ordered_json report_;
  std::chrono::steady_clock::time_point last_report_ = std::chrono::steady_clock::now();
};

// The row block of one benchmark run: {"registered": ..., "family": ..., "args": {...}, "gpu": N|null}
// and, where given, "wall_s": the seconds since the previous row was reported (its setup, trials,
// counters and checks: what the row costs a run). `function_name` and `args` are Google Benchmark's
// (BenchmarkName's fields).
// "requirement": what the chip must have to run the row (Requirement::rule), where it needs something.
// `counters`: the row's counter names; its result quantities (catalog role "result") go in as "results":
// {name: "higher"|"lower"}, or {"time": "lower"} for a row that measured none (its time is its result).
// "precision": how the row's sampling ended (the stopping rule's samples, reason, target) and, per result read
// from the timed launches, its 95% half-width relative to the value ("intervals"), where `precision` is given.
nlohmann::ordered_json row_block(const std::string& function_name, const std::string& args, double wall_s = -1.0,
                                 const std::vector<std::string>& counters = {},
                                 const std::optional<detail::RowPrecision>& precision = std::nullopt,
                                 const std::map<std::string, double>& values = {});

}  // namespace gpubench::app
