//! Coalescing: a warp gathering floats `stride` elements apart. Sectors per request and L2 bytes
//! per useful byte grow with the stride until every lane needs its own 32-byte sector.
#include "bench/memory/copy_buffers.h"
#include "common/arg_cache.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/memory/strided_copy.cuh"

#include <cstdint>

namespace gpubench {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;
constexpr std::size_t kOutputFloats = std::size_t{16} << 20;  // 64 MiB written at every stride

void gather(benchmark::State& state) {
  static ArgCache<CopyBuffers<float>> buffers;
  const int stride = static_cast<int>(arg(state, "stride"));
  CopyBuffers<float>& b = buffers.get(
      {stride}, [&] { return CopyBuffers<float>(kOutputFloats * static_cast<std::size_t>(stride), kOutputFloats); });
  const int blocks = device().sm_count * kBlocksPerSm;
  const double useful_bytes = static_cast<double>(kOutputFloats * sizeof(float));
  RunOptions options{
      {"l2_read_bytes", "dram_read_bytes", "global_load_sectors", "global_load_requests", "sectors_per_request"}};
  options.ideal_traffic = IdealTraffic{static_cast<double>(kOutputFloats), useful_bytes, useful_bytes};
  run(
      state,
      [&](cudaStream_t s, Clocks c) {
        kernels::strided_copy<<<blocks, kThreads, 0, s>>>(b.in.data(), b.out.data(), kOutputFloats, stride, c);
      },
      options);
  // Useful bytes only (4 read + 4 written per element): the rate a user of the data sees.
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(2 * useful_bytes));
}

GPUBENCH_FAMILY(StridedCopy) {
  auto* gather_rows = family.gpu("StridedCopy/Gather", {"stride"}, gather);
  for (std::int64_t stride : family.pick<std::vector<std::int64_t>>({1, 8, 32}, {1, 2, 4, 8, 16, 32}))
    add_point(gather_rows, {{"stride", stride}});
}

}  // namespace
}  // namespace gpubench
