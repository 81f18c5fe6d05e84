#include "common/cupti/counter_selection.h"

#include "common/cupti/metric_table.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace gpubench {

CounterSelection CounterSelection::parse(const std::string& spec) {
  CounterSelection selection;
  if (spec.empty() || spec == "default") return selection;
  if (spec == "none" || spec == "off") {
    selection.mode_ = Mode::kNone;
    return selection;
  }
  std::string list = spec;
  selection.mode_ = Mode::kReplace;
  if (list.front() == '+') {
    selection.mode_ = Mode::kExtend;
    list.erase(0, 1);
  }
  std::stringstream stream(list);
  for (std::string name; std::getline(stream, name, ',');) {
    if (name.empty()) continue;
    if (find_metric(name) == nullptr)
      throw std::invalid_argument("unknown counter '" + name + "'; known counters: " + metric_names_list());
    if (std::find(selection.names_.begin(), selection.names_.end(), name) == selection.names_.end())
      selection.names_.push_back(name);
  }
  if (selection.names_.empty()) throw std::invalid_argument("--gpubench_counters names no counter: '" + spec + "'");
  return selection;
}

std::vector<std::string> CounterSelection::resolve(const std::vector<std::string>& experiment_defaults) const {
  switch (mode_) {
    case Mode::kNone: return {};
    case Mode::kReplace: return names_;
    case Mode::kExtend: {
      std::vector<std::string> names = experiment_defaults;
      for (const std::string& name : names_)
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      return names;
    }
    case Mode::kDefaults:
    default: return experiment_defaults;
  }
}

}  // namespace gpubench
