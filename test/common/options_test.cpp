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

TEST(Options, DefaultsToGpuZero) {
  Argv a({"gpubench"});
  const Options o = parse_options(a.argc, a.pointers.data(), nullptr);
  EXPECT_EQ(o.device, 0);
  EXPECT_FALSE(o.list_only);
}

TEST(Options, DeviceFlagIsConsumedAndOtherFlagsStay) {
  Argv a({"gpubench", "--benchmark_filter=Divergence", "--gpubench_device=1", "--benchmark_repetitions=5"});
  const Options o = parse_options(a.argc, a.pointers.data(), nullptr);
  EXPECT_EQ(o.device, 1);
  EXPECT_EQ(a.remaining(),
            (std::vector<std::string>{"gpubench", "--benchmark_filter=Divergence", "--benchmark_repetitions=5"}));
  EXPECT_EQ(a.pointers[a.argc], nullptr);
}

TEST(Options, EnvironmentSelectsDeviceAndFlagWins) {
  Argv a({"gpubench"});
  EXPECT_EQ(parse_options(a.argc, a.pointers.data(), "2").device, 2);
  Argv b({"gpubench", "--gpubench_device=3"});
  EXPECT_EQ(parse_options(b.argc, b.pointers.data(), "2").device, 3);
}

TEST(Options, RejectsBadDeviceIndices) {
  for (const char* bad : {"--gpubench_device=", "--gpubench_device=x", "--gpubench_device=-1", "--gpubench_device=1x"}) {
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
  EXPECT_TRUE(o.list_counters);
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
}

}  // namespace
}  // namespace gpubench
