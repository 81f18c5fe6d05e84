// The benchmark case being run, set by the registration's wrapper for the length of one call: its
// registration's memory of profiled counters and the arguments that identify the case in it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpubench::detail {

using CounterValues = std::map<std::string, double>;

// One per registered benchmark: counters profiled so far, and values measured once per case
// (once_per_case), by the case's arguments.
struct CaseCounters {
  std::map<std::vector<std::int64_t>, CounterValues> by_args;
  std::map<std::vector<std::int64_t>, std::vector<double>> measured_by_args;
};

struct RunningCase {
  CaseCounters* counters;
  std::vector<std::int64_t> args;
  const std::vector<std::string>* arg_names;  // as registered, in the order of `args`
  std::string report_key;                     // row_series' key: <name>/<axis>:<value>/... as Google Benchmark names it
};

// Makes `running` the current case until destroyed.
class RunningCaseScope {
 public:
  explicit RunningCaseScope(RunningCase running);
  ~RunningCaseScope();
  RunningCaseScope(const RunningCaseScope&) = delete;
  RunningCaseScope& operator=(const RunningCaseScope&) = delete;
};

// The current case, or nullptr outside a registered benchmark (e.g. a test calling run() directly).
RunningCase* running_case();

}  // namespace gpubench::detail
