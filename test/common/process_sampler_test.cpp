// Telling this run's GPU processes from others' when the driver's process ids are the host's and this process lives
// in a container's PID namespace (where nvidia-smi shows none of them).
#include "common/detail/process_sampler.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace gpubench::detail {
namespace {

TEST(GpuProcessIds, AreAnotherNamespacesWhenThisProcessIsMissingAndSomeIdIsNoProcessHere) {
  const std::set<long> here = {1, 40, 41, 4242};  // the processes this namespace holds
  const auto exists_here = [&](long pid) { return here.count(pid) > 0; };
  // Same namespace: this process (40) is listed, or every listed id is a process here (a context not made yet).
  EXPECT_FALSE(pids_of_another_namespace({40, 4242}, 40, exists_here));
  EXPECT_FALSE(pids_of_another_namespace({4242}, 40, exists_here));
  EXPECT_FALSE(pids_of_another_namespace({}, 40, exists_here));
  // A container's: the host's ids of this process and another's, neither of them a process here.
  EXPECT_TRUE(pids_of_another_namespace({913377, 913401}, 40, exists_here));
  EXPECT_TRUE(pids_of_another_namespace({4242, 913401}, 40, exists_here));
}

}  // namespace
}  // namespace gpubench::detail
