// Warpgroup-level wgmma.mma_async (sm_90a): 64 x N x K per instruction for four warps together, B
// (and A, or A from registers) read from shared memory through matrix descriptors, accumulators in
// registers. Issued as a real kernel issues them: wgmma.fence, the instructions, commit_group, then
// wait_group (the latency loop waits for each instruction; the throughput loop keeps one group in
// flight while it issues the next). PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate".
//
// wgmma needs the arch-specific target (sm_90a). Elsewhere the instructions compile to nothing and
// wgmma_compiled() reports it, so the host skips with the reason rather than timing an empty loop.
#pragma once

#include "common/clocks.h"
#include "kernels/compute/tensor_types.h"

#include <cstdint>
#include <type_traits>

namespace gpubench::kernels {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
inline constexpr bool kWgmmaCompiled = true;
#else
inline constexpr bool kWgmmaCompiled = false;
#endif

inline constexpr int kWgmmaThreads = 128;  // one warpgroup
inline constexpr int kWgmmaPerGroup = 4;   // instructions per commit group in the throughput loop

// Accumulator operands %0..%(count - 1).
#define GPUBENCH_WGMMA_D4(c, i) c(d[i]), c(d[(i) + 1]), c(d[(i) + 2]), c(d[(i) + 3])
#define GPUBENCH_WGMMA_D8(c, i) GPUBENCH_WGMMA_D4(c, i), GPUBENCH_WGMMA_D4(c, (i) + 4)
#define GPUBENCH_WGMMA_D16(c, i) GPUBENCH_WGMMA_D8(c, i), GPUBENCH_WGMMA_D8(c, (i) + 8)
#define GPUBENCH_WGMMA_D32(c, i) GPUBENCH_WGMMA_D16(c, i), GPUBENCH_WGMMA_D16(c, (i) + 16)
#define GPUBENCH_WGMMA_D64(c, i) GPUBENCH_WGMMA_D32(c, i), GPUBENCH_WGMMA_D32(c, (i) + 32)
#define GPUBENCH_WGMMA_D128(c, i) GPUBENCH_WGMMA_D64(c, i), GPUBENCH_WGMMA_D64(c, (i) + 64)

// Written out by hand: clang-format 14 does not settle on one layout for these continued strings.
// clang-format off
#define GPUBENCH_WGMMA_REGS_4 "%0, %1, %2, %3"
#define GPUBENCH_WGMMA_REGS_8 GPUBENCH_WGMMA_REGS_4 ", %4, %5, %6, %7"
#define GPUBENCH_WGMMA_REGS_16 GPUBENCH_WGMMA_REGS_8 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define GPUBENCH_WGMMA_REGS_32 GPUBENCH_WGMMA_REGS_16 \
  ", %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define GPUBENCH_WGMMA_REGS_64 GPUBENCH_WGMMA_REGS_32 \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" \
  ", %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GPUBENCH_WGMMA_REGS_128 GPUBENCH_WGMMA_REGS_64 \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79" \
  ", %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" \
  ", %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109" \
  ", %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123" \
  ", %124, %125, %126, %127"
// clang-format on

#define GPUBENCH_WGMMA_INSTR(n, k, types) "wgmma.mma_async.sync.aligned.m64n" #n "k" #k "." types

// After the accumulators: A's descriptor (%ia), B's (%ib), the scale-d flag (%is: 1, D += A x B).
#define GPUBENCH_WGMMA_SS(instr, count, ia, ib, is, imms, c)                                            \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #is ", 0;\n" instr " {" GPUBENCH_WGMMA_REGS_##count \
               "}, %" #ia ", %" #ib ", p" imms ";\n}\n"                                                 \
               : GPUBENCH_WGMMA_D##count(c, 0)                                                          \
               : "l"(desc_a), "l"(desc_b), "r"(1))
// After the accumulators: A's four registers (%a0..), B's descriptor (%ib), the scale-d flag (%is).
#define GPUBENCH_WGMMA_RS(instr, count, a0, a1, a2, a3, ib, is, imms, c)                                \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #is ", 0;\n" instr " {" GPUBENCH_WGMMA_REGS_##count \
               "}, {%" #a0 ", %" #a1 ", %" #a2 ", %" #a3 "}, %" #ib ", p" imms ";\n}\n"                 \
               : GPUBENCH_WGMMA_D##count(c, 0)                                                          \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1))

