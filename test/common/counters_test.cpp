#include "common/cupti/counter_selection.h"
#include "common/cupti/metric_table.h"
#include "common/traffic.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

namespace gpubench {
namespace {

TEST(MetricTable, NamesAndMetricsAreUniqueAndEveryEntryIsDescribed) {
  std::set<std::string> names, metrics;  // a ratio may share its numerator with a count: the pair is unique
  for (const MetricSpec& spec : metric_table()) {
    EXPECT_TRUE(names.insert(spec.name).second) << "duplicate counter " << spec.name;
    const std::string metric = std::string(spec.perfworks) + " / " + (spec.per != nullptr ? spec.per : "1") + " + " +
                               (spec.per_plus != nullptr ? spec.per_plus : "0");
    EXPECT_TRUE(metrics.insert(metric).second) << "duplicate metric " << metric;
    EXPECT_GT(std::string(spec.unit).size(), 0u) << spec.name;
    EXPECT_GT(std::string(spec.description).size(), 10u) << spec.name;
    EXPECT_GT(spec.scale, 0.0) << spec.name;
    // Perfworks names carry a rollup (.sum, .avg, .pct, .ratio...): without one CUPTI rejects them.
    EXPECT_NE(std::string(spec.perfworks).find('.'), std::string::npos) << spec.perfworks;
    if (spec.per != nullptr) {
      EXPECT_NE(std::string(spec.per).find('.'), std::string::npos) << spec.per;
    }
  }
}

TEST(MetricTable, DerivedRatiosAreTableRows) {
  // What experiments once divided by hand: each a ratio of two collected metrics.
  for (const char* name : {"active_lanes_per_inst", "sectors_per_request", "conflicts_per_load", "l2_hit_rate"}) {
    const MetricSpec* spec = find_metric(name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_NE(spec->per, nullptr) << name;
  }
  const std::vector<const MetricSpec*> specs = {find_metric("sectors_per_request")};
  const auto counters = counter_values(specs, perfworks_metrics(specs), {4096.0, 128.0});
  EXPECT_DOUBLE_EQ(counters.at("sectors_per_request"), 32.0);
}

TEST(MetricTable, RatiosCollectTheirDenominatorOnceAndDivide) {
  const std::vector<const MetricSpec*> specs = {find_metric("sectors_per_request"), find_metric("global_load_sectors")};
  const std::vector<std::string> metrics = perfworks_metrics(specs);
  // global_load_sectors' metric is also sectors_per_request's numerator: collected once.
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(metrics[0], specs[0]->perfworks);
  EXPECT_EQ(metrics[1], specs[0]->per);

  const auto counters = counter_values(specs, metrics, {1000.0, 250.0});  // sectors, requests
  EXPECT_DOUBLE_EQ(counters.at("sectors_per_request"), 4.0);
  EXPECT_DOUBLE_EQ(counters.at("global_load_sectors"), 1000.0);

  const auto no_requests = counter_values(specs, metrics, {0.0, 0.0});
  EXPECT_EQ(no_requests.count("sectors_per_request"), 0u);  // no accesses: no ratio, not 0
  EXPECT_THROW(counter_values(specs, {metrics[0]}, {1.0}), std::invalid_argument);
}

TEST(MetricTable, L2HitRateIsHitsOverLookupsAndCannotPassAHundred) {
  const std::vector<const MetricSpec*> specs = {find_metric("l2_hit_rate"), find_metric("l2_read_miss_sectors")};
  const std::vector<std::string> metrics = perfworks_metrics(specs);
  ASSERT_EQ(metrics.size(), 2u);  // hits, misses: the denominator is their sum
  EXPECT_EQ(std::string(specs[0]->per_plus), specs[1]->perfworks);
  EXPECT_DOUBLE_EQ(counter_values(specs, metrics, {750.0, 250.0}).at("l2_hit_rate"), 75.0);
  // Lookups are not requests: a far-partition load is looked up twice. Whatever the counts, at most 100%.
  EXPECT_DOUBLE_EQ(counter_values(specs, metrics, {12288.0, 0.0}).at("l2_hit_rate"), 100.0);
  EXPECT_DOUBLE_EQ(counter_values(specs, metrics, {1.0, 24576.0}).at("l2_hit_rate"), 100.0 / 24577.0);
  EXPECT_EQ(counter_values(specs, metrics, {0.0, 0.0}).count("l2_hit_rate"), 0u);
}

TEST(MetricTable, HasTheCountersTheHarnessPromises) {
  for (const char* name :
       {"l2_read_bytes", "l2_write_bytes", "dram_read_bytes", "dram_write_bytes", "shared_bank_conflicts",
        "shared_ld_bank_conflicts", "shared_st_bank_conflicts", "shared_wavefronts", "global_load_sectors",
        "l1_hit_rate", "l2_hit_rate", "inst_executed", "achieved_occupancy", "sm_cycles_active"})
    EXPECT_NE(find_metric(name), nullptr) << name;
  EXPECT_EQ(find_metric("l2_read_sectors"), nullptr);
  EXPECT_EQ(find_metric("l2_read_bytes")->scale, 32.0);  // sectors are 32 bytes
}

TEST(CounterSelection, DefaultKeepsTheExperimentsOwn) {
  const std::vector<std::string> defaults = {"inst_executed", "l2_read_bytes"};
  EXPECT_EQ(CounterSelection::parse("").resolve(defaults), defaults);
  EXPECT_EQ(CounterSelection::parse("default").resolve(defaults), defaults);
}

TEST(CounterSelection, NoneSwitchesProfilingOff) {
  EXPECT_TRUE(CounterSelection::parse("none").disabled());
  EXPECT_TRUE(CounterSelection::parse("off").resolve({"inst_executed"}).empty());
}

TEST(CounterSelection, ListReplacesAndPlusExtendsWithoutDuplicates) {
  const std::vector<std::string> defaults = {"inst_executed"};
  EXPECT_EQ(CounterSelection::parse("l2_read_bytes,dram_read_bytes").resolve(defaults),
            (std::vector<std::string>{"l2_read_bytes", "dram_read_bytes"}));
  EXPECT_EQ(CounterSelection::parse("+l2_read_bytes,inst_executed").resolve(defaults),
            (std::vector<std::string>{"inst_executed", "l2_read_bytes"}));
}

TEST(CounterSelection, UnknownCounterIsAnErrorNamingIt) {
  try {
    CounterSelection::parse("l2_read_bytes,l2_raed_bytes");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'l2_raed_bytes'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(CounterSelection::parse(","), std::invalid_argument);
}

TEST(Traffic, NormalizedIsMeasuredOverIdealAndPerElementDividesByElements) {
  // The seed homework's N*R / N*W columns: a kernel that reads its input twice shows 2.0.
  const auto derived = derive_traffic_counters(
      {{"l2_read_bytes", 8000.0}, {"l2_write_bytes", 4000.0}, {"dram_read_bytes", 4000.0}, {"inst_executed", 7.0}},
      IdealTraffic{1000.0, 4000.0, 4000.0});
  EXPECT_DOUBLE_EQ(derived.at("l2_read_normalized"), 2.0);
  EXPECT_DOUBLE_EQ(derived.at("l2_write_normalized"), 1.0);
  EXPECT_DOUBLE_EQ(derived.at("dram_read_normalized"), 1.0);
  EXPECT_DOUBLE_EQ(derived.at("l2_read_bytes_per_element"), 8.0);
  EXPECT_EQ(derived.count("dram_write_normalized"), 0u);  // not measured
  EXPECT_EQ(derived.count("inst_executed_per_element"), 0u);
}

TEST(Traffic, NoIdealNoNormalizedCounters) {
  const auto derived = derive_traffic_counters({{"l2_read_bytes", 8.0}}, IdealTraffic{});
  EXPECT_TRUE(derived.empty());
}

}  // namespace
}  // namespace gpubench
