// Averages the cycle spans of many launches; derives the SM clock the kernels actually ran at.
#pragma once

#include "common/clocks.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gpubench {

class CycleStats {
 public:
  // %globaltimer ticks coarsely (about 1 us on recent parts); below this much summed time the
  // in-run clock estimate is not trusted and the startup calibration is used instead.
  static constexpr double kMinNsForClockEstimate = 200'000.0;

  void add(const CycleSpan& span);
  void clear() { *this = CycleStats(); }

  std::int64_t count() const { return count_; }
  // Every span's cycles, in the order they were added (the stopping rule's samples).
  const std::vector<double>& spans() const { return spans_; }
  double mean_cycles() const;
  double min_cycles() const { return count_ ? static_cast<double>(min_cycles_) : 0.0; }
  // SM clock over all spans, when they cover enough time to beat the timer's granularity.
  std::optional<double> sm_mhz() const;
  // How far the clock moved during the spans: (fastest - slowest) / slowest over consecutive
  // segments of at least kMinNsForDriftSegment each; nothing when fewer than two segments exist.
  // Long segments: a span's ends are read off a timer of ~1 us ticks, which for microsecond kernels
  // makes 200 us of spans read up to 1.5% off (seen on an H100); 10 ms keeps that under 0.1%.
  static constexpr double kMinNsForDriftSegment = 10'000'000.0;
  std::optional<double> clock_drift() const;
  // (q3 - min) / median of the spans: the width of nvbench's [min, q3] interval, relative to the centre.
  // Nothing with fewer than four spans.
  std::optional<double> relative_spread() const;

 private:
  std::int64_t count_ = 0;
  double sum_cycles_ = 0.0;
  double sum_ns_ = 0.0;
  std::uint64_t min_cycles_ = UINT64_MAX;
  double segment_cycles_ = 0.0;
  double segment_ns_ = 0.0;
  double slowest_segment_mhz_ = 0.0;
  double fastest_segment_mhz_ = 0.0;
  int segments_ = 0;
  std::vector<double> spans_;  // every span's cycles, for the spread
};

// (q3 - min) / median of `samples` (reordered), or nothing with fewer than four or a zero median.
std::optional<double> relative_spread(std::vector<double>& samples);

// Cycles at a clock in MHz to nanoseconds.
double cycles_to_ns(double cycles, double mhz);

}  // namespace gpubench
