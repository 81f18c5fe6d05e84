#include "common/detail/run_control.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gpubench::detail {
namespace {

TEST(RunControl, TimeByFamilyPutsTheLongestFirst) {
  const std::map<std::string, double> seconds = {{"Divergence", 2.04}, {"PointerChase", 33.0}, {"Stream", 14.1}};
  EXPECT_EQ(time_by_family(seconds), "PointerChase 33.0 s, Stream 14.1 s, Divergence 2.0 s");
  EXPECT_EQ(time_by_family({}), "");
}

}  // namespace
}  // namespace gpubench::detail
