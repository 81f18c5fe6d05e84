// saxpy measured by gpubench: event time, clock64 cycles of block 0, the SM clock, DRAM and L2 traffic (CUPTI)
// against the least traffic the kernel could move, cold L2 (the default), the stopping rule's stated precision.
#include <gpubench/gpubench.h>

#include "saxpy.cuh"

namespace {

using gpubench::arg;

void saxpy_rows(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(arg(state, "MiB")) * (1 << 20) / sizeof(float);
  gpubench::DeviceBuffer<float> x(n), y(n);
  x.fill_bytes(0);
  y.fill_bytes(0);
  const int blocks = gpubench::device().sm_count * 8;
  gpubench::RunOptions options{{"dram_read_bytes", "dram_write_bytes", "l2_read_bytes"}};
  options.ideal_traffic = gpubench::IdealTraffic{static_cast<double>(n), 8.0 * n, 4.0 * n};
  gpubench::run(
      state,
      [&](cudaStream_t stream, gpubench::Clocks clocks) {
        saxpy<<<blocks, 256, 0, stream>>>(2.0f, x.data(), y.data(), n, clocks);
        GPUBENCH_CUDA_LAUNCHED();
      },
      options);
  state.SetBytesProcessed(static_cast<std::int64_t>(12 * n) * state.iterations());
}

}  // namespace

GPUBENCH_FAMILY(Saxpy) {
  auto* rows = family.gpu("Saxpy/fp32", {"MiB"}, saxpy_rows);
  gpubench::noise_class(rows, "dram_bandwidth");  // how compare judges it: x and y are past the L2 at both sizes
  for (std::int64_t mib : {256, 1024}) gpubench::add_point(rows, {{"MiB", mib}});
}
