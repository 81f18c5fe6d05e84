// Chains of one instruction: x = op(x, a, b), in inline PTX so nvcc cannot reorder, fuse or delete
// them. a and b arrive as kernel arguments, so ptxas cannot fold them either (it did fold a chain
// of constant multiplies in the divergence kernel). Latency: one thread, one chain. Throughput:
// Ilp independent chains per thread, interleaved.
#pragma once

#include "common/clocks.h"
#include "kernels/compute/instruction_info.h"

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

// One description per instruction: its host facts (info), the operands under which a chain of it
// stays finite and away from denormals forever (x0, a, b), and one step x = op(x, a, b). The asm
// template is spelled once (GPUBENCH_STEP) and reported as info.ptx. To add an instruction, write
// its struct and list it in Instructions.
#define GPUBENCH_STEP_XAB(text, reg)                        \
  static constexpr const char* kPtx = text;                 \
  static __device__ __forceinline__ T step(T x, T a, T b) { \
    asm volatile(text : "+" reg(x) : reg(a), reg(b));       \
    return x;                                               \
  }

struct Ffma {
  using T = float;
  GPUBENCH_STEP_XAB("fma.rn.f32 %0, %0, %1, %2;", "f")
  static constexpr InstructionInfo info{"ffma", kPtx, Pipe::kFp32, 1, 2, 70};
  static constexpr T x0 = 0.5f, a = 0.999999f, b = 1e-6f;
};

struct Fadd {
  using T = float;
#define GPUBENCH_FADD_PTX "add.rn.f32 %0, %0, %1;"
  static constexpr const char* kPtx = GPUBENCH_FADD_PTX;
  static __device__ __forceinline__ T step(T x, T, T b) {
    asm volatile(GPUBENCH_FADD_PTX : "+f"(x) : "f"(b));
#undef GPUBENCH_FADD_PTX
    return x;
  }
  static constexpr InstructionInfo info{"fadd", kPtx, Pipe::kFp32, 1, 1, 70};
  static constexpr T x0 = 1.0f, a = 0.0f, b = 1e-7f;
};

struct Dfma {
  using T = double;
  GPUBENCH_STEP_XAB("fma.rn.f64 %0, %0, %1, %2;", "d")
  static constexpr InstructionInfo info{"dfma", kPtx, Pipe::kFp64, 1, 2, 70};
  static constexpr T x0 = 0.5, a = 0.999999, b = 1e-6;
};

struct Imad {
  using T = std::uint32_t;
  GPUBENCH_STEP_XAB("mad.lo.u32 %0, %0, %1, %2;", "r")
  static constexpr InstructionInfo info{"imad", kPtx, Pipe::kInt32Mad, 1, 0, 70};
  static constexpr T x0 = 12345u, a = 0x2545F491u, b = 1u;
};

// Two halves packed in 32 bits, both lanes alike: x0 = 1.0, a = 0.99951 (0x3BFF), b = 2^-10 (0x1400);
// fixed point about 2.
struct Hfma2 {
  using T = std::uint32_t;
  GPUBENCH_STEP_XAB("fma.rn.f16x2 %0, %0, %1, %2;", "r")
  static constexpr InstructionInfo info{"hfma2", kPtx, Pipe::kFp16, 2, 2, 70};
  static constexpr T x0 = 0x3C003C00u, a = 0x3BFF3BFFu, b = 0x14001400u;
};
#undef GPUBENCH_STEP_XAB

// x = op(x): the special functions and the IEEE sequences.
#define GPUBENCH_STEP_X(text)                           \
  static constexpr const char* kPtx = text;             \
  static __device__ __forceinline__ T step(T x, T, T) { \
    asm volatile(text : "+f"(x));                       \
    return x;                                           \
  }

struct Rsqrt {
  using T = float;
  GPUBENCH_STEP_X("rsqrt.approx.ftz.f32 %0, %0;")
  static constexpr InstructionInfo info{"rsqrt", kPtx, Pipe::kSfu, 1, 0, 70};
  static constexpr T x0 = 2.0f, a = 0.0f, b = 0.0f;
};

