// Host side of the tensor-core kernels: element formats, which matrix element each lane's register
// holds (PTX ISA fragment layouts of mma.sync and wgmma), the shared-memory tile layout wgmma's
// descriptors describe, and the reference D = C + times x (A x B). The benchmark builds its operands
// with these, the tests check the kernels against them.
#pragma once

#include "common/device_memory.h"
#include "kernels/compute/tensor_types.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <random>
#include <vector>

namespace gpubench {

using kernels::TensorAccumulator;
using kernels::TensorInput;
using kernels::TensorShape;

// An element's bits in its format (rounded to nearest; values the format holds exactly round-trip).
std::uint64_t encode(TensorInput input, double value);
double decode(TensorInput input, std::uint64_t bits);
std::uint64_t encode(TensorAccumulator accumulator, double value);
double decode(TensorAccumulator accumulator, std::uint64_t bits);

struct Matrix {
  Matrix(int rows, int cols) : rows(rows), cols(cols), values(static_cast<std::size_t>(rows) * cols, 0.0) {}
  double& at(int row, int col) { return values[static_cast<std::size_t>(row) * cols + col]; }
  double at(int row, int col) const { return values[static_cast<std::size_t>(row) * cols + col]; }
  int rows, cols;
  std::vector<double> values;
};

struct MatrixIndex {
  int row, col;
};

// Element `e` of lane `lane`'s fragment of A (m x k), B (k x n) or C/D (m x n) of a warp-level mma.
MatrixIndex mma_a_element(const TensorShape& shape, int lane, int e);
MatrixIndex mma_b_element(const TensorShape& shape, int lane, int e);
MatrixIndex mma_c_element(const TensorShape& shape, int lane, int e);
// wgmma (64 x n x k): thread t (0..127) of the warpgroup; A from registers, and D.
MatrixIndex wgmma_a_element(const TensorShape& shape, int thread, int e);
MatrixIndex wgmma_d_element(int thread, int e);

// Operands as the kernels load them, 32-bit words (a 64-bit element takes two, low word first).
// Fragments: lane after lane (thread after thread for wgmma), each lane's elements in order.
std::vector<std::uint32_t> mma_a_fragments(const TensorShape& shape, const Matrix& a);
std::vector<std::uint32_t> mma_b_fragments(const TensorShape& shape, const Matrix& b);
std::vector<std::uint32_t> mma_c_fragments(const TensorShape& shape, const Matrix& c);
Matrix mma_d_matrix(const TensorShape& shape, const std::vector<std::uint32_t>& lane_words);
std::vector<std::uint32_t> wgmma_a_fragments(const TensorShape& shape, const Matrix& a);
std::vector<std::uint32_t> wgmma_c_fragments(TensorAccumulator accumulator, const Matrix& c);
Matrix wgmma_d_matrix(TensorAccumulator accumulator, int n, const std::vector<std::uint32_t>& thread_words);
// A (64 x k) or B given as k x n, stored K-major at kernels::wgmma_tile_offset: rows x 32 bytes.
std::vector<std::uint32_t> wgmma_a_tile(TensorInput input, const Matrix& a);
std::vector<std::uint32_t> wgmma_b_tile(TensorInput input, const Matrix& b);

// Small integers (exact in every format and in every sum the tests make), or values spread over the
// format's range for timing (random mantissas; integers over the whole int8 range), or zeros.
enum class Fill { kZero, kSmallIntegers, kRandom };
Matrix make_matrix(int rows, int cols, TensorInput input, Fill fill, std::mt19937& rng);

// Whether the code the current GPU runs has the instructions a probe kernel (kernels::mma_compiled<M>,
// kernels::wgmma_compiled<W>: `void(int*)`) reports; a build for another architecture has empty loops.
// One launch per probe and GPU; later calls answer from memory.
bool compiled_here(const void* probe_kernel, cudaStream_t stream = nullptr);

// Operand words on the device, copied on `stream` (done when it returns).
DeviceBuffer<std::uint32_t> upload_words(const std::vector<std::uint32_t>& words, cudaStream_t stream = nullptr);

// C + times x (A x B), each element as the accumulator format holds it after the exact sum.
Matrix reference_product(const Matrix& a, const Matrix& b, const Matrix& c, int times);

}  // namespace gpubench
