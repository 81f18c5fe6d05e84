// The harness's own kernels: the SM-clock probe and the stream hold.
#include "common/detail/gpu_session.h"
#include "common/detail/sm_clock.h"
#include "common/detail/stream_hold.h"
#include "common/device_memory.h"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace gpubench {
namespace {

__global__ void set_flag(int* flag) { *flag = 1; }

TEST(SmClock, MeasuresAPlausibleClockNearTheRatedOne) {
  GPUBENCH_REQUIRE_GPU();
  GpuSession& gpu = GpuSession::get();
  const double mhz = measure_sm_clock_mhz(gpu.stream(), gpu.device().sm_count, 5'000'000);
  EXPECT_GT(mhz, 100.0);
  // Never meaningfully above the part's rated peak.
  EXPECT_LT(mhz, gpu.device().max_sm_clock_mhz * 1.02);
}

TEST(StreamHold, WorkQueuedBehindTheHoldRunsOnlyAfterRelease) {
  GPUBENCH_REQUIRE_GPU();
  GpuSession& gpu = GpuSession::get();
  if (!gpu.stream_hold_works()) GTEST_SKIP() << "kernel launches are synchronous here (compute-sanitizer?)";
  MappedHostValue<HoldFlags> flags;
  flags.host()->timed_out = 0;
  DeviceBuffer<int> flag(1);
  // Load set_flag before holding: a kernel's first launch (lazy module loading) waits for the
  // device to go idle, which a held stream never does until its timeout.
  set_flag<<<1, 1, 0, gpu.stream()>>>(flag.data());
  GPUBENCH_CUDA_LAUNCHED();
  flag.fill_bytes(0, gpu.stream());
  GPUBENCH_CUDA(cudaStreamSynchronize(gpu.stream()));
  {
    StreamHold hold(gpu.stream(), flags);
    set_flag<<<1, 1, 0, gpu.stream()>>>(flag.data());
    GPUBENCH_CUDA_LAUNCHED();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(cudaStreamQuery(gpu.stream()), cudaErrorNotReady);
    EXPECT_EQ(flag.download().front(), 0);
  }
  GPUBENCH_CUDA(cudaStreamSynchronize(gpu.stream()));
  EXPECT_EQ(flag.download().front(), 1);
  EXPECT_EQ(flags.host()->timed_out, 0);
}

TEST(L2Scrub, ReadsTwiceTheL2WithoutFault) {
  GPUBENCH_REQUIRE_GPU();
  GpuSession& gpu = GpuSession::get();
  gpu.scrub_l2();
  gpu.scrub_l2();  // the buffer is reused
  GPUBENCH_CUDA(cudaGetLastError());
}

}  // namespace
}  // namespace gpubench
