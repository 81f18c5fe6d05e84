// The host's multi-chain walk lands where the cycle's order says, for every chain and every count.
#include "bench/memory/chase/host_parallel_chase.h"
#include "bench/memory/chase/pointer_chain.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace gpubench {
namespace {

TEST(HostParallelChase, EveryChainEndsWhereTheCycleOrderSays) {
  const ChaseChain chain = make_chase_chain(1 << 20, 64, 3);
  const std::vector<std::uint32_t> words = chase_words(chain);
  for (int chains : {1, 2, 4, 8, 16}) {
    for (std::size_t threads : {1u, 3u}) {
      const std::size_t total = threads * static_cast<std::size_t>(chains);
      const std::size_t spacing = chain.nodes / total;
      std::vector<std::uint32_t> at(total);
      for (std::size_t i = 0; i < total; ++i) at[i] = chase_end(chain, i * spacing, 0);
      for (std::size_t t = 0; t < threads; ++t) walk_chains(chains, words.data(), at.data() + t * chains, 777);
      for (std::size_t i = 0; i < total; ++i)
        EXPECT_EQ(at[i], chase_end(chain, i * spacing, 777)) << chains << " chains, chain " << i;
    }
  }
  std::uint32_t one = 0;
  EXPECT_THROW(walk_chains(3, words.data(), &one, 1), std::invalid_argument);  // no variant for 3
}

TEST(HostParallelChase, ReadSumsEveryWord) {
  std::vector<std::uint32_t> words(1000);
  std::iota(words.begin(), words.end(), 1u);
  EXPECT_EQ(read_words(words.data(), words.size()), 500500u);
}

}  // namespace
}  // namespace gpubench