struct Sin {
  using T = float;
  GPUBENCH_STEP_X("sin.approx.ftz.f32 %0, %0;")
  static constexpr InstructionInfo info{"sin", kPtx, Pipe::kSfu, 1, 0, 70};
  static constexpr T x0 = 1.0f, a = 0.0f, b = 0.0f;
};

// x = 2^-x: bounded (it converges to 0.6412); ptxas folds the negation into the MUFU operand.
struct Ex2 {
  using T = float;
  GPUBENCH_STEP_X("{\n\t.reg .f32 t;\n\tneg.f32 t, %0;\n\tex2.approx.ftz.f32 %0, t;\n\t}")
  static constexpr InstructionInfo info{"ex2", kPtx, Pipe::kSfu, 1, 0, 70};
  static constexpr T x0 = 0.5f, a = 0.0f, b = 0.0f;
};

struct Sqrt {
  using T = float;
  GPUBENCH_STEP_X("sqrt.rn.f32 %0, %0;")
  static constexpr InstructionInfo info{"sqrt", kPtx, Pipe::kSequence, 1, 0, 70};
  static constexpr T x0 = 3.0f, a = 0.0f, b = 0.0f;
};
#undef GPUBENCH_STEP_X

// x = a / x: alternates between two values, never overflows.
struct Div {
  using T = float;
#define GPUBENCH_DIV_PTX "div.rn.f32 %0, %1, %0;"
  static constexpr const char* kPtx = GPUBENCH_DIV_PTX;
  static __device__ __forceinline__ T step(T x, T a, T) {
    asm volatile(GPUBENCH_DIV_PTX : "+f"(x) : "f"(a));
#undef GPUBENCH_DIV_PTX
    return x;
  }
  static constexpr InstructionInfo info{"div", kPtx, Pipe::kSequence, 1, 0, 70};
  static constexpr T x0 = 3.0f, a = 2.0f, b = 0.0f;
};

template <class... Is>
struct InstructionList {
  static constexpr int size = sizeof...(Is);
  // Calls f(I{}) for every instruction, in order.
  template <class F>
  static void for_each(F&& f) {
    (f(Is{}), ...);
  }
};

// Every instruction the compute families time, in report order.
using Instructions = InstructionList<Ffma, Fadd, Dfma, Imad, Hfma2, Rsqrt, Sin, Ex2, Sqrt, Div>;

__device__ __forceinline__ std::uint32_t seed_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ std::uint32_t seed_bits(double v) {
  return static_cast<std::uint32_t>(__double_as_longlong(v));
}
__device__ __forceinline__ std::uint32_t seed_bits(std::uint32_t v) { return v; }

// One thread: rounds x 128 dependent steps; writes the chain's end.
template <class I>
static __global__ void instruction_latency(typename I::T* out, typename I::T x, typename I::T a, typename I::T b,
                                           int rounds, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int s = 0; s < kLatencyStepsPerRound; ++s) x = I::step(x, a, b);
  }
  clocks.end(start);
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// Every thread runs Ilp independent chains, chain j starting at seeds[j]; rounds x 128/Ilp steps each.
// The span is block 0's, between barriers, so it covers all of its warps.
template <class I, int Ilp>
static __global__ void instruction_throughput(typename I::T* out, const typename I::T* seeds, typename I::T a,
                                              typename I::T b, int rounds, Clocks clocks) {
  using T = typename I::T;
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
      for (int j = 0; j < Ilp; ++j) x[j] = I::step(x[j], a, b);
    }
  }
  clocks.end_block(start);
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
#pragma unroll
  for (int j = 0; j < Ilp; ++j) out[thread * Ilp + j] = x[j];
}

}  // namespace gpubench::kernels

namespace gpubench::kernels {

// Chain j's start: distinct per chain, so no two chains are the same computation.
template <class I>
__host__ __device__ constexpr typename I::T chain_seed(int j) {
  using T = typename I::T;
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(I::x0 + static_cast<T>(j));
  } else {
    return static_cast<T>(I::x0 * (T(1) + T(j) * T(1e-3)));
  }
}

}  // namespace gpubench::kernels
