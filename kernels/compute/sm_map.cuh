// The per-SM map of the node check: one block on every SM at once, each block timing its own work with clock64
// and leaving a result the host can verify (an FMA chain's end values, a shared-memory sum, a tensor-core tile, a
// chase's end position). A slow SM shows as a low rate beside its neighbours; a wrong one as a wrong result.
#pragma once

#include "common/clocks.h"
#include "kernels/compute/mma_sync.cuh"
#include "kernels/compute/sm_map_values.h"

#include <cuda_fp16.h>

#include <cstdint>

namespace gpubench::kernels {

// What each block leaves: the SM it ran on and its own span (not block 0's: every SM is measured).
struct SmRecord {
  std::uint32_t sm;
  std::uint32_t unused;
  std::uint64_t cycles;
};

#if defined(__CUDACC__)
namespace detail {
// Every thread's clock after the whole block has arrived (as Clocks::begin_block: the read waits on the barrier).
__device__ __forceinline__ std::uint64_t block_clock() {
  const int arrived = __syncthreads_count(1);
  std::uint64_t clock = 0;
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.s32 p, %1, 0;\n\t@p mov.u64 %0, %%clock64;\n\t}"
               : "+l"(clock)
               : "r"(arrived));
  return clock;
}
// The clock once `value` has arrived (the read is predicated on it).
__device__ __forceinline__ std::uint64_t clock_after(std::uint32_t value) {
  std::uint64_t clock = 0;
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t@p mov.u64 %0, %%clock64;\n\t}"
               : "+l"(clock)
               : "r"(value | 1u));
  return clock;
}
__device__ __forceinline__ void leave_record(SmRecord* records, std::uint64_t start, std::uint64_t stop) {
  if (threadIdx.x == 0) records[blockIdx.x] = SmRecord{sm_id(), 0u, stop - start};
}
}  // namespace detail

// FP32 FMA rate: kSmMapChains dependent chains per thread; out[block][thread] = the chains' sum, in order.
static __global__ void sm_map_fma(SmRecord* records, float* out, int iterations, Clocks clocks) {
  float x[kSmMapChains];
#pragma unroll
  for (int c = 0; c < kSmMapChains; ++c) x[c] = sm_map_fma_start(static_cast<int>(threadIdx.x), c);
  const Clocks::Stamp span = clocks.begin_block();
  const std::uint64_t start = detail::block_clock();
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kSmMapChains; ++c)
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[c]) : "f"(kSmMapFmaScale), "f"(kSmMapFmaStep));
  }
  const std::uint64_t stop = detail::block_clock();
  clocks.end_block(span);
  detail::leave_record(records, start, stop);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kSmMapChains; ++c) sum += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Shared-memory bandwidth: conflict-free 16-byte loads of a 64 KiB tile; out[block][thread] = the loads' sum.
// ld.volatile: the addresses repeat every two steps, and ptxas keeps a plain ld.shared's value in registers
// instead of loading it again (seen: 1780 B/clk/SM, 14x the hardware's 128).
static __global__ void sm_map_shared(SmRecord* records, std::uint32_t* out, int iterations, Clocks clocks) {
  extern __shared__ uint4 tile[];  // the launch's dynamic shared memory also pins one block per SM
  for (std::uint32_t i = threadIdx.x; i < kSmMapSharedWords; i += blockDim.x) {
    const std::uint32_t term = sm_map_shared_term(i);
    tile[i] = make_uint4(term, i, i + 1u, 0u);  // x ^ w = term
  }
  const Clocks::Stamp span = clocks.begin_block();
  const std::uint64_t start = detail::block_clock();
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(tile)) + threadIdx.x * 16u;
  std::uint32_t sum = 0;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int j = 0; j < kSmMapLoadsPerStep; ++j) {
      const std::uint32_t word = (static_cast<std::uint32_t>(i * kSmMapLoadsPerStep + j) * kSmMapThreads) %
                                 static_cast<std::uint32_t>(kSmMapSharedWords);
      std::uint32_t x, y, z, w;
      asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                   : "r"(base + word * 16u));
      sum += x ^ w ^ (y & z & 0u);  // y and z are loaded (the 16-byte load is the measure), not summed
    }
  }
  const std::uint64_t stop = detail::block_clock();
  clocks.end_block(span);
  detail::leave_record(records, start, stop);
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Tensor-core rate: mma.sync m16n8k16 (FP16 in, FP32 accumulate), kSmMapMmaChains independent accumulators per
// warp; out[block][thread] = the sum of the thread's accumulators (exact: small integers).
static __global__ void sm_map_mma(SmRecord* records, float* out, int iterations, Clocks clocks) {
  const int lane = static_cast<int>(threadIdx.x % 32u);
  const int group = lane / 4;
  // A registers 0 and 2 hold row `group`, 1 and 3 row group + 8; B's hold column `group` (PTX ISA fragment layout).
  const auto halves = [](int value) {
    const __half h = __int2half_rn(value);
    return static_cast<std::uint32_t>(__half_as_ushort(h)) | (static_cast<std::uint32_t>(__half_as_ushort(h)) << 16);
  };
  const std::uint32_t a[4] = {halves(sm_map_a(group)), halves(sm_map_a(group + 8)), halves(sm_map_a(group)),
                              halves(sm_map_a(group + 8))};
  const std::uint32_t b[2] = {halves(sm_map_b(group)), halves(sm_map_b(group))};
  float d[kSmMapMmaChains][4] = {};
  const Clocks::Stamp span = clocks.begin_block();
  const std::uint64_t start = detail::block_clock();
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kSmMapMmaChains; ++c) MmaF16F32::mma(d[c], a, b);
  }
  const std::uint64_t stop = detail::block_clock();
  clocks.end_block(span);
  detail::leave_record(records, start, stop);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kSmMapMmaChains; ++c) sum += (d[c][0] + d[c][1]) + (d[c][2] + d[c][3]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// L2 load-to-use latency from every SM at once: thread 0 of each block chases `next` (in L2, ld.global.cg)
// from a start that depends on its SM; out[block] = where the chase ended.
static __global__ void sm_map_l2_chase(SmRecord* records, const std::uint32_t* next, std::uint32_t nodes, int steps,
                                       std::uint32_t* out, Clocks clocks) {
  if (threadIdx.x != 0) return;
  std::uint32_t at = sm_map_chase_start(sm_id(), nodes);
  const Clocks::Stamp span = clocks.begin_after(at);
  const std::uint64_t start = detail::clock_after(at);
  for (int i = 0; i < steps; ++i) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(at) : "l"(next + at));
  const std::uint64_t stop = detail::clock_after(at);
  clocks.end_after(span, at);
  records[blockIdx.x] = SmRecord{sm_id(), 0u, stop - start};
  out[blockIdx.x] = at;
}

// Which SMs share a GPC: a cluster's blocks always sit in one GPC, so SMs seen in one cluster are in one GPC.
// out[block] = the SM of the block.
static __global__ void sm_map_cluster_sms(std::uint32_t* out, Clocks clocks) {
  const Clocks::Stamp span = clocks.begin();
  if (threadIdx.x == 0) out[blockIdx.x] = sm_id();
  clocks.end(span);
}
#endif

}  // namespace gpubench::kernels
