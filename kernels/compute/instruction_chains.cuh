// Chains of one instruction: x = op(x, a, b), in inline PTX so nvcc cannot reorder, fuse or delete
// them. a and b arrive as kernel arguments, so ptxas cannot fold them either (it did fold a chain
// of constant multiplies in the divergence kernel). Latency: one thread, one chain. Throughput:
// Ilp independent chains per thread, interleaved.
#pragma once

#include "common/clocks.h"
#include "common/instructions.h"

#include <cstdint>
#include <type_traits>

namespace gpubench::kernels {

// Long unrolled rounds: the loop's branch costs ~7 cycles per round, 0.05 per step at 128.
inline constexpr int kLatencyStepsPerRound = 128;
// Throughput rounds hold 128 operations per thread at every ILP, so the loop's 3 control
// instructions take under 2.5% of the issue slots (at 64 per round they capped FFMA at 95.5%).
inline constexpr int kThroughputOpsPerRound = 128;
template <int Ilp>
inline constexpr int kThroughputStepsPerRound = kThroughputOpsPerRound / Ilp;

template <Instruction I>
struct Op;

template <>
struct Op<Instruction::kFfma> {
  using T = float;
  static __device__ __forceinline__ T step(T x, T a, T b) {
    asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
    return x;
  }
};

template <>
struct Op<Instruction::kFadd> {
  using T = float;
  static __device__ __forceinline__ T step(T x, T, T b) {
    asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(x) : "f"(b));
    return x;
  }
};

template <>
struct Op<Instruction::kDfma> {
  using T = double;
  static __device__ __forceinline__ T step(T x, T a, T b) {
    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x) : "d"(a), "d"(b));
    return x;
  }
};

template <>
struct Op<Instruction::kImad> {
  using T = std::uint32_t;
  static __device__ __forceinline__ T step(T x, T a, T b) {
    asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
    return x;
  }
};

// Two halves packed in 32 bits.
template <>
struct Op<Instruction::kHfma2> {
  using T = std::uint32_t;
  static __device__ __forceinline__ T step(T x, T a, T b) {
    asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
    return x;
  }
};

template <>
struct Op<Instruction::kRsqrt> {
  using T = float;
  static __device__ __forceinline__ T step(T x, T, T) {
    asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x));
    return x;
  }
};

template <>
struct Op<Instruction::kSin> {
  using T = float;
  static __device__ __forceinline__ T step(T x, T, T) {
    asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(x));
    return x;
  }
};

// x = 2^-x: bounded (it converges to 0.6412); ptxas folds the negation into the MUFU operand.
template <>
struct Op<Instruction::kEx2> {
  using T = float;
  static __device__ __forceinline__ T step(T x, T, T) {
    asm volatile("{\n\t.reg .f32 t;\n\tneg.f32 t, %0;\n\tex2.approx.ftz.f32 %0, t;\n\t}" : "+f"(x));
    return x;
  }
};

template <>
struct Op<Instruction::kSqrt> {
  using T = float;
  static __device__ __forceinline__ T step(T x, T, T) {
    asm volatile("sqrt.rn.f32 %0, %0;" : "+f"(x));
    return x;
  }
};

// x = a / x: alternates between two values, never overflows.
template <>
struct Op<Instruction::kDiv> {
  using T = float;
  static __device__ __forceinline__ T step(T x, T a, T) {
    asm volatile("div.rn.f32 %0, %1, %0;" : "+f"(x) : "f"(a));
    return x;
  }
};

__device__ __forceinline__ std::uint32_t seed_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ std::uint32_t seed_bits(double v) { return static_cast<std::uint32_t>(__double_as_longlong(v)); }
__device__ __forceinline__ std::uint32_t seed_bits(std::uint32_t v) { return v; }

