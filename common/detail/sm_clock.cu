#include "common/detail/sm_clock.h"

#include "common/clocks.h"
#include "common/cuda_check.h"
#include "common/device_memory.h"

#include <algorithm>
#include <vector>

namespace gpubench {
namespace {

struct ClockSample {
  std::uint64_t cycles;
  std::uint64_t ns;
};

__global__ void spin_and_sample_clock(std::uint64_t spin_ns, ClockSample* samples) {
  if (threadIdx.x != 0) return;
  const std::uint64_t ns0 = global_timer_ns();
  const std::uint64_t clock0 = sm_clock();
  std::uint64_t ns1 = ns0;
  while (ns1 - ns0 < spin_ns) ns1 = global_timer_ns();
  const std::uint64_t clock1 = sm_clock();
  samples[blockIdx.x] = ClockSample{clock1 - clock0, ns1 - ns0};
}

}  // namespace

double measure_sm_clock_mhz(cudaStream_t stream, int sm_count, std::uint64_t spin_ns) {
  DeviceBuffer<ClockSample> samples(static_cast<std::size_t>(sm_count));
  spin_and_sample_clock<<<sm_count, 32, 0, stream>>>(spin_ns, samples.data());
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  std::vector<double> mhz;
  for (const ClockSample& s : samples.download(stream))
    if (s.ns > 0) mhz.push_back(static_cast<double>(s.cycles) / static_cast<double>(s.ns) * 1e3);
  if (mhz.empty()) throw std::runtime_error("SM clock calibration produced no samples");
  std::nth_element(mhz.begin(), mhz.begin() + mhz.size() / 2, mhz.end());
  return mhz[mhz.size() / 2];
}

cudaError_t probe_kernel_image() {
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, spin_and_sample_clock);
}

}  // namespace gpubench