// One precision: ss<N>() with A and B from shared memory, rs<N>() with A from registers (f16, bf16,
// tf32 only in the PTX ISA's A-in-registers form; used for f16 here). `imms_*`: scale-a, scale-b
// (+1) and the transposes (0: K-major) where the precision has them.
#define GPUBENCH_WGMMA_OP(Name, label, K, Input, Accumulator, AccType, types, c, imms_ss, imms_rs)                   \
  struct Name {                                                                                                      \
    static constexpr TensorShape info{label, kWgmmaM, 0, K, TensorInput::Input, TensorAccumulator::Accumulator, 90}; \
    using Acc = AccType;                                                                                             \
    template <int N>                                                                                                 \
    static __device__ __forceinline__ void ss(Acc (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b) {         \
      if constexpr (!kWgmmaCompiled) {                                                                               \
      } else if constexpr (N == 8) {                                                                                 \
        GPUBENCH_WGMMA_SS(GPUBENCH_WGMMA_INSTR(8, K, types), 4, 4, 5, 6, imms_ss, c);                                \
      } else if constexpr (N == 16) {                                                                                \
        GPUBENCH_WGMMA_SS(GPUBENCH_WGMMA_INSTR(16, K, types), 8, 8, 9, 10, imms_ss, c);                              \
      } else if constexpr (N == 32) {                                                                                \
        GPUBENCH_WGMMA_SS(GPUBENCH_WGMMA_INSTR(32, K, types), 16, 16, 17, 18, imms_ss, c);                           \
      } else if constexpr (N == 64) {                                                                                \
        GPUBENCH_WGMMA_SS(GPUBENCH_WGMMA_INSTR(64, K, types), 32, 32, 33, 34, imms_ss, c);                           \
      } else if constexpr (N == 128) {                                                                               \
        GPUBENCH_WGMMA_SS(GPUBENCH_WGMMA_INSTR(128, K, types), 64, 64, 65, 66, imms_ss, c);                          \
      } else {                                                                                                       \
        static_assert(N == 256, "wgmma rows use N = 8, 16, 32, 64, 128 or 256");                                     \
        GPUBENCH_WGMMA_SS(GPUBENCH_WGMMA_INSTR(256, K, types), 128, 128, 129, 130, imms_ss, c);                      \
      }                                                                                                              \
    }                                                                                                                \
    template <int N>                                                                                                 \
    static __device__ __forceinline__ void rs(Acc (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t desc_b) {  \
      if constexpr (!kWgmmaCompiled) {                                                                               \
      } else if constexpr (N == 64) {                                                                                \
        GPUBENCH_WGMMA_RS(GPUBENCH_WGMMA_INSTR(64, K, types), 32, 32, 33, 34, 35, 36, 37, imms_rs, c);               \
      } else if constexpr (N == 128) {                                                                               \
        GPUBENCH_WGMMA_RS(GPUBENCH_WGMMA_INSTR(128, K, types), 64, 64, 65, 66, 67, 68, 69, imms_rs, c);              \
      } else {                                                                                                       \
        static_assert(N == 256, "A-from-register rows use N = 64, 128 or 256");                                      \
        GPUBENCH_WGMMA_RS(GPUBENCH_WGMMA_INSTR(256, K, types), 128, 128, 129, 130, 131, 132, 133, imms_rs, c);       \
      }                                                                                                              \
    }                                                                                                                \
  }

GPUBENCH_WGMMA_OP(WgmmaF16F32, "f16_f32", 16, kF16, kF32, float, "f32.f16.f16", "+f", ", 1, 1, 0, 0", ", 1, 1, 0");
GPUBENCH_WGMMA_OP(WgmmaBf16F32, "bf16_f32", 16, kBF16, kF32, float, "f32.bf16.bf16", "+f", ", 1, 1, 0, 0", ", 1, 1, 0");
GPUBENCH_WGMMA_OP(WgmmaTf32F32, "tf32_f32", 8, kTF32, kF32, float, "f32.tf32.tf32", "+f", ", 1, 1", ", 1, 1");
GPUBENCH_WGMMA_OP(WgmmaE4m3F32, "e4m3_f32", 32, kE4M3, kF32, float, "f32.e4m3.e4m3", "+f", ", 1, 1", ", 1, 1");
GPUBENCH_WGMMA_OP(WgmmaE5m2F32, "e5m2_f32", 32, kE5M2, kF32, float, "f32.e5m2.e5m2", "+f", ", 1, 1", ", 1, 1");
GPUBENCH_WGMMA_OP(WgmmaS8S32, "s8_s32", 32, kS8, kS32, std::int32_t, "s32.s8.s8", "+r", "", "");

__device__ __forceinline__ void wgmma_fence() {
  if constexpr (kWgmmaCompiled) asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  if constexpr (kWgmmaCompiled) asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  if constexpr (kWgmmaCompiled) asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}
// Keeps the compiler from moving accumulator reads or writes across the asynchronous instructions.
template <class Acc, int Count>
__device__ __forceinline__ void wgmma_fence_operands(Acc (&d)[Count]) {
#pragma unroll
  for (int i = 0; i < Count; ++i) {
    if constexpr (sizeof(Acc) == 4 && !std::is_integral<Acc>::value)
      asm volatile("" : "+f"(d[i])::"memory");
    else
      asm volatile("" : "+r"(d[i])::"memory");
  }
}

// Shared-memory matrix descriptor: start address, leading and stride byte offsets (all >> 4), no
// swizzle, base offset 0.
__device__ __forceinline__ std::uint64_t wgmma_descriptor(const void* smem) {
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  return ((address & 0x3FFFFu) >> 4) | (std::uint64_t{kWgmmaLeadingBytes >> 4} << 16) |
         (std::uint64_t{kWgmmaStrideBytes >> 4} << 32);
}

// 1 where the code the GPU runs has the wgmma instructions (an sm_90a build on an sm_90 GPU).
template <class Op>
__global__ void wgmma_compiled(int* compiled) {
  *compiled = kWgmmaCompiled ? 1 : 0;
}

// Every warpgroup of the block: A and B tiles (laid out by wgmma_tile_offset) copied once into the
// block's shared memory, its accumulators loaded from c_frags[t * N / 2 ...] (t: thread in its
// warpgroup), then `groups` commit groups: one wgmma each and a wait for it (Latency) or
// kWgmmaPerGroup each with one group left in flight. RegisterA: A from a_frags[t * 4 ...] instead of
// shared memory. Thread g of the grid writes its accumulators to out[g * N / 2 ...].
// With the same A and B every time: D = C + (instructions) x (A x B).
template <int N>
inline constexpr int kWgmmaMaxWarpgroups = N >= 256 ? 2 : 4;  // 128 accumulators leave room for two per SM

template <class Op, int N, bool RegisterA, bool Latency>
__global__ void __launch_bounds__(kWgmmaMaxWarpgroups<N>* kWgmmaThreads)
    wgmma_loop(const uint4* __restrict__ a_tile, const uint4* __restrict__ b_tile,
               const std::uint32_t* __restrict__ a_frags, const typename Op::Acc* __restrict__ c_frags,
               typename Op::Acc* __restrict__ out, int groups, Clocks clocks) {
  using Acc = typename Op::Acc;
  constexpr int kAcc = N / 2;  // 64 x N accumulators over 128 threads, 32-bit each
  __shared__ alignas(128) uint4 a_smem[kWgmmaATileBytes / 16];
  __shared__ alignas(128) uint4 b_smem[N * kWgmmaRowBytes / 16];
  for (int i = threadIdx.x; i < kWgmmaATileBytes / 16; i += blockDim.x) a_smem[i] = a_tile[i];
  for (int i = threadIdx.x; i < N * kWgmmaRowBytes / 16; i += blockDim.x) b_smem[i] = b_tile[i];
  // wgmma reads shared memory through the async proxy: make the generic-proxy stores visible to it.
  if constexpr (kWgmmaCompiled) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  const int t = threadIdx.x % kWgmmaThreads;
  std::uint32_t a[4] = {0, 0, 0, 0};
  if constexpr (RegisterA) {
#pragma unroll
    for (int r = 0; r < 4; ++r) a[r] = a_frags[t * 4 + r];
  }
  Acc d[kAcc];
#pragma unroll
  for (int i = 0; i < kAcc; ++i) d[i] = c_frags[t * kAcc + i];
  const std::uint64_t desc_a = wgmma_descriptor(a_smem);
  const std::uint64_t desc_b = wgmma_descriptor(b_smem);
  wgmma_fence_operands(d);

  const Clocks::Stamp start = clocks.begin_block(static_cast<int>(low_bits(d[0]) | a[0] | 1u));
#pragma unroll 1
  for (int g = 0; g < groups; ++g) {
    wgmma_fence();
#pragma unroll
    for (int i = 0; i < (Latency ? 1 : kWgmmaPerGroup); ++i) {
      if constexpr (RegisterA)
        Op::template rs<N>(d, a, desc_b);
      else
        Op::template ss<N>(d, desc_a, desc_b);
    }
    wgmma_commit();
    if constexpr (Latency)
      wgmma_wait<0>();
    else
      wgmma_wait<1>();
  }
  wgmma_wait<0>();
  wgmma_fence_operands(d);
  clocks.end_block(start, static_cast<int>(low_bits(d[0]) | 1u));

  Acc* mine = out + (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * kAcc;
#pragma unroll
  for (int i = 0; i < kAcc; ++i) mine[i] = d[i];
}

}  // namespace gpubench::kernels
