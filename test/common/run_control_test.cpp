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

TEST(RunControl, TimeByPartCountsANestedPartOnceAndTheTrialsBeforeTheFinal) {
  EXPECT_EQ(time_by_part(10.0), "");
  add_time("counter passes", 3.0);
  add_time("L2 scrubs", 1.0);
  add_time("timed launches", 4.0);
  add_gpu_time(2.5);
  add_trial("A/1", 1);
  add_trial("A/1", 10);
  add_trial("A/1", 89);
  add_trial("B/1", 100);
  EXPECT_EQ(time_by_part(10.0),
            "timed launches 4.0 s (GPU 2.5 s), counter passes 3.0 s in 1 calls, everything else 2.0 s, L2 scrubs 1.0 s "
            "in 1 calls; "
            "2.0 trials a case, 6% of launches before the final trial");
  {
    const TimedPart outer("outer part");
    const TimedPart inner("inner part");
  }
  const std::string text = time_by_part(100.0);
  EXPECT_NE(text.find("outer part 0.0 s in 1 calls"), std::string::npos) << text;
  EXPECT_NE(text.find("inner part 0.0 s"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpubench::detail
