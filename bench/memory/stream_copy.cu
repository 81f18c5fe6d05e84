//! Stream copy bandwidth: bytes read + written per GPU second for a copy from L2-resident sizes to
//! sizes far beyond L2, with the traffic CUPTI measured against the ideal (each byte once).
#include "bench/memory/copy_buffers.h"
#include "common/arg_cache.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/memory/stream_copy.cuh"

#include <cstdint>

namespace gpubench {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;

void copy(benchmark::State& state) {
  static ArgCache<CopyBuffers<float4>> buffers;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) << 20;
  const std::size_t count = bytes / sizeof(float4);
  CopyBuffers<float4>& b = buffers.get({state.range(0)}, [&] { return CopyBuffers<float4>(count, count); });
  const int blocks = device().sm_count * kBlocksPerSm;
  RunOptions options{{"l2_read_bytes", "l2_write_bytes", "dram_read_bytes", "dram_write_bytes"}};
  options.ideal_traffic = IdealTraffic{static_cast<double>(count), static_cast<double>(bytes), static_cast<double>(bytes)};
  run(state, [&](cudaStream_t s, Clocks c) {
    kernels::stream_copy<<<blocks, kThreads, 0, s>>>(b.in.data(), b.out.data(), count, c);
  }, options);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(2 * bytes));
  state.counters["working_set_bytes"] = static_cast<double>(2 * bytes);
}

GPUBENCH_FAMILY(StreamCopy) {
  auto* copy_rows = family.gpu("StreamCopy/Copy", {"MiB"}, copy);
  for (std::int64_t mib : family.pick<std::vector<std::int64_t>>({16, 1024}, {4, 16, 64, 256, 1024}))
    copy_rows->Arg(mib);
}

}  // namespace
}  // namespace gpubench
