#include "common/pointer_chain.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

TEST(PointerChain, IsOneCycleThroughEveryNode) {
  for (std::size_t stride : {4u, 32u, 128u, 4096u}) {
    const ChaseChain chain = make_chase_chain(stride * 1000 + stride / 2, stride, 42);  // partial node ignored
    ASSERT_EQ(chain.nodes, 1000u);
    std::vector<bool> seen(chain.nodes, false);
    std::uint32_t at = 0;
    for (std::size_t step = 0; step < chain.nodes; ++step) {
      ASSERT_EQ(at % chain.stride_words, 0u) << "lands off a node at stride " << stride;
      const std::size_t node = at / chain.stride_words;
      ASSERT_FALSE(seen[node]) << "node " << node << " visited twice before the cycle closed";
      seen[node] = true;
      at = chain.words[at];
    }
    EXPECT_EQ(at, 0u) << "the cycle must close after visiting every node once";
  }
}

TEST(PointerChain, WordsBetweenNodesAreZeroAndIndicesStayInside) {
  const ChaseChain chain = make_chase_chain(128 * 64, 128, 7);
  for (std::size_t w = 0; w < chain.words.size(); ++w) {
    if (w % chain.stride_words != 0) {
      EXPECT_EQ(chain.words[w], 0u);
    }
    EXPECT_LT(chain.words[w], chain.words.size());
  }
}

TEST(PointerChain, SameSeedSameChainOtherSeedOtherChain) {
  EXPECT_EQ(make_chase_chain(1 << 16, 128, 1).words, make_chase_chain(1 << 16, 128, 1).words);
  EXPECT_NE(make_chase_chain(1 << 16, 128, 1).words, make_chase_chain(1 << 16, 128, 2).words);
}

TEST(PointerChain, ChaseFollowsTheLinks) {
  const ChaseChain chain = make_chase_chain(32 * 100, 32, 3);
  std::uint32_t by_hand = 0;
  for (int i = 0; i < 250; ++i) by_hand = chain.words[by_hand];
  EXPECT_EQ(chase(chain.words, 0, 250), by_hand);
  EXPECT_EQ(chase(chain.words, 0, chain.nodes * 3), 0u);  // whole cycles return to the start
}

TEST(PointerChain, RejectsBadGeometry) {
  EXPECT_THROW(make_chase_chain(4096, 0, 1), std::invalid_argument);
  EXPECT_THROW(make_chase_chain(4096, 6, 1), std::invalid_argument);
  EXPECT_THROW(make_chase_chain(100, 128, 1), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench
