// A CUPTI Range Profiler session for one device and one metric set (CUDA 13 API: the range
// profiler for collection, the profiler host object for config images and evaluation).
// User replay with a user range around the launch: the launch runs once per pass the metrics need,
// each pass after the caller's `prepare` (gpubench scrubs L2 there), so every pass starts from the
// same cache state, as Nsight Compute's flush before each pass does. Kernel replay would restore device
// memory between passes instead, leaving L2 full of dirty lines and inflating DRAM writes.
// The launch must therefore be repeatable: same work every time (all gpubench kernels are).
#pragma once

#include <cupti_result.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {

class CuptiError : public std::runtime_error {
 public:
  CuptiError(CUptiResult code, const std::string& message) : std::runtime_error(message), code_(code) {}
  CUptiResult code() const noexcept { return code_; }
  // The environment forbids or cannot do profiling at all (privileges, another profiler, a
  // virtualized or unsupported device), as opposed to a problem with one metric.
  bool profiling_unavailable() const noexcept;

 private:
  CUptiResult code_;
};

// A metric this chip does not have.
class UnsupportedMetric : public std::runtime_error {
 public:
  UnsupportedMetric(const std::string& metric, const std::string& message)
      : std::runtime_error(message), metric_(metric) {}
  const std::string& metric() const noexcept { return metric_; }

 private:
  std::string metric_;
};

class CuptiProfiler {
 public:
  // Ranges (kernels, per_kernel) one profiled pass may contain.
  static constexpr std::size_t kMaxRanges = 16;

  // The CUDA runtime must already have a current context on `device`. Checks every metric;
  // throws UnsupportedMetric naming the first one the chip lacks, or CuptiError.
  CuptiProfiler(int device, std::vector<std::string> perfworks_metrics);
  ~CuptiProfiler();
  CuptiProfiler(CuptiProfiler&&) noexcept;
  CuptiProfiler& operator=(CuptiProfiler&&) noexcept;
  CuptiProfiler(const CuptiProfiler&) = delete;
  CuptiProfiler& operator=(const CuptiProfiler&) = delete;

  const std::string& chip() const;
  std::size_t passes() const;

  // Runs `launch_and_sync` once per pass the metrics need, each time after `prepare` (outside the
  // profiled range); returns one value per metric, in order, for the whole launch. The range profiler stays
  // enabled between calls of one profiler; where it was enabled afresh, its first Start left ~20 MB of CUPTI's
  // writes in L2 (H100) and `after_enable` runs before that pass's `prepare` (to scrub them).
  std::vector<double> profile(const std::function<void()>& launch_and_sync, const std::function<void()>& prepare = {},
                              const std::function<void()>& after_enable = {});

  // One profiled range: its name and one value per metric, in order.
  struct Range {
    std::string name;
    std::vector<double> values;
  };
  enum class RangeSplit {
    whole_launch,  // one range around `launch_and_sync`
    per_kernel,    // one range per kernel, in launch order, `prepare`'s kernels first
  };
  std::vector<Range> profile_ranges(const std::function<void()>& launch_and_sync, const std::function<void()>& prepare,
                                    RangeSplit split, const std::function<void()>& after_enable = {});

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Ends CUPTI's profiler for the process (after every CuptiProfiler is gone); a later profiler
// initializes it again.
void shutdown_cupti_profiler() noexcept;
// Disables the range profiler kept enabled between cases (before its context goes, or another user of CUPTI's
// profiler on it).
void disable_range_profiler() noexcept;

}  // namespace gpubench
