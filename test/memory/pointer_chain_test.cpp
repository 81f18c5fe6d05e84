#include "bench/memory/chase/pointer_chain.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

TEST(PointerChain, IsOneCycleThroughEveryNode) {
  for (std::size_t stride : {4u, 32u, 128u, 4096u}) {
    const ChaseChain chain = make_chase_chain(stride * 1000 + stride / 2, stride, 42);  // partial node ignored
    ASSERT_EQ(chain.nodes, 1000u);
    const std::vector<std::uint32_t> words = chase_words(chain);
    ASSERT_EQ(words.size(), 1000u * stride / 4);
    std::vector<bool> seen(chain.nodes, false);
    std::uint32_t at = 0;
    for (std::size_t step = 0; step < chain.nodes; ++step) {
      ASSERT_EQ(at % chain.stride_words, 0u) << "lands off a node at stride " << stride;
      const std::size_t node = at / chain.stride_words;
      ASSERT_FALSE(seen[node]) << "node " << node << " visited twice before the cycle closed";
      ASSERT_EQ(chain.order[step], node) << "order[] must list the nodes as the walk meets them";
      seen[node] = true;
      at = words[at];
    }
    EXPECT_EQ(at, 0u) << "the cycle must close after visiting every node once";
  }
}

TEST(PointerChain, WordsBetweenNodesAreZeroAndIndicesStayInside) {
  const std::vector<std::uint32_t> words = chase_words(make_chase_chain(128 * 64, 128, 7));
  for (std::size_t w = 0; w < words.size(); ++w) {
    if (w % 32 != 0) {
      EXPECT_EQ(words[w], 0u);
    }
    EXPECT_LT(words[w], words.size());
  }
}

TEST(PointerChain, SameSeedSameChainOtherSeedOtherChain) {
  EXPECT_EQ(make_chase_chain(1 << 16, 128, 1).next, make_chase_chain(1 << 16, 128, 1).next);
  EXPECT_NE(make_chase_chain(1 << 16, 128, 1).next, make_chase_chain(1 << 16, 128, 2).next);
}

TEST(PointerChain, ShuffleIsNotTheIdentity) {
  // A chain that walks memory in order would let prefetchers and DRAM row hits fake a low latency.
  const ChaseChain chain = make_chase_chain(128 * 4096, 128, 9);
  std::size_t in_order = 0;
  for (std::size_t n = 0; n < chain.nodes; ++n) in_order += chain.next[n] == (n + 1) % chain.nodes;
  EXPECT_LT(in_order, 10u);
}

TEST(PointerChain, ChaseFollowsTheLinks) {
  const ChaseChain chain = make_chase_chain(32 * 100, 32, 3);
  const std::vector<std::uint32_t> words = chase_words(chain);
  std::uint32_t by_hand = 0;
  for (int i = 0; i < 250; ++i) by_hand = words[by_hand];
  EXPECT_EQ(chase(words, 0, 250), by_hand);
  EXPECT_EQ(chase_end(chain, 0, 250), by_hand);
  EXPECT_EQ(chase_end(chain, 17, 40), chase(words, chain.order[17] * 8u, 40));
  EXPECT_EQ(chase(words, 0, chain.nodes * 3), 0u);  // whole cycles return to the start
}

TEST(PointerChain, RejectsBadGeometry) {
  EXPECT_THROW(make_chase_chain(4096, 0, 1), std::invalid_argument);
  EXPECT_THROW(make_chase_chain(4096, 6, 1), std::invalid_argument);
  EXPECT_THROW(make_chase_chain(100, 128, 1), std::invalid_argument);
  EXPECT_THROW(chase_words(make_chase_chain(std::size_t{16} << 30, 2 << 20, 1)), std::invalid_argument);  // 2^32 words
}

TEST(PointerChain, PageStridedSetsStaySmallOnTheHost) {
  const ChaseChain chain = make_chase_chain(std::size_t{128} << 30, 2 << 20, 1);  // TLB sweep's largest
  EXPECT_EQ(chain.nodes, 65536u);
  EXPECT_EQ(chain.next.size(), 65536u);
  EXPECT_EQ(chain.word_count(), (std::size_t{128} << 30) / 4);
}

}  // namespace
}  // namespace gpubench