// One thread: rounds x 128 dependent steps; writes the chain's end.
template <Instruction I>
static __global__ void instruction_latency(typename Op<I>::T* out, typename Op<I>::T x, typename Op<I>::T a,
                                           typename Op<I>::T b, int rounds, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int s = 0; s < kLatencyStepsPerRound; ++s) x = Op<I>::step(x, a, b);
  }
  clocks.end(start);
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// Every thread runs Ilp independent chains, chain j starting at seeds[j]; rounds x 128/Ilp steps each.
// The span is block 0's, between barriers, so it covers all of its warps.
template <Instruction I, int Ilp>
static __global__ void instruction_throughput(typename Op<I>::T* out, const typename Op<I>::T* seeds,
                                              typename Op<I>::T a, typename Op<I>::T b, int rounds, Clocks clocks) {
  using T = typename Op<I>::T;
  T x[Ilp];
#pragma unroll
  for (int j = 0; j < Ilp; ++j) x[j] = seeds[j];
  int loaded = 1;  // depends on every seed: the span starts once they have arrived
#pragma unroll
  for (int j = 0; j < Ilp; ++j) loaded &= static_cast<int>(seed_bits(x[j]) != 0xFFFFFFFFu);
  const Clocks::Stamp start = clocks.begin_block(loaded);
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int s = 0; s < kThroughputStepsPerRound<Ilp>; ++s) {
#pragma unroll
      for (int j = 0; j < Ilp; ++j) x[j] = Op<I>::step(x[j], a, b);
    }
  }
  clocks.end_block(start);
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
#pragma unroll
  for (int j = 0; j < Ilp; ++j) out[thread * Ilp + j] = x[j];
}

}  // namespace gpubench::kernels

namespace gpubench::kernels {

// Start values and operands under which every chain stays finite and away from denormals forever.
template <Instruction I>
struct Operands;
template <> struct Operands<Instruction::kFfma> { static constexpr float x0 = 0.5f, a = 0.999999f, b = 1e-6f; };
template <> struct Operands<Instruction::kFadd> { static constexpr float x0 = 1.0f, a = 0.0f, b = 1e-7f; };
template <> struct Operands<Instruction::kDfma> { static constexpr double x0 = 0.5, a = 0.999999, b = 1e-6; };
template <> struct Operands<Instruction::kImad> {
  static constexpr std::uint32_t x0 = 12345u, a = 0x2545F491u, b = 1u;
};
// Halves, both lanes alike: x0 = 1.0, a = 0.99951 (0x3BFF), b = 2^-10 (0x1400); fixed point about 2.
template <> struct Operands<Instruction::kHfma2> {
  static constexpr std::uint32_t x0 = 0x3C003C00u, a = 0x3BFF3BFFu, b = 0x14001400u;
};
template <> struct Operands<Instruction::kRsqrt> { static constexpr float x0 = 2.0f, a = 0.0f, b = 0.0f; };
template <> struct Operands<Instruction::kSin> { static constexpr float x0 = 1.0f, a = 0.0f, b = 0.0f; };
template <> struct Operands<Instruction::kEx2> { static constexpr float x0 = 0.5f, a = 0.0f, b = 0.0f; };
template <> struct Operands<Instruction::kSqrt> { static constexpr float x0 = 3.0f, a = 0.0f, b = 0.0f; };
template <> struct Operands<Instruction::kDiv> { static constexpr float x0 = 3.0f, a = 2.0f, b = 0.0f; };

// Chain j's start: distinct per chain, so no two chains are the same computation.
template <Instruction I>
__host__ __device__ constexpr typename Op<I>::T chain_seed(int j) {
  using T = typename Op<I>::T;
  if constexpr (I == Instruction::kImad || I == Instruction::kHfma2) {
    return static_cast<T>(Operands<I>::x0 + static_cast<T>(j));
  } else {
    return static_cast<T>(Operands<I>::x0 * (T(1) + T(j) * T(1e-3)));
  }
}

// Calls f(std::integral_constant<Instruction, I>{}) for every instruction in the table.
template <class F>
void for_each_instruction(F&& f) {
  f(std::integral_constant<Instruction, Instruction::kFfma>{});
  f(std::integral_constant<Instruction, Instruction::kFadd>{});
  f(std::integral_constant<Instruction, Instruction::kDfma>{});
  f(std::integral_constant<Instruction, Instruction::kImad>{});
  f(std::integral_constant<Instruction, Instruction::kHfma2>{});
  f(std::integral_constant<Instruction, Instruction::kRsqrt>{});
  f(std::integral_constant<Instruction, Instruction::kSin>{});
  f(std::integral_constant<Instruction, Instruction::kEx2>{});
  f(std::integral_constant<Instruction, Instruction::kSqrt>{});
  f(std::integral_constant<Instruction, Instruction::kDiv>{});
}

}  // namespace gpubench::kernels
