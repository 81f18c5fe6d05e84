#include "bench/memory/chase/host_parallel_chase.h"

#include "common/dispatch.h"

namespace gpubench {

void walk_chains(int chains, const std::uint32_t* words, std::uint32_t* at, std::size_t steps) {
  dispatch<1, 2, 4, 8, 16>(chains, [&](auto c) { walk_chains<decltype(c)::value>(words, at, steps); });
}

std::uint64_t read_words(const std::uint32_t* words, std::size_t count) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) sum += words[i];
  return sum;
}

}  // namespace gpubench
