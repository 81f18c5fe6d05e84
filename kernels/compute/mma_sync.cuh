// Warp-level mma.sync on the tensor cores: one instruction per precision (PTX ISA, "Warp-level matrix
// multiply-accumulate instructions"), a dependent chain for latency and independent accumulators for
// throughput. A and B stay in registers for the whole loop (each lane's fragment, loaded once), so the
// loop holds the mma instructions and the loop control only (test/audit/loop_audit.py checks the SASS).
#pragma once

#include "common/clocks.h"
#include "kernels/compute/tensor_types.h"

#include <cstdint>

namespace gpubench::kernels {

inline constexpr int kMmaUnroll = 8;  // mma steps per loop iteration

// An instruction the architecture being compiled lacks compiles to nothing; compiled_here() says so at
// run time (the host skips such rows with the reason instead of timing an empty loop).
#if defined(__CUDA_ARCH__)
#define GPUBENCH_MMA_ARCH(min) (__CUDA_ARCH__ >= (min))
#else
#define GPUBENCH_MMA_ARCH(min) 0
#endif

// Four f32/s32 accumulators, four A registers, two B registers: the m16n8 shapes.
#define GPUBENCH_MMA_A4_B2_C4(opcode, c)                                                 \
  asm volatile(opcode " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" \
               : c(d[0]), c(d[1]), c(d[2]), c(d[3])                                      \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

#define GPUBENCH_MMA_M16N8(Name, label, K, Input, Accumulator, AccType, MinSm, opcode, constraint)                   \
  struct Name {                                                                                                      \
    static constexpr TensorShape info{label, 16, 8, K, TensorInput::Input, TensorAccumulator::Accumulator, MinSm};   \
    using Reg = std::uint32_t;                                                                                       \
    using Acc = AccType;                                                                                             \
    static constexpr int a_regs = 4, b_regs = 2, acc_regs = 4;                                                       \
    static __device__ __forceinline__ bool compiled_here() { return GPUBENCH_MMA_ARCH(MinSm * 10); }                 \
    static __device__ __forceinline__ void mma(Acc (&d)[acc_regs], const Reg (&a)[a_regs], const Reg (&b)[b_regs]) { \
      if constexpr (GPUBENCH_MMA_ARCH(MinSm * 10)) GPUBENCH_MMA_A4_B2_C4(opcode, constraint);                        \
    }                                                                                                                \
  }

GPUBENCH_MMA_M16N8(MmaF16F32, "f16_f32", 16, kF16, kF32, float, 80, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                   "+f");
GPUBENCH_MMA_M16N8(MmaBf16F32, "bf16_f32", 16, kBF16, kF32, float, 80,
                   "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "+f");
GPUBENCH_MMA_M16N8(MmaTf32F32, "tf32_f32", 8, kTF32, kF32, float, 80,
                   "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "+f");
GPUBENCH_MMA_M16N8(MmaE4m3F32, "e4m3_f32", 32, kE4M3, kF32, float, 89,
                   "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", "+f");
GPUBENCH_MMA_M16N8(MmaE5m2F32, "e5m2_f32", 32, kE5M2, kF32, float, 89,
                   "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", "+f");
GPUBENCH_MMA_M16N8(MmaS8S32, "s8_s32", 32, kS8, kS32, std::int32_t, 80,
                   "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "+r");

// FP16 accumulate: two registers of two halves each.
struct MmaF16F16 {
  static constexpr TensorShape info{"f16_f16", 16, 8, 16, TensorInput::kF16, TensorAccumulator::kF16, 80};
  using Reg = std::uint32_t;
  using Acc = std::uint32_t;  // f16x2
  static constexpr int a_regs = 4, b_regs = 2, acc_regs = 2;
  static __device__ __forceinline__ bool compiled_here() { return GPUBENCH_MMA_ARCH(800); }
  static __device__ __forceinline__ void mma(Acc (&d)[acc_regs], const Reg (&a)[a_regs], const Reg (&b)[b_regs]) {
    if constexpr (GPUBENCH_MMA_ARCH(800))
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};"
                   : "+r"(d[0]), "+r"(d[1])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

// FP64 (DMMA): m8n8k4, one double of A and of B per lane, two accumulators.
struct MmaF64F64 {
  static constexpr TensorShape info{"f64_f64", 8, 8, 4, TensorInput::kF64, TensorAccumulator::kF64, 80};
  using Reg = double;
  using Acc = double;
  static constexpr int a_regs = 1, b_regs = 1, acc_regs = 2;
  static __device__ __forceinline__ bool compiled_here() { return GPUBENCH_MMA_ARCH(800); }
  static __device__ __forceinline__ void mma(Acc (&d)[acc_regs], const Reg (&a)[a_regs], const Reg (&b)[b_regs]) {
    if constexpr (GPUBENCH_MMA_ARCH(800))
      asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                   : "+d"(d[0]), "+d"(d[1])
                   : "d"(a[0]), "d"(b[0]));
  }
};

// FP64 m16n8k16 (sm_90's larger DMMA shape): A 8, B 4, C 4 doubles per lane, the m16n8 layouts.
struct MmaF64M16n8k16 {
  static constexpr TensorShape info{"f64_f64_m16n8k16", 16, 8, 16, TensorInput::kF64, TensorAccumulator::kF64, 90};
  using Reg = double;
  using Acc = double;
  static constexpr int a_regs = 8, b_regs = 4, acc_regs = 4;
  static __device__ __forceinline__ bool compiled_here() { return GPUBENCH_MMA_ARCH(900); }
  static __device__ __forceinline__ void mma(Acc (&d)[acc_regs], const Reg (&a)[a_regs], const Reg (&b)[b_regs]) {
    if constexpr (GPUBENCH_MMA_ARCH(900))
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
          "{%12, %13, %14, %15}, {%0, %1, %2, %3};"
          : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
          : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
            "d"(b[1]), "d"(b[2]), "d"(b[3]));
  }
};

template <class... M>
struct MmaList {
  template <class F>
  static void for_each(F&& f) {
    (f(M{}), ...);
  }
};
using MmaInstructions =
    MmaList<MmaF16F32, MmaF16F16, MmaBf16F32, MmaTf32F32, MmaE4m3F32, MmaE5m2F32, MmaS8S32, MmaF64F64, MmaF64M16n8k16>;

template <class Mma>
__global__ void mma_compiled(int* compiled) {
  *compiled = Mma::compiled_here() ? 1 : 0;
}

// Every warp: lane l loads its fragments a[l * a_regs ...], b[l * b_regs ...] and its accumulators
// c[l * acc_regs ...] into each of `Chains` accumulator sets, then runs reps x kMmaUnroll steps, each
// step one mma per chain (the chains are independent; a chain's steps depend on each other through
// its accumulators). Thread t of the grid writes its chains' accumulators to out[t * Chains * acc_regs].
// With the same A and B every step: D = C + reps * kMmaUnroll * (A x B).
template <class Mma, int Chains>
__global__ void mma_sync_loop(const typename Mma::Reg* __restrict__ a_frags,
                              const typename Mma::Reg* __restrict__ b_frags,
                              const typename Mma::Acc* __restrict__ c_frags, typename Mma::Acc* __restrict__ out,
                              int reps, Clocks clocks) {
  using Reg = typename Mma::Reg;
  using Acc = typename Mma::Acc;
  const int lane = threadIdx.x % 32;
  Reg a[Mma::a_regs], b[Mma::b_regs];
  Acc acc[Chains][Mma::acc_regs];
#pragma unroll
  for (int r = 0; r < Mma::a_regs; ++r) a[r] = a_frags[lane * Mma::a_regs + r];
#pragma unroll
  for (int r = 0; r < Mma::b_regs; ++r) b[r] = b_frags[lane * Mma::b_regs + r];
#pragma unroll
  for (int c = 0; c < Chains; ++c)
#pragma unroll
    for (int r = 0; r < Mma::acc_regs; ++r) acc[c][r] = c_frags[lane * Mma::acc_regs + r];

  const Clocks::Stamp start = clocks.begin_block(static_cast<int>(low_bits(a[0]) | low_bits(b[0]) | 1u));
#pragma unroll 1
  for (int rep = 0; rep < reps; ++rep) {
#pragma unroll
    for (int step = 0; step < kMmaUnroll; ++step)
#pragma unroll
      for (int c = 0; c < Chains; ++c) Mma::mma(acc[c], a, b);
  }
  unsigned last = 0;
#pragma unroll
  for (int c = 0; c < Chains; ++c) last ^= low_bits(acc[c][0]);
  clocks.end_block(start, static_cast<int>(last | 1u));  // waits for every chain's last mma

  Acc* mine = out + (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * Chains * Mma::acc_regs;
#pragma unroll
  for (int c = 0; c < Chains; ++c)
#pragma unroll
    for (int r = 0; r < Mma::acc_regs; ++r) mine[c * Mma::acc_regs + r] = acc[c][r];
}

}  // namespace gpubench::kernels
