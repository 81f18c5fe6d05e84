//! Stream copy bandwidth: bytes read + written per GPU second for a copy from L2-resident sizes to
//! sizes far beyond L2, with the traffic CUPTI measured against the ideal (each byte once).
#include "common/arg_cache.h"
#include "common/device_memory.h"
#include "common/gpu_fixture.h"
#include "kernels/memory/stream_copy.cuh"

#include <cstdint>

namespace gpubench {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;

struct CopyBuffers {
  explicit CopyBuffers(std::size_t count) : in(count), out(count) {
    in.fill_bytes(0x3C);
    out.fill_bytes(0);
  }
  DeviceBuffer<float4> in;
  DeviceBuffer<float4> out;
};

class StreamCopy : public GpuFixture {
 public:
  StreamCopy() {
    set_default_counters({"l2_read_bytes", "l2_write_bytes", "dram_read_bytes", "dram_write_bytes"});
  }

 protected:
  ArgCache<CopyBuffers> buffers_;
};

BENCHMARK_DEFINE_F(StreamCopy, Copy)(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) << 20;
  const std::size_t count = bytes / sizeof(float4);
  CopyBuffers& b = buffers_.get({state.range(0)}, [&] { return CopyBuffers(count); });
  const int blocks = gpu().device().sm_count * kBlocksPerSm;
  set_ideal_traffic({static_cast<double>(count), static_cast<double>(bytes), static_cast<double>(bytes)});
  run(state, [&](cudaStream_t s, Clocks c) {
    kernels::stream_copy<<<blocks, kThreads, 0, s>>>(b.in.data(), b.out.data(), count, c);
  });
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(2 * bytes));
  state.counters["working_set_bytes"] = static_cast<double>(2 * bytes);
}
BENCHMARK_REGISTER_F(StreamCopy, Copy)->ArgName("MiB")->RangeMultiplier(4)->Range(4, 1024);

}  // namespace
}  // namespace gpubench
