#include "bench/memory/chase/pointer_chain.h"

#include <limits>
#include <numeric>
#include <stdexcept>

namespace gpubench {
namespace {

// splitmix64: small, fast, and fully specified.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound), by rejection: no modulo bias.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
    std::uint64_t draw;
    do draw = next();
    while (draw >= limit);
    return draw % bound;
  }
};

}  // namespace

ChaseChain make_chase_chain(std::size_t working_set_bytes, std::size_t stride_bytes, std::uint64_t seed) {
  if (stride_bytes == 0 || stride_bytes % sizeof(std::uint32_t) != 0)
    throw std::invalid_argument("chase stride must be a positive multiple of 4 bytes");
  const std::size_t nodes = working_set_bytes / stride_bytes;
  if (nodes < 2) throw std::invalid_argument("chase working set must hold at least two nodes");
  const std::size_t stride_words = stride_bytes / sizeof(std::uint32_t);
  if (nodes > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("chase working set has more than 2^32 nodes");

  ChaseChain chain;
  chain.nodes = nodes;
  chain.stride_words = stride_words;
  chain.order.resize(nodes);
  std::iota(chain.order.begin(), chain.order.end(), std::uint32_t{0});
  SplitMix64 random{seed};
  for (std::size_t i = nodes - 1; i > 1; --i) std::swap(chain.order[i], chain.order[1 + random.below(i)]);
  chain.next.resize(nodes);
  for (std::size_t i = 0; i < nodes; ++i) chain.next[chain.order[i]] = chain.order[(i + 1) % nodes];
  return chain;
}

std::vector<std::uint32_t> chase_words(const ChaseChain& chain) {
  if (chain.word_count() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("chase working set too large for 32-bit word indices");
  std::vector<std::uint32_t> words(chain.word_count(), 0);
  for (std::size_t n = 0; n < chain.nodes; ++n)
    words[n * chain.stride_words] = static_cast<std::uint32_t>(chain.next[n] * chain.stride_words);
  return words;
}

std::uint32_t chase(const std::vector<std::uint32_t>& words, std::uint32_t start, std::size_t steps) {
  std::uint32_t at = start;
  for (std::size_t i = 0; i < steps; ++i) at = words[at];
  return at;
}

std::uint32_t chase_end(const ChaseChain& chain, std::size_t from, std::size_t steps) {
  return static_cast<std::uint32_t>(chain.order[(from + steps) % chain.nodes] * chain.stride_words);
}

}  // namespace gpubench
