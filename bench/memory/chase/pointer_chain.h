// Pointer-chase chains: a random single cycle through every node of a working set, one node every
// `stride` bytes, so each load depends on the previous one and no prefetcher can guess the next.
// Shared by the GPU and CPU chases so their curves compare like for like.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpubench {

// The cycle, stored per node (not per word) so sets of gigabytes with page strides stay small on
// the host; chase_words() lays it out in memory.
struct ChaseChain {
  std::size_t nodes = 0;
  std::size_t stride_words = 0;      // 32-bit words from one node to the next
  std::vector<std::uint32_t> next;   // next[n]: the node after node n
  std::vector<std::uint32_t> order;  // the nodes in the order the walk from node 0 visits them

  std::size_t word_count() const { return nodes * stride_words; }
};

// A random cycle through all nodes, the same for the same seed on every platform (the generator and
// the bounded draw are defined here, not by the standard library): node 0 first, the others in
// shuffled order, each linked to the following one. Throws std::invalid_argument if the stride is
// not a positive multiple of 4 bytes, or the set holds fewer than two or more than 2^32 nodes.
ChaseChain make_chase_chain(std::size_t working_set_bytes, std::size_t stride_bytes, std::uint64_t seed);

// The chain in memory: the word at each node holds the word index of the next node, other words 0.
// Throws std::invalid_argument past 2^32 words.
std::vector<std::uint32_t> chase_words(const ChaseChain& chain);

// The word index reached after `steps` loads from `start`.
std::uint32_t chase(const std::vector<std::uint32_t>& words, std::uint32_t start, std::size_t steps);

// The same without the words: word index after `steps` loads from the node at position `from` of
// chain.order. What a GPU chase starting there must end on.
std::uint32_t chase_end(const ChaseChain& chain, std::size_t from, std::size_t steps);

}  // namespace gpubench
