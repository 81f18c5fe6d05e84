// The shared-memory bank model the SharedBankConflict extension will be checked against (issue 13):
// 32 banks of 4 bytes. A warp's access is served in phases of 128 bytes of data (all 32 lanes for
// 4-byte accesses, 16 lanes at a time for 8-byte ones, 8 for 16-byte ones); within a phase, a bank
// holding k distinct 4-byte words that lanes ask for needs k wavefronts (lanes reading the same word
// share it: a broadcast). The prediction is a hypothesis until CUPTI's shared_wavefronts confirms it
// on a GPU; nothing here has been measured yet.
#pragma once

#include <cstdint>
#include <vector>

namespace gpubench {

inline constexpr int kSharedBanks = 32;
inline constexpr int kSharedBankBytes = 4;

// Wavefronts one warp-wide access needs. byte_addresses: one per lane (32), each aligned to
// access_bytes (4, 8 or 16).
int shared_wavefronts(const std::vector<std::uint32_t>& byte_addresses, int access_bytes);

// The fewest wavefronts such an access can take: access_bytes * 32 / 128.
int ideal_shared_wavefronts(int access_bytes);

// Degree of the conflict when lane i reads 4-byte word i * stride: gcd(stride, 32).
int stride_conflict_degree(int stride_words);

// Lane addresses (bytes) of the patterns the family times, for a warp reading column `column` of a
// 32 x 32 tile of 4-byte words: row-major (naive), rows padded to 33 words, and XOR-swizzled
// (word (row, column ^ row)).
enum class TileLayout { kNaive, kPadded, kSwizzled };
std::vector<std::uint32_t> column_read_addresses(TileLayout layout, int column);

}  // namespace gpubench
