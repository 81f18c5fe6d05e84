#include "app/json_report.h"

#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/registry.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

namespace gpubench::app {
namespace {

constexpr int kSchema = 2;  // 2: rows name their results, the catalog gives each counter its role

// Runs `write` with the reporter's output going to a string, and returns what it wrote.
template <class Write>
std::string captured(benchmark::BenchmarkReporter& reporter, Write write) {
  std::ostream& real = reporter.GetOutputStream();
  std::ostringstream buffer;
  reporter.SetOutputStream(&buffer);
  write();
  reporter.SetOutputStream(&real);
  return buffer.str();
}

void strip_suffix(std::string& text, const std::string& suffix) {
  if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0)
    text.resize(text.size() - suffix.size());
}

// An argument's value as Google Benchmark wrote it ("16", "0.5"), as a JSON number where it is one.
nlohmann::ordered_json arg_value(const std::string& text) {
  const nlohmann::ordered_json number = nlohmann::ordered_json::parse(text, nullptr, false);
  return number.is_number() ? number : nlohmann::ordered_json(text);
}

// What Google Benchmark wrote, parsed; where it is not JSON (a value it cannot write as JSON), a one-line warning
// and `fallback`: the report stays one valid document and the run goes on.
nlohmann::ordered_json parsed_or(const std::string& text, nlohmann::ordered_json fallback, const std::string& what) {
  nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded()) return parsed;
  std::fprintf(stderr, "gpubench: warning: Google Benchmark's JSON for %s did not parse; the report keeps less of it\n",
               what.c_str());
  return fallback;
}

}  // namespace

namespace {

// A number rounded to `digits` significant digits, or null where not finite (JSON has no infinity).
nlohmann::ordered_json rounded(double value, int digits = 4) {
  if (!std::isfinite(value)) return nullptr;
  if (value == 0.0) return 0.0;
  const double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(value)))));
  return std::round(value * scale) / scale;
}

nlohmann::ordered_json precision_block(const detail::RowPrecision& precision, const nlohmann::ordered_json& results,
                                       const std::map<std::string, double>& values) {
  const bool cycles = precision.cycles.samples > 0;
  // A result's precision is the wider of the launch time's and the clock64 span's: every timed result is read
  // from one or both, and the stopping rule brought both within the target.
  const double relative = std::max(precision.time_ms.relative(), cycles ? precision.cycles.relative() : 0.0);
  // The launches' own interval within this run (what the stopping rule reached), named as such: what repeats run to
  // run is wider, and the card step writes it beside it ("stated", analysis/cards/stated.py).
  nlohmann::ordered_json block = {{"estimator", "mean"},
                                  {"sampling_confidence", 0.95},
                                  {"samples", precision.time_ms.samples},
                                  {"stop", detail::stop_reason_name(precision.stop)}};
  block["target"] = precision.target > 0.0 ? nlohmann::ordered_json(precision.target) : nullptr;
  block["sampling_s"] = rounded(precision.sampling_s, 3);
  block["time"] = {{"mean_ms", rounded(precision.time_ms.mean, 7)},
                   {"half_width", rounded(precision.time_ms.relative())}};
  if (cycles)
    block["cycles"] = {{"mean", rounded(precision.cycles.mean, 7)},
                       {"half_width", rounded(precision.cycles.relative())}};
  nlohmann::ordered_json& intervals = block["sampling_intervals"] = nlohmann::ordered_json::object();
  for (const auto& [name, better] : results.items()) {
    const std::optional<CounterDescription> description = describe_counter(name);
    if (description && !description->timed) continue;
    nlohmann::ordered_json interval = {{"half_width", rounded(relative)}};
    const auto value = values.find(name);
    if (value != values.end() && std::isfinite(value->second) && std::isfinite(relative)) {
      const double half = std::fabs(value->second) * relative;
      interval["low"] = rounded(value->second - half, 7);
      interval["high"] = rounded(value->second + half, 7);
    }
    intervals[name] = std::move(interval);
  }
  return block;
}

}  // namespace

