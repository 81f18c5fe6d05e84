#include "common/detail/options.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {
namespace {

// argv as main gets it: mutable strings, null-terminated.
struct Argv {
  explicit Argv(std::vector<std::string> args) : storage(std::move(args)) {
    for (auto& s : storage) pointers.push_back(s.data());
    pointers.push_back(nullptr);
    argc = static_cast<int>(storage.size());
  }
  std::vector<std::string> remaining() const { return {pointers.begin(), pointers.begin() + argc}; }
  std::vector<std::string> storage;
  std::vector<char*> pointers;
  int argc;
};

TEST(Options, VerdictNeedsTheJsonAndTheCard) {
  Argv ok({"gpubench", "--gpubench_verdict", "--benchmark_out=run.json"});
  EXPECT_TRUE(parse_options(ok.argc, ok.pointers.data(), nullptr).verdict);
  Argv no_out({"gpubench", "--gpubench_verdict"});
  EXPECT_THROW(parse_options(no_out.argc, no_out.pointers.data(), nullptr), std::invalid_argument);
  Argv no_card({"gpubench", "--gpubench_verdict", "--benchmark_out=run.json", "--gpubench_card=none"});
  EXPECT_THROW(parse_options(no_card.argc, no_card.pointers.data(), nullptr), std::invalid_argument);
  Argv csv({"gpubench", "--gpubench_verdict", "--benchmark_out=run.csv", "--benchmark_out_format=csv"});
  EXPECT_THROW(parse_options(csv.argc, csv.pointers.data(), nullptr), std::invalid_argument);
}

TEST(Options, PrecisionIsAPercentageAndExcludesAFixedMinTime) {
  Argv half({"gpubench", "--gpubench_precision=0.5"});
  EXPECT_DOUBLE_EQ(parse_options(half.argc, half.pointers.data(), nullptr).precision, 0.005);
  EXPECT_EQ(half.argc, 1);  // consumed
  Argv none({"gpubench"});
  EXPECT_DOUBLE_EQ(parse_options(none.argc, none.pointers.data(), nullptr).precision, 0.0);
  for (const char* bad : {"--gpubench_precision=", "--gpubench_precision=abc", "--gpubench_precision=0",
                          "--gpubench_precision=-1", "--gpubench_precision=101"}) {
    Argv args({"gpubench", bad});
    EXPECT_THROW(parse_options(args.argc, args.pointers.data(), nullptr), std::invalid_argument) << bad;
  }
  Argv both({"gpubench", "--gpubench_precision=1", "--benchmark_min_time=0.1"});
  EXPECT_THROW(parse_options(both.argc, both.pointers.data(), nullptr), std::invalid_argument);
  Argv fixed({"gpubench", "--benchmark_min_time=0.1"});
  EXPECT_TRUE(parse_options(fixed.argc, fixed.pointers.data(), nullptr).min_time_given);
}

TEST(Options, DefaultsToGpuZero) {
  Argv a({"gpubench"});
  const Options o = parse_options(a.argc, a.pointers.data(), nullptr);
  EXPECT_EQ(o.devices.resolve(4), std::vector<int>{0});
  EXPECT_FALSE(o.list_only);
}

TEST(Options, DeviceFlagIsConsumedAndOtherFlagsStay) {
  Argv a({"gpubench", "--benchmark_filter=Divergence", "--gpubench_device=1", "--benchmark_repetitions=5"});
  const Options o = parse_options(a.argc, a.pointers.data(), nullptr);
  EXPECT_EQ(o.devices.resolve(4), std::vector<int>{1});
  EXPECT_EQ(a.remaining(),
            (std::vector<std::string>{"gpubench", "--benchmark_filter=Divergence", "--benchmark_repetitions=5"}));
  EXPECT_EQ(a.pointers[a.argc], nullptr);
}

TEST(Options, EnvironmentSelectsDeviceAndFlagWins) {
  Argv a({"gpubench"});
  EXPECT_EQ(parse_options(a.argc, a.pointers.data(), "2").devices.resolve(4), std::vector<int>{2});
  Argv b({"gpubench", "--gpubench_device=3"});
  EXPECT_EQ(parse_options(b.argc, b.pointers.data(), "2").devices.resolve(4), std::vector<int>{3});
  Argv c({"gpubench", "--gpubench_device=0"});
  EXPECT_EQ(parse_options(c.argc, c.pointers.data(), "all").devices.resolve(2), std::vector<int>{0});
}

TEST(Options, DeviceListsKeepTheirOrder) {
  Argv a({"gpubench", "--gpubench_device=1,0"});
  EXPECT_EQ(parse_options(a.argc, a.pointers.data(), nullptr).devices.resolve(2), (std::vector<int>{1, 0}));
  Argv b({"gpubench", "--gpubench_device=3,7"});  // more than the host has: the session says so, not the parser
  EXPECT_EQ(parse_options(b.argc, b.pointers.data(), nullptr).devices.resolve(2), (std::vector<int>{3, 7}));
}

TEST(Options, AllMeansEveryGpuOfTheHost) {
  Argv a({"gpubench", "--gpubench_device=all"});
  const DeviceChoice all = parse_options(a.argc, a.pointers.data(), nullptr).devices;
  EXPECT_TRUE(all.all);
  EXPECT_EQ(all.resolve(2), (std::vector<int>{0, 1}));
  EXPECT_EQ(all.resolve(8).size(), 8u);
  EXPECT_EQ(all.resolve(0), std::vector<int>{0});  // no GPU: GPU 0, whose session says why
  Argv b({"gpubench"});
  EXPECT_EQ(parse_options(b.argc, b.pointers.data(), "all").devices.resolve(3), (std::vector<int>{0, 1, 2}));
}

TEST(Options, RejectsBadDeviceLists) {
  for (const char* bad : {"--gpubench_device=0,", "--gpubench_device=,1", "--gpubench_device=0,,1",
                          "--gpubench_device=0,0", "--gpubench_device=1,x", "--gpubench_device=ALL",
                          "--gpubench_device=all,1", "--gpubench_device=0;1", "--gpubench_device= 1"}) {
    Argv a({"gpubench", bad});
    EXPECT_THROW(parse_options(a.argc, a.pointers.data(), nullptr), std::invalid_argument) << bad;
  }
  Argv a({"gpubench", "--gpubench_device=1,2,1"});
  try {
    parse_options(a.argc, a.pointers.data(), nullptr);
    FAIL() << "a repeated GPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("lists GPU 1 twice"), std::string::npos) << e.what();
  }
}

TEST(Options, RejectsBadDeviceIndices) {
  for (const char* bad :
       {"--gpubench_device=", "--gpubench_device=x", "--gpubench_device=-1", "--gpubench_device=1x"}) {
    Argv a({"gpubench", bad});
    EXPECT_THROW(parse_options(a.argc, a.pointers.data(), nullptr), std::invalid_argument) << bad;
  }
  Argv a({"gpubench"});
  EXPECT_THROW(parse_options(a.argc, a.pointers.data(), "zero"), std::invalid_argument);
}

TEST(Options, RejectsUnknownGpubenchFlagNamingIt) {
  Argv a({"gpubench", "--gpubench_devcie=1"});
  try {
    parse_options(a.argc, a.pointers.data(), nullptr);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--gpubench_devcie=1"), std::string::npos);
  }
}

TEST(Options, NoticesListTestsWithoutConsumingIt) {
  for (const char* flag : {"--benchmark_list_tests", "--benchmark_list_tests=true", "--benchmark_list_tests=1"}) {
    Argv a({"gpubench", flag});
    EXPECT_TRUE(parse_options(a.argc, a.pointers.data(), nullptr).list_only) << flag;
    EXPECT_EQ(a.argc, 2);
  }
  Argv a({"gpubench", "--benchmark_list_tests=false"});
  EXPECT_FALSE(parse_options(a.argc, a.pointers.data(), nullptr).list_only);
}

TEST(Options, CountersComeFromFlagOrEnvironmentAndListCountersIsConsumed) {
  Argv a({"gpubench", "--gpubench_counters=+l2_read_bytes", "--gpubench_list_counters"});
  const Options o = parse_options(a.argc, a.pointers.data(), nullptr, "none");
  EXPECT_EQ(o.counters, "+l2_read_bytes");
  EXPECT_EQ(o.list_counters, "text");
  EXPECT_EQ(a.argc, 1);
  Argv b({"gpubench"});
  EXPECT_EQ(parse_options(b.argc, b.pointers.data(), nullptr, "none").counters, "none");
}

TEST(Options, ColdL2IsOffUnlessAsked) {
  Argv a({"gpubench", "--gpubench_cold_l2", "--benchmark_filter=x"});
  EXPECT_TRUE(parse_options(a.argc, a.pointers.data(), nullptr).cold_l2);
  EXPECT_EQ(a.argc, 2);
  Argv b({"gpubench"});
  EXPECT_FALSE(parse_options(b.argc, b.pointers.data(), nullptr).cold_l2);
  Argv c({"gpubench", "--gpubench_cold_l2=maybe"});
  EXPECT_THROW(parse_options(c.argc, c.pointers.data(), nullptr), std::invalid_argument);
  Argv d({"gpubench", "--gpubench_cold_l2=true", "--gpubench_cold_l2=false"});
  EXPECT_FALSE(parse_options(d.argc, d.pointers.data(), nullptr).cold_l2);
  EXPECT_EQ(d.argc, 1);
}

TEST(Options, PresetIsQuickUnlessFullOrCheckIsAsked) {
  Argv a({"gpubench"});
  EXPECT_EQ(parse_options(a.argc, a.pointers.data(), nullptr).preset, "quick");
  Argv b({"gpubench", "--gpubench_preset=full"});
  EXPECT_EQ(parse_options(b.argc, b.pointers.data(), nullptr).preset, "full");
  Argv c({"gpubench"});
  EXPECT_EQ(parse_options(c.argc, c.pointers.data(), nullptr, nullptr, "full").preset, "full");
  Argv d({"gpubench", "--gpubench_preset=quick"});
  EXPECT_EQ(parse_options(d.argc, d.pointers.data(), nullptr, nullptr, "full").preset, "quick");  // the flag wins
  Argv e({"gpubench", "--gpubench_preset=fast"});
  EXPECT_THROW(parse_options(e.argc, e.pointers.data(), nullptr), std::invalid_argument);
  Argv f({"gpubench", "--gpubench_preset=check"});
  EXPECT_EQ(parse_options(f.argc, f.pointers.data(), nullptr).preset, "check");
}

TEST(Options, TheLongPresetsTakeADurationAndNoOtherPresetDoes) {
  Argv a({"gpubench", "--gpubench_preset=burn"});
  const Options burn = parse_options(a.argc, a.pointers.data(), nullptr);
  EXPECT_EQ(burn.preset, "burn");
  EXPECT_EQ(burn.duration_s, 0.0);  // the registry's default (120 s)
  Argv b({"gpubench", "--gpubench_preset=memtest", "--gpubench_duration=30"});
  EXPECT_EQ(parse_options(b.argc, b.pointers.data(), nullptr).duration_s, 30.0);
  for (const char* bad :
       {"--gpubench_duration=4", "--gpubench_duration=abc", "--gpubench_duration=", "--gpubench_duration=1e9"}) {
    Argv c({"gpubench", "--gpubench_preset=burn", bad});
    EXPECT_THROW(parse_options(c.argc, c.pointers.data(), nullptr), std::invalid_argument) << bad;
  }
  Argv d({"gpubench", "--gpubench_preset=check", "--gpubench_duration=30"});
  try {
    parse_options(d.argc, d.pointers.data(), nullptr);
    FAIL() << "a duration without a long preset was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("burn or memtest preset"), std::string::npos) << e.what();
  }
}

TEST(Options, CardPrefixAndTheOutputFlagsAreSeen) {
  Argv a({"gpubench", "--gpubench_card=results/card", "--benchmark_out=run.json", "--benchmark_format=json"});
  const Options o = parse_options(a.argc, a.pointers.data(), nullptr);
  EXPECT_EQ(o.card, "results/card");
  EXPECT_EQ(o.out, "run.json");
  EXPECT_EQ(o.format, "json");
  EXPECT_EQ(a.argc, 3);  // Google Benchmark's flags stay for it
  Argv b({"gpubench", "--gpubench_card="});
  EXPECT_THROW(parse_options(b.argc, b.pointers.data(), nullptr), std::invalid_argument);
}

TEST(Options, MinTimeTakesEitherFormAndBecomesWhatThisVersionReads) {
  EXPECT_EQ(min_time_for_version("0.05s", 1, 7), "0.05");
  EXPECT_EQ(min_time_for_version("0.05", 1, 7), "0.05");
  EXPECT_EQ(min_time_for_version("0.05", 1, 8), "0.05s");
  EXPECT_EQ(min_time_for_version("0.05s", 1, 9), "0.05s");
  EXPECT_EQ(min_time_for_version("100x", 1, 8), "100x");
  EXPECT_THROW(min_time_for_version("100x", 1, 7), std::invalid_argument);  // 1.7 cannot say it
  for (const char* bad : {"", "abc", "s", "x", "1.5x", "-1", "0.1ms"})
    EXPECT_THROW(min_time_for_version(bad, 1, 8), std::invalid_argument) << bad;

  Argv a({"gpubench", "--benchmark_min_time=0.2s"});
  const Options o = parse_options(a.argc, a.pointers.data(), nullptr);
  EXPECT_TRUE(o.min_time_given);
  ASSERT_EQ(a.argc, 2);
  const std::string rewritten = a.pointers[1];
  EXPECT_TRUE(rewritten == "--benchmark_min_time=0.2s" || rewritten == "--benchmark_min_time=0.2") << rewritten;
}

TEST(Options, MalformedGoogleBenchmarkFlagsAreOneLineErrors) {
  for (const char* bad : {"--benchmark_min_time=abc", "--benchmark_repetitions=0", "--benchmark_repetitions=two",
                          "--benchmark_format=xml", "--benchmark_out_format=yaml", "--benchmark_time_unit=h",
                          "--benchmark_min_warmup_time=soon"}) {
    Argv a({"gpubench", bad});
    try {
      parse_options(a.argc, a.pointers.data(), nullptr);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      EXPECT_NE(message.find(std::string(bad).substr(0, std::string(bad).find('='))), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace gpubench
