#include "common/detail/precision.h"

#include "common/detail/running_case.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace gpubench::detail {
namespace {

// Student's t, 0.975 quantile, for 1..19 degrees of freedom (kBatches - 1 once there are enough samples).
constexpr double kT975[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                            2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093};
static_assert(sizeof(kT975) / sizeof(kT975[0]) >= kBatches - 1);

// Each preset's rule, in one place. The check only has to clear limits a few percent wide; quick and full
// answer to half a percent. Caps: a row that cannot reach its target in this long says so. Quick's window
// is shorter than full's: a run of power-capped tensor rows moves with the clock, not with more samples.
struct PresetRule {
  const char* preset;
  StoppingRule rule;
};
constexpr PresetRule kPresetRules[] = {
    {"quick", {0.005, 20, 0.2, 0.08}},
    {"full", {0.005, 20, 0.3, 0.1}},
    {"check", {0.01, 20, 0.15, 0.05}},
    // The long presets' rows time themselves (preset_duration); their rule only bounds a row that does not.
    {"burn", {0.01, 20, 0.15, 0.05}},
    {"memtest", {0.01, 20, 0.15, 0.05}},
};

const StoppingRule* g_rule = nullptr;
StoppingRule g_rule_storage;

}  // namespace

double MeanEstimate::relative() const {
  if (mean != 0.0) return half_width / std::fabs(mean);
  return half_width == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
}

MeanEstimate estimate_mean(const std::vector<double>& samples) {
  MeanEstimate estimate;
  const auto n = static_cast<std::int64_t>(samples.size());
  estimate.samples = n;
  if (n == 0) {
    estimate.half_width = std::numeric_limits<double>::infinity();
    return estimate;
  }
  double sum = 0.0;
  for (double x : samples) sum += x;
  estimate.mean = sum / static_cast<double>(n);
  if (n < 2) {
    estimate.half_width = std::numeric_limits<double>::infinity();
    return estimate;
  }
  const std::int64_t batches = std::min<std::int64_t>(kBatches, n);
  std::vector<double> means;
  means.reserve(static_cast<std::size_t>(batches));
  for (std::int64_t b = 0; b < batches; ++b) {
    const std::int64_t from = b * n / batches, to = (b + 1) * n / batches;
    double batch = 0.0;
    for (std::int64_t i = from; i < to; ++i) batch += samples[static_cast<std::size_t>(i)];
    means.push_back(batch / static_cast<double>(to - from));
  }
  double centre = 0.0;
  for (double m : means) centre += m;
  centre /= static_cast<double>(batches);
  double squares = 0.0;
  for (double m : means) squares += (m - centre) * (m - centre);
  double standard_error = std::sqrt(squares / static_cast<double>(batches - 1) / static_cast<double>(batches));
  if (squares > 0.0 && batches > 2) {
    double lagged = 0.0;
    for (std::int64_t b = 1; b < batches; ++b)
      lagged += (means[static_cast<std::size_t>(b)] - centre) * (means[static_cast<std::size_t>(b - 1)] - centre);
    const double r = std::min(lagged / squares, 0.9);
    if (r > 0.0) standard_error *= std::sqrt((1.0 + r) / (1.0 - r));
  }
  estimate.half_width = kT975[batches - 2] * standard_error;
  return estimate;
}

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::kTarget: return "target";
    case StopReason::kCap: return "cap";
    case StopReason::kFixed: return "fixed";
    case StopReason::kInterrupted: return "interrupted";
  }
  return "fixed";
}

bool SamplingStop::due(std::int64_t samples, double elapsed_s) const {
  if (elapsed_s >= rule_.cap_s && samples >= 2) return true;
  return samples >= rule_.min_samples && samples >= next_check_ && elapsed_s >= rule_.min_s;
}

bool SamplingStop::done(const std::vector<double>& time_ms, const std::vector<double>& cycles, double elapsed_s,
                        StopReason& reason) {
  const auto samples = static_cast<std::int64_t>(time_ms.size());
  // The next look after a quarter more samples: few estimates for rows of thousands of launches.
  next_check_ = std::max(samples + 1, samples + samples / 4);
  const bool enough = samples >= rule_.min_samples && elapsed_s >= rule_.min_s;
  const bool time_known = estimate_mean(time_ms).relative() <= rule_.target;
  const bool cycles_known = cycles.empty() || estimate_mean(cycles).relative() <= rule_.target;
  if (enough && time_known && cycles_known) {
    reason = StopReason::kTarget;
    return true;
  }
  if (elapsed_s >= rule_.cap_s) {
    reason = StopReason::kCap;
    return true;
  }
  return false;
}

StoppingRule preset_stopping_rule(const std::string& preset, double target_override) {
  for (const PresetRule& entry : kPresetRules)
    if (preset == entry.preset) {
      StoppingRule rule = entry.rule;
      if (target_override > 0.0) rule.target = target_override;
      return rule;
    }
  throw std::invalid_argument("no stopping rule for preset '" + preset + "'");
}

void set_stopping_rule(const StoppingRule* rule) {
  if (rule == nullptr) {
    g_rule = nullptr;
    return;
  }
  g_rule_storage = *rule;
  g_rule = &g_rule_storage;
}

const StoppingRule* stopping_rule() { return g_rule; }

namespace {
std::map<std::string, std::vector<RowPrecision>>& precision_by_row() {
  static std::map<std::string, std::vector<RowPrecision>> rows;
  return rows;
}
}  // namespace

void report_precision(const RowPrecision& precision) {
  const RunningCase* running = running_case();
  if (running == nullptr) return;  // a test calling a body directly: no row to write
  std::vector<RowPrecision>& calls = precision_by_row()[running->report_key];
  if (precision.stop == StopReason::kFixed) calls.clear();
  calls.push_back(precision);
}

std::optional<RowPrecision> row_precision(const std::string& function_name, const std::string& args,
                                          std::int64_t repetition) {
  const auto found = precision_by_row().find(function_name + "|" + args);
  if (found == precision_by_row().end() || found->second.empty()) return std::nullopt;
  const std::vector<RowPrecision>& calls = found->second;
  if (repetition >= 0 && repetition < static_cast<std::int64_t>(calls.size()))
    return calls[static_cast<std::size_t>(repetition)];
  return calls.back();
}

}  // namespace gpubench::detail
