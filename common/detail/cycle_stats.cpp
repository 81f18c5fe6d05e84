#include "common/detail/cycle_stats.h"

#include <algorithm>
#include <stdexcept>

namespace gpubench {

void CycleStats::add(const CycleSpan& span) {
  if (span.stop_clock < span.start_clock || span.stop_ns < span.start_ns)
    throw std::runtime_error("cycle span runs backwards: the kernel did not record start and stop");
  const std::uint64_t cycles = span.stop_clock - span.start_clock;
  ++count_;
  sum_cycles_ += static_cast<double>(cycles);
  sum_ns_ += static_cast<double>(span.stop_ns - span.start_ns);
  min_cycles_ = std::min(min_cycles_, cycles);
  spans_.push_back(static_cast<double>(cycles));
  segment_cycles_ += static_cast<double>(cycles);
  segment_ns_ += static_cast<double>(span.stop_ns - span.start_ns);
  if (segment_ns_ >= kMinNsForDriftSegment) {
    const double mhz = segment_cycles_ / segment_ns_ * 1e3;
    slowest_segment_mhz_ = segments_ == 0 ? mhz : std::min(slowest_segment_mhz_, mhz);
    fastest_segment_mhz_ = segments_ == 0 ? mhz : std::max(fastest_segment_mhz_, mhz);
    ++segments_;
    segment_cycles_ = segment_ns_ = 0.0;
  }
}

std::optional<double> CycleStats::clock_drift() const {
  if (segments_ < 2) return std::nullopt;
  return (fastest_segment_mhz_ - slowest_segment_mhz_) / slowest_segment_mhz_;
}

std::optional<double> relative_spread(std::vector<double>& samples) {
  if (samples.size() < 4) return std::nullopt;
  const auto at = [&](double fraction) {
    const auto k = static_cast<std::ptrdiff_t>(fraction * static_cast<double>(samples.size() - 1) + 0.5);
    std::nth_element(samples.begin(), samples.begin() + k, samples.end());
    return samples[static_cast<std::size_t>(k)];
  };
  const double median = at(0.5);
  const double q3 = at(0.75);
  const double lowest = *std::min_element(samples.begin(), samples.end());
  if (!(median > 0.0)) return std::nullopt;
  return (q3 - lowest) / median;
}

std::optional<double> CycleStats::relative_spread() const {
  std::vector<double> copy = spans_;
  return gpubench::relative_spread(copy);
}

double CycleStats::mean_cycles() const { return count_ ? sum_cycles_ / static_cast<double>(count_) : 0.0; }

std::optional<double> CycleStats::sm_mhz() const {
  if (sum_ns_ < kMinNsForClockEstimate) return std::nullopt;
  return sum_cycles_ / sum_ns_ * 1e3;
}

double cycles_to_ns(double cycles, double mhz) {
  if (!(mhz > 0.0)) throw std::invalid_argument("cycles_to_ns: the clock must be positive");
  return cycles * 1e3 / mhz;
}

}  // namespace gpubench
