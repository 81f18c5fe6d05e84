// The stopping rule on synthetic launch streams: stable, noisy, drifting, bimodal and correlated samples, with the
// true mean known, so each test can fail: a rule that stops early, never stops, or states an interval that does not
// cover the truth about 95% of the time.
#include "common/detail/precision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <vector>

namespace gpubench::detail {
namespace {

struct Sampled {
  std::vector<double> samples;
  StopReason reason = StopReason::kFixed;
  double elapsed_s = 0.0;
};

// Samples `next()` as run() does: one launch of `seconds_each`, then the rule's look when it is due.
Sampled sample(const StoppingRule& rule, const std::function<double()>& next, double seconds_each) {
  SamplingStop stop(rule);
  Sampled out;
  const std::vector<double> no_cycles;
  while (true) {
    out.samples.push_back(next());
    out.elapsed_s += seconds_each;
    if (!stop.due(static_cast<std::int64_t>(out.samples.size()), out.elapsed_s)) continue;
    if (stop.done(out.samples, no_cycles, out.elapsed_s, out.reason)) return out;
  }
}

TEST(Precision, MeanAndHalfWidthOfKnownBatches) {
  // Ten batches of two: batch means 1..10 in an order whose neighbours are not alike, sd of the means sqrt(55/6),
  // t(9) = 2.262.
  std::vector<double> samples;
  for (int b : {1, 6, 2, 7, 3, 8, 4, 9, 5, 10}) samples.insert(samples.end(), {b - 0.5, b + 0.5});
  const MeanEstimate estimate = estimate_mean(samples);
  EXPECT_DOUBLE_EQ(estimate.mean, 5.5);
  EXPECT_NEAR(estimate.half_width, 2.262 * std::sqrt(55.0 / 6.0 / 10.0), 1e-9);
  EXPECT_EQ(estimate.samples, 20);
  // The same batch means in order: neighbours alike (lag-1 autocorrelation 0.7), the error grows by
  // sqrt(1.7 / 0.3).
  std::vector<double> rising;
  for (int b = 1; b <= 10; ++b) rising.insert(rising.end(), {b - 0.5, b + 0.5});
  EXPECT_NEAR(estimate_mean(rising).half_width, estimate.half_width * std::sqrt(1.7 / 0.3), 1e-9);
  EXPECT_TRUE(std::isinf(estimate_mean({1.0}).half_width));
  EXPECT_EQ(estimate_mean({2.0, 2.0, 2.0}).relative(), 0.0);
}

TEST(Precision, StableStreamStopsAtTheFloorOfSamples) {
  std::mt19937_64 random(1);
  std::normal_distribution<double> noise(1.0, 0.001);
  const StoppingRule rule{0.005, 20, 1.0};
  const Sampled run = sample(
      rule, [&] { return noise(random); }, 1e-4);
  EXPECT_EQ(run.reason, StopReason::kTarget);
  EXPECT_EQ(run.samples.size(), 20u);
}

TEST(Precision, StableStreamStillSamplesItsMinimumTime) {
  // A window shorter than the slow changes of a GPU's state would state a precision it does not have.
  std::mt19937_64 random(3);
  std::normal_distribution<double> noise(1.0, 0.001);
  const StoppingRule rule{0.005, 20, 1.0, 0.1};
  const Sampled run = sample(
      rule, [&] { return noise(random); }, 1e-3);
  EXPECT_EQ(run.reason, StopReason::kTarget);
  EXPECT_GE(run.elapsed_s, 0.1 - 1e-9);
  EXPECT_LT(run.elapsed_s, 0.13);
}

TEST(Precision, NoisyStreamSamplesUntilItsMeanIsKnown) {
  std::mt19937_64 random(2);
  std::normal_distribution<double> noise(1.0, 0.05);  // 5% a launch: about (2.26 * 5 / 0.5)^2 = 500 launches
  const StoppingRule rule{0.005, 20, 10.0};
  const Sampled run = sample(
      rule, [&] { return noise(random); }, 1e-4);
  EXPECT_EQ(run.reason, StopReason::kTarget);
  EXPECT_GT(run.samples.size(), 200u);
  EXPECT_LT(run.samples.size(), 2000u);
  EXPECT_LE(estimate_mean(run.samples).relative(), 0.005);
}

TEST(Precision, DriftingStreamReachesTheCapAndSaysSo) {
  // A clock that slides 0.2% a launch: batch means move with it, the interval stays wide, the cap ends it.
  double value = 1.0;
  const StoppingRule rule{0.005, 20, 0.05};
  const Sampled run = sample(
      rule, [&] { return value *= 1.002; }, 1e-4);
  EXPECT_EQ(run.reason, StopReason::kCap);
  EXPECT_NEAR(run.elapsed_s, 0.05, 2e-4);
  EXPECT_GT(estimate_mean(run.samples).relative(), 0.005);
}

// The share of runs whose stated 95% interval misses the true mean, over `runs` independent runs.
double miss_rate(const std::function<std::function<double()>(int)>& stream_of, double truth, int runs,
                 const StoppingRule& rule) {
  int missed = 0;
  for (int r = 0; r < runs; ++r) {
    const Sampled run = sample(rule, stream_of(r), 1e-4);
    const MeanEstimate estimate = estimate_mean(run.samples);
    if (std::fabs(estimate.mean - truth) > estimate.half_width) ++missed;
  }
  return static_cast<double>(missed) / runs;
}

TEST(Precision, BimodalStreamIntervalCoversTheMean) {
  // Launches that land on one of two times (a bank of pages either side of a boundary), 30% of them slow.
  const auto stream_of = [](int seed) {
    auto random = std::make_shared<std::mt19937_64>(100 + seed);
    return std::function<double()>([random] { return std::bernoulli_distribution(0.3)(*random) ? 1.2 : 1.0; });
  };
  const double miss = miss_rate(stream_of, 1.06, 400, StoppingRule{0.01, 20, 10.0});
  EXPECT_GT(miss, 0.01);
  EXPECT_LT(miss, 0.12);
}

TEST(Precision, CorrelatedStreamIntervalCoversTheMeanWhereSingleSamplesWouldNot) {
  // AR(1) noise, rho 0.9: neighbouring launches alike. A t over single samples states an interval about four
  // times too narrow; batch means keep the miss rate near 5%.
  const auto stream_of = [](int seed) {
    auto random = std::make_shared<std::mt19937_64>(500 + seed);
    auto last = std::make_shared<double>(0.0);
    return std::function<double()>([random, last] {
      *last = 0.9 * *last + std::normal_distribution<double>(0.0, 0.01)(*random);
      return 1.0 + *last;
    });
  };
  const StoppingRule rule{0.005, 20, 10.0};
  const double miss = miss_rate(stream_of, 1.0, 400, rule);
  EXPECT_LT(miss, 0.15);
  // What a t over single samples would have said, on the same streams: far more misses.
  int naive_missed = 0;
  for (int r = 0; r < 400; ++r) {
    const Sampled run = sample(rule, stream_of(r), 1e-4);
    const MeanEstimate estimate = estimate_mean(run.samples);
    double squares = 0.0;
    for (double x : run.samples) squares += (x - estimate.mean) * (x - estimate.mean);
    const double n = static_cast<double>(run.samples.size());
    if (std::fabs(estimate.mean - 1.0) > 1.96 * std::sqrt(squares / (n - 1) / n)) ++naive_missed;
  }
  EXPECT_GT(naive_missed / 400.0, 2 * miss);
}

TEST(Precision, PresetsHaveRulesAndTheFlagOverridesTheTarget) {
  EXPECT_DOUBLE_EQ(preset_stopping_rule("quick").target, 0.005);
  EXPECT_GT(preset_stopping_rule("check").target, preset_stopping_rule("quick").target);
  EXPECT_DOUBLE_EQ(preset_stopping_rule("full", 0.002).target, 0.002);
  EXPECT_THROW(preset_stopping_rule("nightly"), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench::detail
