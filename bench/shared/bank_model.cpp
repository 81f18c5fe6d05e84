#include "bench/shared/bank_model.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>

namespace gpubench {

int ideal_shared_wavefronts(int access_bytes) { return access_bytes * 32 / (kSharedBanks * kSharedBankBytes); }

int shared_wavefronts(const std::vector<std::uint32_t>& byte_addresses, int access_bytes) {
  if (access_bytes != 4 && access_bytes != 8 && access_bytes != 16)
    throw std::invalid_argument("shared accesses are 4, 8 or 16 bytes");
  if (byte_addresses.size() != 32) throw std::invalid_argument("one address per lane of a warp");
  const int lanes_per_phase = kSharedBanks * kSharedBankBytes / access_bytes;
  int wavefronts = 0;
  for (int first = 0; first < 32; first += lanes_per_phase) {
    std::vector<std::set<std::uint32_t>> words_in_bank(kSharedBanks);
    for (int lane = first; lane < first + lanes_per_phase; ++lane) {
      const std::uint32_t address = byte_addresses[static_cast<std::size_t>(lane)];
      if (address % static_cast<std::uint32_t>(access_bytes) != 0)
        throw std::invalid_argument("shared access not aligned to its size");
      for (int part = 0; part < access_bytes / kSharedBankBytes; ++part) {  // a wide access spans banks
        const std::uint32_t word = address / kSharedBankBytes + static_cast<std::uint32_t>(part);
        words_in_bank[word % kSharedBanks].insert(word);
      }
    }
    std::size_t most = 1;
    for (const auto& words : words_in_bank) most = std::max(most, words.size());
    wavefronts += static_cast<int>(most);
  }
  return wavefronts;
}

int stride_conflict_degree(int stride_words) {
  if (stride_words < 1) throw std::invalid_argument("stride must be at least one word");
  return std::gcd(stride_words, 32);
}

std::vector<std::uint32_t> column_read_addresses(TileLayout layout, int column) {
  std::vector<std::uint32_t> addresses(32);
  for (int row = 0; row < 32; ++row) {
    int word = 0;
    switch (layout) {
      case TileLayout::kNaive: word = row * 32 + column; break;
      case TileLayout::kPadded: word = row * 33 + column; break;
      case TileLayout::kSwizzled: word = row * 32 + (column ^ row); break;
    }
    addresses[static_cast<std::size_t>(row)] = static_cast<std::uint32_t>(word * kSharedBankBytes);
  }
  return addresses;
}

}  // namespace gpubench
