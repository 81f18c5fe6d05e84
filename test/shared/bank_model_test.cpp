// The bank-conflict predictor (bench/shared/bank_model.h) on the patterns the SharedBankConflict
// extension will time: word strides, wide accesses, transposed tiles.
#include "bench/shared/bank_model.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace gpubench {
namespace {

std::vector<std::uint32_t> strided(int stride_words, int access_bytes) {
  std::vector<std::uint32_t> addresses(32);
  for (int lane = 0; lane < 32; ++lane)
    addresses[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(lane * stride_words * access_bytes);
  return addresses;
}

TEST(BankModel, WordStridesConflictByTheirGcdWith32) {
  for (int stride = 1; stride <= 32; ++stride) {
    EXPECT_EQ(stride_conflict_degree(stride), std::gcd(stride, 32)) << stride;
    EXPECT_EQ(shared_wavefronts(strided(stride, 4), 4), std::gcd(stride, 32)) << "stride " << stride;
  }
}

TEST(BankModel, EveryLaneOnOneWordIsABroadcast) {
  EXPECT_EQ(shared_wavefronts(std::vector<std::uint32_t>(32, 64), 4), 1);
}

TEST(BankModel, WideConsecutiveAccessesTakeTheirIdealWavefronts) {
  EXPECT_EQ(ideal_shared_wavefronts(4), 1);
  EXPECT_EQ(ideal_shared_wavefronts(8), 2);
  EXPECT_EQ(ideal_shared_wavefronts(16), 4);
  EXPECT_EQ(shared_wavefronts(strided(1, 8), 8), 2);
  EXPECT_EQ(shared_wavefronts(strided(1, 16), 16), 4);
  // Every other 8-byte element: each 16-lane phase spans 256 bytes, two words in each bank.
  EXPECT_EQ(shared_wavefronts(strided(2, 8), 8), 4);
}

TEST(BankModel, TransposedColumnIsThirtyTwoWayUnlessPaddedOrSwizzled) {
  for (int column : {0, 5, 31}) {
    EXPECT_EQ(shared_wavefronts(column_read_addresses(TileLayout::kNaive, column), 4), 32) << column;
    EXPECT_EQ(shared_wavefronts(column_read_addresses(TileLayout::kPadded, column), 4), 1) << column;
    EXPECT_EQ(shared_wavefronts(column_read_addresses(TileLayout::kSwizzled, column), 4), 1) << column;
  }
}

TEST(BankModel, RejectsWhatHardwareCannotDo) {
  EXPECT_THROW(shared_wavefronts(strided(1, 4), 2), std::invalid_argument);
  EXPECT_THROW(shared_wavefronts(std::vector<std::uint32_t>(31, 0), 4), std::invalid_argument);
  std::vector<std::uint32_t> misaligned = strided(1, 8);
  misaligned[3] += 4;
  EXPECT_THROW(shared_wavefronts(misaligned, 8), std::invalid_argument);
  EXPECT_THROW(stride_conflict_degree(0), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench
