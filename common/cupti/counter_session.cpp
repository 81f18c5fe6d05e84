#include "common/cupti/counter_session.h"

#include "common/cupti/metric_table.h"

#include <cstdio>

namespace gpubench {

CounterSession& CounterSession::get() {
  static CounterSession session;
  return session;
}

void CounterSession::warn_once(const std::string& message) {
  if (warned_.insert(message).second) std::fprintf(stderr, "gpubench: warning: %s\n", message.c_str());
}

void CounterSession::close() noexcept {
  profilers_.clear();
  shutdown_cupti_profiler();
}

void CounterSession::disable(const std::string& reason) {
  unavailable_reason_ = reason;
  profilers_.clear();
  warn_once("hardware counters are off for this run: " + reason + "; times and cycles are unaffected");
}

CuptiProfiler* CounterSession::profiler_for(int device, const std::vector<std::string>& perfworks_metrics) {
  auto found = profilers_.find({device, perfworks_metrics});
  if (found != profilers_.end()) return found->second.get();
  auto profiler = std::make_unique<CuptiProfiler>(device, perfworks_metrics);
  CuptiProfiler* raw = profiler.get();
  profilers_.emplace(std::pair{device, perfworks_metrics}, std::move(profiler));
  return raw;
}

std::map<std::string, double> CounterSession::profile(int device, const std::vector<std::string>& experiment_defaults,
                                                      const std::function<void()>& launch_and_sync,
                                                      const std::function<void()>& prepare,
                                                      const std::function<void()>& after_enable) {
  if (!unavailable_reason_.empty()) return {};
  std::vector<const MetricSpec*> specs;
  for (const std::string& name : selection_.resolve(experiment_defaults)) {
    const MetricSpec* spec = find_metric(name);
    if (spec == nullptr) throw std::invalid_argument("experiment asks for unknown counter '" + name + "'");
    if (!dropped_counters_.count(name)) specs.push_back(spec);
  }
  while (!specs.empty()) {
    const std::vector<std::string> metrics = perfworks_metrics(specs);
    try {
      CuptiProfiler* profiler = profiler_for(device, metrics);
      return counter_values(specs, metrics, profiler->profile(launch_and_sync, prepare, after_enable));
    } catch (const UnsupportedMetric& e) {
      for (auto it = specs.begin(); it != specs.end(); ++it) {
        if (e.metric() == (*it)->perfworks || ((*it)->per != nullptr && e.metric() == (*it)->per) ||
            ((*it)->per_plus != nullptr && e.metric() == (*it)->per_plus)) {
          dropped_counters_.insert((*it)->name);
          warn_once("counter " + std::string((*it)->name) + " dropped: " + e.what());
          specs.erase(it);
          break;
        }
      }
    } catch (const CuptiError& e) {
      if (e.profiling_unavailable()) {
        disable(e.what());
      } else {
        warn_once(std::string("hardware counters failed for a benchmark: ") + e.what());
      }
      return {};
    }
  }
  return {};
}

}  // namespace gpubench
