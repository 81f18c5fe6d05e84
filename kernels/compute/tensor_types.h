// What a tensor-core instruction multiplies and accumulates, shared by the kernels (mma.sync, wgmma),
// the host code that lays out their operands and the tests' references.
#pragma once

#include <type_traits>

namespace gpubench::kernels {

enum class TensorInput { kF16, kBF16, kTF32, kE4M3, kE5M2, kS8, kF64 };
enum class TensorAccumulator { kF32, kF16, kS32, kF64 };

// Bytes of one element in the operand registers or shared memory (TF32 travels as 32-bit floats).
constexpr int input_bytes(TensorInput input) {
  switch (input) {
    case TensorInput::kF16:
    case TensorInput::kBF16: return 2;
    case TensorInput::kTF32: return 4;
    case TensorInput::kF64: return 8;
    default: return 1;
  }
}

constexpr int accumulator_bytes(TensorAccumulator acc) {
  return acc == TensorAccumulator::kF16 ? 2 : acc == TensorAccumulator::kF64 ? 8 : 4;
}

// One instruction: D (m x n) = A (m x k) x B (k x n) + C, and the oldest architecture that has it.
struct TensorShape {
  const char* name;  // row names: "f16_f32" = f16 inputs, f32 accumulator
  int m, n, k;
  TensorInput input;
  TensorAccumulator accumulator;
  int min_sm;                                                 // e.g. 89: FP8 mma.sync
  constexpr double flops() const { return 2.0 * m * n * k; }  // a multiply-add is two (integer: two ops)
};

}  // namespace gpubench::kernels

namespace gpubench::kernels {

// wgmma reads A (64 x K) and B (N x K) from shared memory K-major without swizzling: every tile row
// holds 32 bytes of K (16 f16, 8 tf32, 32 fp8/s8), cut into "core matrices" of 8 rows x 16 bytes
// stored as 128 contiguous bytes. The two core matrices of a row group (K bytes 0-15, 16-31) sit 128
// bytes apart (the descriptor's leading-dimension offset), row groups 256 bytes apart (its
// stride-dimension offset).
inline constexpr int kWgmmaM = 64;
inline constexpr int kWgmmaRowBytes = 32;
inline constexpr int kWgmmaLeadingBytes = 128;
inline constexpr int kWgmmaStrideBytes = 256;
inline constexpr int kWgmmaATileBytes = kWgmmaM * kWgmmaRowBytes;
constexpr int wgmma_tile_offset(int row, int byte) {
  return (row / 8) * kWgmmaStrideBytes + (byte / 16) * kWgmmaLeadingBytes + (row % 8) * 16 + byte % 16;
}

}  // namespace gpubench::kernels

#if defined(__CUDACC__)
namespace gpubench::kernels {

// The low 32 bits of a register's value: a data dependence for the clock reads (begin_block/end_block).
template <class T>
__device__ __forceinline__ unsigned low_bits(T value) {
  if constexpr (sizeof(T) == 8)
    return static_cast<unsigned>(__double_as_longlong(value));
  else if constexpr (std::is_floating_point<T>::value)
    return __float_as_uint(value);
  else
    return static_cast<unsigned>(value);
}

}  // namespace gpubench::kernels
#endif
