// Pointer-chase chains: a random single cycle through every node of a working set, one node every
// `stride` bytes, so each load depends on the previous one and no prefetcher can guess the next.
// Shared by the GPU and CPU chases so their curves compare like for like.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpubench {

struct ChaseChain {
  // 32-bit words covering the working set; the word at each node holds the word index of the next
  // node, every other word is 0.
  std::vector<std::uint32_t> words;
  std::size_t nodes = 0;
  std::size_t stride_words = 0;
};

// Sattolo's shuffle: one cycle through all nodes, the same for the same seed on every platform (the
// generator and the bounded draw are defined here, not by the standard library). Throws
// std::invalid_argument if the stride is not a positive multiple of 4 bytes, the set holds fewer than
// two nodes, or it needs more than 2^32 words.
ChaseChain make_chase_chain(std::size_t working_set_bytes, std::size_t stride_bytes, std::uint64_t seed);

// The word index reached after `steps` loads from `start`.
std::uint32_t chase(const std::vector<std::uint32_t>& words, std::uint32_t start, std::size_t steps);

}  // namespace gpubench
