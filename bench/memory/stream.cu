//! STREAM on the GPU: read, write, copy, scale and triad at 4, 8 and 16 bytes per thread and a
//! sweep of blocks per SM, with cudaMemcpyAsync in the same run as the reference. Bandwidth counts
//! bytes read + written; fraction_of_peak is against the theoretical DRAM bandwidth. `copy_bulk` is
//! the same copy by the TMA (cp.async.bulk, sm_90+): cudaMemcpyAsync device to device runs on the
//! copy engines (Nsight Compute sees no kernel), so it is the SM side's best answer to it.
//! Rows with `claim_KiB` > 0 (and `copy_bulk`'s `claimed:1`) take their tiles from a counter instead
//! of grid-stride: the SMs do not all stream at one rate, and a fixed split waits for the slowest
//! (kernels/memory/work_claims.cuh).
#include "bench/memory/bandwidth.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/dispatch.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/memory/stream.cuh"
#include "kernels/memory/stream_bulk.cuh"

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {
namespace {

using kernels::StreamOp;

constexpr int kThreads = 256;
constexpr int kMaxBlocksPerSm = 32;
constexpr std::int64_t kDramMiB = 2048;  // per array: 8x the L2 of any GPU with up to 256 MiB of it
constexpr std::int64_t kL2MiB = 8;       // per array: a copy's two arrays fit a 32 MiB or larger L2

struct StreamBuffers {
  explicit StreamBuffers(std::size_t bytes)
      : a(bytes / sizeof(float4)),
        b(bytes / sizeof(float4)),
        c(bytes / sizeof(float4)),
        partial(static_cast<std::size_t>(device().sm_count) * kMaxBlocksPerSm * kThreads),
        claims(1) {
    a.fill_bytes(0x3C, stream());  // 0x3C3C3C3C: a small positive float; zeros could hide missing writes
    b.fill_bytes(0x3D, stream());
    c.fill_bytes(0, stream());
    claims.fill_bytes(0, stream());  // every claimed launch leaves it at zero again
  }
  DeviceBuffer<float4> a, b, c;
  DeviceBuffer<float> partial;
  DeviceBuffer<kernels::WorkClaims> claims;
};

StreamBuffers& buffers_of(std::int64_t mib) {
  static ArgCache<StreamBuffers> cache;
  return cache.get({mib}, [&] { return StreamBuffers(static_cast<std::size_t>(mib) << 20); });
}

struct OpTraffic {
  int arrays_read;
  int arrays_written;
};
constexpr OpTraffic traffic_of(StreamOp op) {
  switch (op) {
    case StreamOp::kRead: return {1, 0};
    case StreamOp::kWrite: return {0, 1};
    case StreamOp::kCopy:
    case StreamOp::kScale: return {1, 1};
    case StreamOp::kTriad: return {2, 1};
  }
  return {0, 0};
}

const std::vector<std::string> kCounters{"dram_read_bytes", "dram_write_bytes", "l2_read_bytes", "l2_write_bytes"};

RunOptions options_for(std::int64_t mib, bool cold, double elements, OpTraffic t) {
  RunOptions options{kCounters};
  options.cold_l2 = cold;
  options.profile_warm = !cold;  // a hot row's counters must see the L2 its timed launches saw
  const double array_bytes = static_cast<double>(mib) * (1 << 20);
  options.ideal_traffic = IdealTraffic{elements, t.arrays_read * array_bytes, t.arrays_written * array_bytes};
  return options;
}

void finish(benchmark::State& state, const RunResult& result, double bytes_per_launch, std::int64_t mib, OpTraffic t,
            bool cold) {
  const double working_set = static_cast<double>(mib << 20) * (t.arrays_read + t.arrays_written);
  // An L2-sized set read hot is L2 bandwidth: no fraction of the DRAM peak for it.
  const bool from_dram = cold || working_set > static_cast<double>(device().l2_bytes);
  report_bandwidth(state, result, bytes_per_launch, from_dram);
  state.counters["working_set_bytes"] = working_set;
}

// Whole steps of a block (threads x unroll x width bytes of each array) in a claimed tile of at
// least claim_KiB. Small tiles mean many atomics on one address (an H200's read in 16 KiB tiles
// stopped at 85% of peak, 250 million claims a second, at any blocks per SM; in 64 KiB tiles it
// reached 95%); large ones, the last blocks ending further apart (the copy prefers 16 KiB).
unsigned steps_per_claim(std::int64_t claim_kib, int step_bytes) {
  const std::int64_t steps = (claim_kib * 1024 + step_bytes - 1) / step_bytes;
  return static_cast<unsigned>(steps < 1 ? 1 : steps);
}

template <StreamOp Op>
void stream_rows(benchmark::State& state) {
  const int bytes_per_thread = static_cast<int>(arg(state, "bytes_per_thread"));
  const int unroll = static_cast<int>(arg(state, "unroll"));
  const int blocks_per_sm = static_cast<int>(arg(state, "blocks_per_sm"));
  const std::int64_t mib = arg(state, "MiB");
  const bool cold = arg(state, "cold_l2") != 0;
  const std::int64_t claim_kib = arg(state, "claim_KiB");  // 0: grid-stride
  if (blocks_per_sm < 1 || blocks_per_sm > kMaxBlocksPerSm) throw std::invalid_argument("blocks_per_sm: 1 to 32");
  if (claim_kib < 0 || claim_kib > 1024) throw std::invalid_argument("claim_KiB: 0 (grid-stride) to 1024");
  StreamBuffers& b = buffers_of(mib);
  const std::size_t array_bytes = static_cast<std::size_t>(mib) << 20;
  const std::size_t elements = array_bytes / static_cast<std::size_t>(bytes_per_thread);
  const int blocks = device().sm_count * blocks_per_sm;
  constexpr OpTraffic t = traffic_of(Op);
  const RunResult result = dispatch<4, 8, 16>(bytes_per_thread, [&](auto width) {
    using T = std::conditional_t<width() == 4, float, std::conditional_t<width() == 8, float2, float4>>;
    const kernels::StreamArrays<T> arrays{reinterpret_cast<const T*>(b.a.data()),
                                          reinterpret_cast<const T*>(b.b.data()), reinterpret_cast<T*>(b.c.data()),
                                          b.partial.data()};
    return dispatch<4, 8>(unroll, [&](auto loads) {
      const unsigned steps_per_tile = steps_per_claim(claim_kib, kThreads * loads() * width());
      return run(
          state,
          [&](cudaStream_t s, Clocks c) {
            if (claim_kib > 0)
              kernels::stream_claimed<Op, T, loads()>
                  <<<blocks, kThreads, 0, s>>>(arrays, elements, 3.0f, steps_per_tile, b.claims.data(), c);
            else
              kernels::stream<Op, T, loads()><<<blocks, kThreads, 0, s>>>(arrays, elements, 3.0f, c);
          },
          options_for(mib, cold, static_cast<double>(elements), t));
    });
  });
  finish(state, result, static_cast<double>(array_bytes) * (t.arrays_read + t.arrays_written), mib, t, cold);
}

// The copy engine's (or the driver's kernel's) device-to-device copy of one array into another.
void memcpy_rows(benchmark::State& state) {
  const std::int64_t mib = arg(state, "MiB");
  const bool cold = arg(state, "cold_l2") != 0;
  StreamBuffers& b = buffers_of(mib);
  const std::size_t array_bytes = static_cast<std::size_t>(mib) << 20;
  RunOptions options = options_for(mib, cold, static_cast<double>(array_bytes / sizeof(float4)), {1, 1});
  options.stamps_cycles = false;
  const RunResult result = run(
      state,
      [&](cudaStream_t s, Clocks) {
        GPUBENCH_CUDA(cudaMemcpyAsync(b.c.data(), b.a.data(), array_bytes, cudaMemcpyDeviceToDevice, s));
      },
      options);
  finish(state, result, 2.0 * static_cast<double>(array_bytes), mib, {1, 1}, cold);
}

// The TMA's copy: one thread per block drives `stages` shared-memory buffers of chunk_KiB each,
// chunks dealt out grid-stride or claimed.
void copy_bulk_rows(benchmark::State& state) {
  const int stages = static_cast<int>(arg(state, "stages"));
  const unsigned chunk = static_cast<unsigned>(arg(state, "chunk_KiB")) << 10;
  const int blocks_per_sm = static_cast<int>(arg(state, "blocks_per_sm"));
  const std::int64_t mib = arg(state, "MiB");
  const bool cold = arg(state, "cold_l2") != 0;
  const bool claimed = arg(state, "claimed") != 0;
  StreamBuffers& b = buffers_of(mib);
  const std::size_t array_bytes = static_cast<std::size_t>(mib) << 20;
  const int shared_bytes = stages * static_cast<int>(chunk);
  const int blocks = device().sm_count * blocks_per_sm;
  const auto* src = reinterpret_cast<const char*>(b.a.data());
  auto* dst = reinterpret_cast<char*>(b.c.data());
  const RunResult result = dispatch<2, 3, 4, 8>(stages, [&](auto n) {
    constexpr auto kernel = kernels::stream_copy_bulk<n()>;
    GPUBENCH_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
    return run(
        state,
        [&](cudaStream_t s, Clocks c) {
          kernel<<<blocks, 32, shared_bytes, s>>>(src, dst, array_bytes, chunk, claimed ? b.claims.data() : nullptr, c);
        },
        options_for(mib, cold, static_cast<double>(array_bytes / sizeof(float4)), {1, 1}));
  });
  finish(state, result, 2.0 * static_cast<double>(array_bytes), mib, {1, 1}, cold);
  state.counters["shared_bytes_per_sm"] = static_cast<double>(shared_bytes) * blocks_per_sm;
}

const std::vector<std::string> kArgs{"bytes_per_thread", "unroll", "blocks_per_sm", "MiB", "cold_l2", "claim_KiB"};

// A stream row's axes by name.
Point stream_point(std::int64_t bytes_per_thread, std::int64_t unroll, std::int64_t blocks_per_sm, std::int64_t mib,
                   std::int64_t cold_l2, std::int64_t claim_kib) {
  return {{"bytes_per_thread", bytes_per_thread},
          {"unroll", unroll},
          {"blocks_per_sm", blocks_per_sm},
          {"MiB", mib},
          {"cold_l2", cold_l2},
          {"claim_KiB", claim_kib}};
}
Point bulk_point(std::int64_t stages, std::int64_t chunk_kib, std::int64_t blocks_per_sm, std::int64_t claimed) {
  return {{"stages", stages}, {"chunk_KiB", chunk_kib}, {"blocks_per_sm", blocks_per_sm},
          {"MiB", kDramMiB},  {"cold_l2", 1},           {"claimed", claimed}};
}

// DRAM rows. Quick preset: 16 bytes per thread, 4 loads in flight, 8 blocks of 256 per SM (a full
// SM) grid-stride; claimed with 8 loads, 16 KiB tiles at 2 blocks per SM (the copies' best on the
// H100 and H200) and 64 KiB at 4 (the read's); for `read` its neighbours (4 bytes; 1 and 4 blocks
// per SM; 8 loads). The full preset sweeps all, claimed at 16 bytes (docs/experiments/stream.md).
template <StreamOp Op>
void register_op(const Family& family, const std::string& name, bool is_read, bool hot_rows, bool checked = false) {
  Benchmark* rows = family.gpu("Stream/" + name, kArgs, stream_rows<Op>);
  if (checked) in_check(rows);  // the node check's DRAM rows: all of them, as the card takes the best
  if (family.preset() != Preset::kFull) {
    for (const Point& point : {stream_point(16, 4, 8, kDramMiB, 1, 0), stream_point(16, 8, 2, kDramMiB, 1, 16),
                               stream_point(16, 8, 4, kDramMiB, 1, 64)})
      add_point(rows, point);
    if (is_read)
      for (const Point& point : {stream_point(4, 4, 8, kDramMiB, 1, 0), stream_point(16, 4, 1, kDramMiB, 1, 0),
                                 stream_point(16, 4, 4, kDramMiB, 1, 0), stream_point(16, 8, 4, kDramMiB, 1, 0)})
        add_point(rows, point);
  } else {
    for (std::int64_t width : {4, 8, 16})
      for (std::int64_t unroll : {4, 8})
        for (std::int64_t per_sm : {1, 2, 4, 8, 16, 32})
          add_point(rows, stream_point(width, unroll, per_sm, kDramMiB, 1, 0));
    for (std::int64_t claim_kib : {16, 64})
      for (std::int64_t unroll : {4, 8})
        for (std::int64_t per_sm : {1, 2, 4, 8, 16, 32})
          add_point(rows, stream_point(16, unroll, per_sm, kDramMiB, 1, claim_kib));
    for (std::int64_t per_sm : {2, 4, 8})
      add_point(rows, stream_point(16, 4, per_sm, 2 * kDramMiB, 1, 0));  // longer launches
  }
  if (hot_rows) {  // L2-sized: cold (from DRAM) against hot (the previous launch's data still in L2)
    Benchmark* l2_rows = family.short_launches(family.gpu("Stream/" + name, kArgs, stream_rows<Op>));
    for (std::int64_t cold : {1, 0}) add_point(l2_rows, stream_point(16, 4, 8, kL2MiB, cold, 0));
  }
}

GPUBENCH_FAMILY(Stream) {
  register_op<StreamOp::kRead>(family, "read", true, true, /*checked=*/true);
  register_op<StreamOp::kWrite>(family, "write", false, false);
  register_op<StreamOp::kCopy>(family, "copy", false, true, /*checked=*/true);
  register_op<StreamOp::kScale>(family, "scale", false, false);
  register_op<StreamOp::kTriad>(family, "triad", false, false);
  // Quick: the H100's best grid-stride TMA copy (4 stages of 32 KiB, one block per SM), its best
  // claimed one (4 x 16 KiB) and the H200's best grid-stride shape claimed (docs/experiments/stream.md).
  Benchmark* bulk =
      family.gpu("Stream/copy_bulk", {"stages", "chunk_KiB", "blocks_per_sm", "MiB", "cold_l2", "claimed"},
                 copy_bulk_rows, needs_sm(90, "the TMA bulk copy"));
  if (family.preset() != Preset::kFull)
    for (const Point& point : {bulk_point(4, 32, 1, 0), bulk_point(4, 16, 1, 1), bulk_point(8, 4, 2, 1)})
      add_point(bulk, point);
  else
    for (std::int64_t claimed : {0, 1})
      for (std::int64_t stages : {2, 3, 4, 8})
        for (std::int64_t chunk_kib : {4, 16, 32})
          for (std::int64_t per_sm : {1, 2})
            if (stages * chunk_kib * per_sm <= 192) add_point(bulk, bulk_point(stages, chunk_kib, per_sm, claimed));
  add_point(in_check(family.gpu("Stream/memcpy", {"MiB", "cold_l2"}, memcpy_rows)),
            {{"MiB", kDramMiB}, {"cold_l2", 1}});
  Benchmark* l2_copies = family.short_launches(family.gpu("Stream/memcpy", {"MiB", "cold_l2"}, memcpy_rows));
  for (std::int64_t cold : {1, 0}) add_point(l2_copies, {{"MiB", kL2MiB}, {"cold_l2", cold}});
}

GPUBENCH_COUNTERS(Stream, {"shared_bytes_per_sm", "bytes", CounterKind::kFixed,
                           "shared memory the TMA copy's stages take on each SM"});

}  // namespace
}  // namespace gpubench
