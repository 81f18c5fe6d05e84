// Hardware counters for the whole run: which ones (CounterSelection), one CuptiProfiler per metric
// set, and graceful degradation. A counter problem never fails a benchmark: profiling that cannot
// work here (no permission, another profiler attached, unsupported device) is switched off with one
// warning line; a metric this chip lacks is dropped with one warning naming it.
#pragma once

#include "common/cupti/counter_selection.h"
#include "common/cupti/cupti_profiler.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

class CounterSession {
 public:
  static CounterSession& get();
  void configure(CounterSelection selection) { selection_ = std::move(selection); }

  // Profiles one execution of `launch_and_sync` for the selected counters (the experiment's
  // defaults, as the user's selection changes them). Returns counter name -> value in the
  // counter's unit; empty when profiling is off or unavailable.
  // `prepare` runs before each profiling pass (outside the profiled range); `after_enable` before it where
  // CUPTI's first Start wrote into L2 (CuptiProfiler::profile).
  std::map<std::string, double> profile(int device, const std::vector<std::string>& experiment_defaults,
                                        const std::function<void()>& launch_and_sync,
                                        const std::function<void()>& prepare = {},
                                        const std::function<void()>& after_enable = {});

  // Releases every profiler and CUPTI's profiler itself (before the GPU session closes).
  void close() noexcept;
  // Releases the profilers (bound to a device's context) but keeps CUPTI: before the run moves to
  // another GPU.
  void release_profilers() noexcept { profilers_.clear(); }

  // Why counters are off, or empty.
  const std::string& unavailable_reason() const { return unavailable_reason_; }

 private:
  CuptiProfiler* profiler_for(int device, const std::vector<std::string>& perfworks_metrics);
  void disable(const std::string& reason);
  void warn_once(const std::string& message);

  CounterSelection selection_;
  std::string unavailable_reason_;
  std::set<std::string> dropped_counters_;
  std::set<std::string> warned_;
  std::map<std::pair<int, std::vector<std::string>>, std::unique_ptr<CuptiProfiler>> profilers_;
};

}  // namespace gpubench