nlohmann::ordered_json row_block(const std::string& function_name, const std::string& args, double wall_s,
                                 const std::vector<std::string>& counters,
                                 const std::optional<detail::RowPrecision>& precision,
                                 const std::map<std::string, double>& values) {
  const Registration* registration = registration_of(function_name);
  std::string registered = function_name;
  std::string family = registration != nullptr ? registration->family : registered.substr(0, registered.find('/'));
  const int gpu = registration != nullptr ? registration->device : -1;  // >= 0 only in a run over several GPUs
  if (gpu >= 0) {
    strip_suffix(registered, Family::device_suffix(gpu));
    strip_suffix(family, Family::device_suffix(gpu));
  }
  nlohmann::ordered_json block = {{"registered", registered}, {"family", family}};
  nlohmann::ordered_json& arguments = block["args"] = nlohmann::ordered_json::object();
  for (const auto& [axis, value] : named_args(args)) arguments[axis] = arg_value(value);
  if (registration != nullptr)
    for (const auto& [axis, value] : registration->string_axes) arguments[axis] = value;
  block["gpu"] = gpu >= 0 ? nlohmann::ordered_json(gpu) : nlohmann::ordered_json(nullptr);
  if (wall_s >= 0) block["wall_s"] = std::round(wall_s * 1000.0) / 1000.0;
  if (registration != nullptr && !registration->requirement.rule.empty())
    block["requirement"] = registration->requirement.rule;
  if (registration != nullptr && registration->users_family) block["users_family"] = true;
  // {"*": class of every result, "quantity": its own}
  if (registration != nullptr && !registration->noise_classes.empty()) {
    nlohmann::ordered_json& classes = block["noise_class"] = nlohmann::ordered_json::object();
    for (const auto& [quantity, measurement_class] : registration->noise_classes)
      classes[quantity.empty() ? "*" : quantity] = measurement_class;
  }
  // Its result quantities (catalog role "result") with the better direction; a row with none: its time.
  nlohmann::ordered_json& results = block["results"] = nlohmann::ordered_json::object();
  for (const std::string& name : counters) {
    const std::optional<CounterDescription> description = describe_counter(name);
    if (description && counter_role(*description) == "result") results[name] = better_name(description->better);
  }
  if (results.empty()) results["time"] = "lower";
  if (precision) block["precision"] = precision_block(*precision, results, values);
  const RowSeries series = row_series(function_name, args);
  if (!series.empty()) {
    nlohmann::ordered_json& fields = block["series"] = nlohmann::ordered_json::object();
    for (const auto& [name, values] : series) {
      nlohmann::ordered_json& list = fields[name] = nlohmann::ordered_json::array();
      for (double value : values)
        list.push_back(std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr));
    }
  }
  return block;
}

bool JsonReport::ReportContext(const Context& context) {
  last_report_ = std::chrono::steady_clock::now();
  bool ok = true;
  // Google Benchmark writes the report's opening: its context and "benchmarks": [ ; closed, it parses.
  const std::string opening = captured(*this, [&] { ok = benchmark::JSONReporter::ReportContext(context); });
  const nlohmann::ordered_json written =
      parsed_or(opening + "]}", {{"context", nlohmann::ordered_json::object()}}, "the run's context");
  report_ = nlohmann::ordered_json::object();
  report_["gpubench"] = {{"schema", kSchema}, {"counters", counter_catalog_document()}};
  for (const auto& [key, value] : written.items()) report_[key] = value;
  report_["benchmarks"] = nlohmann::ordered_json::array();
  return ok;
}

void JsonReport::ReportRuns(const std::vector<Run>& runs) {
  // The first run of a call carries the case's wall time (repetitions and aggregates follow it).
  const auto now = std::chrono::steady_clock::now();
  double wall_s = std::chrono::duration<double>(now - last_report_).count();
  last_report_ = now;
  for (Run run : runs) {
    // Google Benchmark writes NaN and Infinity, which JSON lacks: such a counter is written as null.
    std::vector<std::string> not_finite;
    std::vector<std::string> counters;
    for (auto it = run.counters.begin(); it != run.counters.end();) {
      counters.push_back(it->first);
      if (std::isfinite(it->second.value)) {
        ++it;
      } else {
        not_finite.push_back(it->first);
        it = run.counters.erase(it);
      }
    }
    const std::string text = captured(*this, [&] { benchmark::JSONReporter::ReportRuns({run}); });
    const std::size_t open = text.find('{');  // after its ",\n"
    nlohmann::ordered_json row =
        parsed_or(open == std::string::npos ? text : text.substr(open),
                  {{"name", run.benchmark_name()}, {"run_name", run.run_name.str()}}, "row " + run.benchmark_name());
    for (const std::string& name : not_finite) row[name] = nullptr;
    std::map<std::string, double> values;
    for (const auto& [name, counter] : run.counters) values[name] = counter.value;
    values["time"] = run.GetAdjustedRealTime();
    row["gpubench"] =
        row_block(run.run_name.function_name, run.run_name.args, wall_s, counters,
                  detail::row_precision(run.run_name.function_name, run.run_name.args, run.repetition_index), values);
    wall_s = -1.0;
    report_["benchmarks"].push_back(std::move(row));
  }
}

void JsonReport::Finalize() {
  if (at_end_ && report_.contains("context")) at_end_(report_["context"]);
  GetOutputStream() << report_.dump(2) << '\n';
}

}  // namespace gpubench::app
