// The host side of the tensor-core rows without a GPU: every fragment layout covers its matrix exactly
// once, the shared-memory tile is a permutation of its bytes, and the element formats round-trip.
#include "bench/compute/tensor_operands.h"
#include "kernels/compute/tensor_types.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <utility>
#include <vector>

namespace gpubench {
namespace {

using kernels::TensorShape;

const std::vector<TensorShape> kMmaShapes = {
    {"f16_f32", 16, 8, 16, TensorInput::kF16, TensorAccumulator::kF32, 80},
    {"f16_f16", 16, 8, 16, TensorInput::kF16, TensorAccumulator::kF16, 80},
    {"tf32_f32", 16, 8, 8, TensorInput::kTF32, TensorAccumulator::kF32, 80},
    {"e4m3_f32", 16, 8, 32, TensorInput::kE4M3, TensorAccumulator::kF32, 89},
    {"s8_s32", 16, 8, 32, TensorInput::kS8, TensorAccumulator::kS32, 80},
    {"f64_f64", 8, 8, 4, TensorInput::kF64, TensorAccumulator::kF64, 80},
    {"f64_f64_m16n8k16", 16, 8, 16, TensorInput::kF64, TensorAccumulator::kF64, 90},
};

// Each (lane, element) names a distinct element inside rows x cols, and all of them are named.
void expect_cover(int lanes, int rows, int cols, const std::function<MatrixIndex(int, int)>& element,
                  const std::string& what) {
  std::set<std::pair<int, int>> seen;
  const int per_lane = rows * cols / lanes;
  for (int lane = 0; lane < lanes; ++lane)
    for (int e = 0; e < per_lane; ++e) {
      const MatrixIndex at = element(lane, e);
      ASSERT_TRUE(at.row >= 0 && at.row < rows && at.col >= 0 && at.col < cols)
          << what << ": lane " << lane << " element " << e << " -> (" << at.row << ", " << at.col << ")";
      EXPECT_TRUE(seen.insert({at.row, at.col}).second) << what << ": (" << at.row << ", " << at.col << ") twice";
    }
  EXPECT_EQ(static_cast<int>(seen.size()), rows * cols) << what;
}

TEST(TensorOperands, MmaFragmentsCoverEachMatrixOnce) {
  for (const TensorShape& s : kMmaShapes) {
    expect_cover(
        32, s.m, s.k, [&](int l, int e) { return mma_a_element(s, l, e); }, std::string(s.name) + " A");
    expect_cover(
        32, s.k, s.n, [&](int l, int e) { return mma_b_element(s, l, e); }, std::string(s.name) + " B");
    expect_cover(
        32, s.m, s.n, [&](int l, int e) { return mma_c_element(s, l, e); }, std::string(s.name) + " C");
  }
}

TEST(TensorOperands, WgmmaFragmentsCoverEachMatrixOnce) {
  const TensorShape f16{"f16_f32", 64, 0, 16, TensorInput::kF16, TensorAccumulator::kF32, 90};
  expect_cover(
      128, 64, 16, [&](int t, int e) { return wgmma_a_element(f16, t, e); }, "wgmma A");
  for (int n : {8, 64, 256})
    expect_cover(
        128, 64, n, [](int t, int e) { return wgmma_d_element(t, e); }, "wgmma D, N " + std::to_string(n));
}

// The K-major core-matrix layout is a permutation of the tile's bytes, and the documented corners sit
// where the descriptor's offsets say: K bytes 16-31 of row 0 at 128 (leading), row 8 at 256 (stride).
TEST(TensorOperands, WgmmaTileOffsetsArePermutation) {
  std::set<int> offsets;
  for (int row = 0; row < 256; ++row)
    for (int byte = 0; byte < kernels::kWgmmaRowBytes; ++byte)
      EXPECT_TRUE(offsets.insert(kernels::wgmma_tile_offset(row, byte)).second);
  EXPECT_EQ(*offsets.rbegin(), 256 * kernels::kWgmmaRowBytes - 1);
  EXPECT_EQ(kernels::wgmma_tile_offset(0, 16), kernels::kWgmmaLeadingBytes);
  EXPECT_EQ(kernels::wgmma_tile_offset(8, 0), kernels::kWgmmaStrideBytes);
  EXPECT_EQ(kernels::wgmma_tile_offset(1, 0), 16);
}

TEST(TensorOperands, FormatsRoundTripTheValuesTheTestsUse) {
  for (TensorInput input : {TensorInput::kF16, TensorInput::kBF16, TensorInput::kTF32, TensorInput::kE4M3,
                            TensorInput::kE5M2, TensorInput::kS8, TensorInput::kF64})
    for (double v : {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0}) EXPECT_EQ(decode(input, encode(input, v)), v);
  EXPECT_EQ(encode(TensorInput::kF16, 1.0), 0x3C00u);
  EXPECT_EQ(encode(TensorInput::kBF16, 1.0), 0x3F80u);
  EXPECT_EQ(encode(TensorInput::kE4M3, 1.0), 0x38u);
  EXPECT_EQ(encode(TensorInput::kE5M2, 1.0), 0x3Cu);
  EXPECT_EQ(encode(TensorInput::kS8, -1.0), 0xFFu);
  EXPECT_EQ(decode(TensorAccumulator::kS32, encode(TensorAccumulator::kS32, -7.0)), -7.0);
  EXPECT_EQ(decode(TensorAccumulator::kF16, encode(TensorAccumulator::kF16, 1152.0)), 1152.0);
}

// Fragments pack lane after lane: f16 A of m16n8k16 is 4 words per lane, lane 0's first word holds
// A[0][0] (low half) and A[0][1].
TEST(TensorOperands, PacksLaneAfterLane) {
  const TensorShape& s = kMmaShapes[0];
  Matrix a(16, 16);
  a.at(0, 0) = 1.0;
  a.at(0, 1) = 2.0;
  const std::vector<std::uint32_t> words = mma_a_fragments(s, a);
  ASSERT_EQ(words.size(), 32u * 4u);
  EXPECT_EQ(words[0], 0x40003C00u);
  const Matrix d = reference_product(Matrix(16, 16), Matrix(16, 8), Matrix(16, 8), 3);
  EXPECT_EQ(d.at(15, 7), 0.0);
}

}  // namespace
}  // namespace gpubench
