// The host side of memory-level parallelism: one thread walks `Chains` independent chases of one
// cycle at once, unrolled, so their loads overlap in the core's miss handling (instruction-level
// parallelism, the way a CPU gets it); several threads do it side by side.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpubench {

// Walks chains at[0..Chains) `steps` loads each through `words` (word indices, as chase_words lays
// them out) and leaves each where it stopped.
template <int Chains>
void walk_chains(const std::uint32_t* words, std::uint32_t* at, std::size_t steps) {
  std::uint32_t here[Chains];
  for (int c = 0; c < Chains; ++c) here[c] = at[c];
  for (std::size_t step = 0; step < steps; ++step) {
    for (int c = 0; c < Chains; ++c) here[c] = words[here[c]];  // unrolled: Chains is a constant
  }
  for (int c = 0; c < Chains; ++c) at[c] = here[c];
}

// walk_chains for a chain count known at run time (1, 2, 4, 8 or 16).
void walk_chains(int chains, const std::uint32_t* words, std::uint32_t* at, std::size_t steps);

// Sum of `count` words: the read every chase's bandwidth is a fraction of.
std::uint64_t read_words(const std::uint32_t* words, std::size_t count);

}  // namespace gpubench
