// How well a row's mean is known, and when to stop measuring it (nvbench's stopping criteria, µOpTime's
// effort that follows stability): a row samples launches until the 95% confidence interval of each mean its
// results are read from (launch time, clock64 span) is within a target, relative to the mean, after a floor of
// samples and before a cap of time. The mean, not the median: a rate is work over total time, which is the mean
// launch, and the fixed-effort mode (Google Benchmark's min time) reports the same mean.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::detail {

// One preset's rule (the table is preset_stopping_rule()).
struct StoppingRule {
  double target = 0.005;  // 95% half-width over the mean
  int min_samples = 20;
  double cap_s = 0.5;  // wall seconds of a row's sampling, launches and their L2 scrubs
  // Seconds of samples at least: an L2 stream's mean over its first 20 launches (22 ms) read 2-5% apart from run to
  // run on an H100 and an H200, over 0.1 s within 0.2%, whatever the warm-up before them (0 to 0.15 s): slow
  // changes that no interval inside a short window can see (nvbench's --min-time, 0.5 s by default, for the same).
  double min_s = 0.0;
};

// The mean of samples taken in order and its 95% half-width by batch means: the samples cut into
// kBatches consecutive batches, Student's t over the batch means. Batches absorb the correlation of
// neighbouring launches (a clock that steps, a cache that warms), which a t over single samples would hide; where
// the batch means are still correlated with their neighbours (batches too short for the correlation), the
// standard error grows by sqrt((1 + r) / (1 - r)), r their lag-1 autocorrelation.
struct MeanEstimate {
  double mean = 0.0;
  double half_width = 0.0;  // absolute, 95%
  std::int64_t samples = 0;
  double relative() const;  // half_width / |mean|; infinity for a zero mean with a spread
};
constexpr int kBatches = 10;
MeanEstimate estimate_mean(const std::vector<double>& samples);

enum class StopReason { kTarget, kCap, kFixed, kInterrupted };
const char* stop_reason_name(StopReason reason);

// What a row's sampling ended with: the launch-time and cycle estimates, and why it stopped.
struct RowPrecision {
  MeanEstimate time_ms;
  MeanEstimate cycles;  // samples 0: the row stamps no cycles
  StopReason stop = StopReason::kFixed;
  double target = 0.0;  // 0 in fixed mode
  double sampling_s = 0.0;
};

// Whether a sampling loop is done: every series' estimate within the target, or the cap reached. Checked at
// growing sample counts (next_check) so a row with thousands of launches computes few estimates.
class SamplingStop {
 public:
  explicit SamplingStop(const StoppingRule& rule) : rule_(rule) {}
  // After `samples` launches and `elapsed_s` of sampling: whether to look at the estimates now.
  bool due(std::int64_t samples, double elapsed_s) const;
  // With the samples so far (cycles empty when the row stamps none): true to stop, with the reason.
  bool done(const std::vector<double>& time_ms, const std::vector<double>& cycles, double elapsed_s,
            StopReason& reason);

 private:
  StoppingRule rule_;
  std::int64_t next_check_ = 0;
};

// The running row's precision, kept for its JSON entry. Under a stopping rule each call of a case is one of its
// repetitions; with fixed effort a later call (Google Benchmark's next trial) replaces the earlier.
void report_precision(const RowPrecision& precision);
// The precision of the row Google Benchmark names `function_name` with `args`, repetition `repetition`.
std::optional<RowPrecision> row_precision(const std::string& function_name, const std::string& args,
                                          std::int64_t repetition);

// The stopping rule of a preset ("quick", "full", "check"), with --gpubench_precision's target when given (> 0).
StoppingRule preset_stopping_rule(const std::string& preset, double target_override = 0.0);

// The run's mode: adaptive (a rule) unless the user asked for fixed effort (--benchmark_min_time). Set once by
// the main before registration; GPU rows register as one Google Benchmark iteration that samples by the rule.
void set_stopping_rule(const StoppingRule* rule);
const StoppingRule* stopping_rule();  // nullptr: fixed effort

}  // namespace gpubench::detail
