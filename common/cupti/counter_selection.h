// Which hardware counters a benchmark reports: the experiment's defaults, replaced or extended from
// the command line (--gpubench_counters) or the environment (GPUBENCH_COUNTERS).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpubench {

class CounterSelection {
 public:
  // spec: "" or "default" keeps each experiment's defaults; "none" (or "off") profiles nothing;
  // "a,b" replaces the defaults; "+a,b" adds to them. Throws std::invalid_argument naming an
  // unknown counter.
  static CounterSelection parse(const std::string& spec);

  std::vector<std::string> resolve(const std::vector<std::string>& experiment_defaults) const;
  bool disabled() const { return mode_ == Mode::kNone; }

 private:
  enum class Mode { kDefaults, kNone, kReplace, kExtend };
  Mode mode_ = Mode::kDefaults;
  std::vector<std::string> names_;
};

}  // namespace gpubench
