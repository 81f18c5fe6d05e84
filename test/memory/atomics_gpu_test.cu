// Atomics kernels against a host reference: every add reached its counter, and atom handed out each
// old value once (the tickets of a counter's n adds sum to 0 + 1 + ... + n - 1).
#include "common/detail/gpu_session.h"
#include "common/device_memory.h"
#include "kernels/memory/atomics.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

namespace gpubench {
namespace {

using kernels::AtomicOp;
using kernels::AtomicSharing;

constexpr int kBlocks = 3;
constexpr int kThreads = kBlocks * kernels::kAtomicThreads;
constexpr int kIterations = 2 * kernels::kAtomicUnroll;
constexpr int kWidths[] = {1, 2, 3, 4, 8, 16, 32};  // 3: lanes that share a counter need not divide 32

// Which counter (index into the counters buffer) each thread adds to, as the kernels compute it.
std::vector<unsigned> counter_of_threads(int lanes_per_address, bool per_gpu) {
  std::vector<unsigned> counter(kThreads);
  for (unsigned t = 0; t < kThreads; ++t)
    counter[t] = kernels::atomic_word_of_lane(t % 32, lanes_per_address) + (per_gpu ? 0 : t / 32 * 32);
  return counter;
}

// Each counter's expected value, and whether each counter's tickets sum as n adds must.
void expect_adds_and_tickets(const std::vector<unsigned>& counters, const std::vector<unsigned>& tickets,
                             const std::vector<unsigned>& counter_of, bool returns_old, const char* what) {
  std::map<unsigned, std::uint32_t> adds, ticket_sums;
  for (unsigned t = 0; t < kThreads; ++t) {
    adds[counter_of[t]] += kIterations;
    ticket_sums[counter_of[t]] += tickets[t];
  }
  for (unsigned c = 0; c < counters.size(); ++c) {
    const std::uint32_t n = adds.count(c) ? adds[c] : 0;
    EXPECT_EQ(counters[c], n) << what << ": counter " << c;
    if (n == 0) continue;
    const std::uint32_t expected = returns_old ? static_cast<std::uint32_t>(std::uint64_t{n} * (n - 1) / 2) : 0u;
    EXPECT_EQ(ticket_sums[c], expected) << what << ": tickets of counter " << c;
  }
}

class AtomicsKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUBENCH_REQUIRE_GPU();
    counters_ = DeviceBuffer<unsigned>(kThreads);
    tickets_ = DeviceBuffer<unsigned>(kThreads);
    span_ = DeviceBuffer<CycleSpan>(1);
    span_.fill_bytes(0);
  }
  void reset() {
    counters_.fill_bytes(0);    // global counters count from zero
    tickets_.fill_bytes(0xAB);  // poison: a thread that never wrote its sum cannot pass
  }
  template <AtomicOp Op>
  void check_global(AtomicSharing sharing, const char* what) {
    for (int width : kWidths) {
      reset();
      kernels::atomic_add_global<Op><<<kBlocks, kernels::kAtomicThreads>>>(counters_.data(), tickets_.data(), width,
                                                                           sharing, kIterations, Clocks{span_.data()});
      GPUBENCH_CUDA_LAUNCHED();
      SCOPED_TRACE(::testing::Message() << width << " lanes per address");
      expect_adds_and_tickets(counters_.download(), tickets_.download(),
                              counter_of_threads(width, sharing == AtomicSharing::kPerGpu), Op == AtomicOp::kAtom,
                              what);
    }
  }
  template <AtomicOp Op>
  void check_shared(const char* what) {
    for (int width : kWidths) {
      counters_.fill_bytes(0xCD);  // the kernel copies every shared counter out: a stale one cannot pass
      tickets_.fill_bytes(0xAB);
      kernels::atomic_add_shared<Op><<<kBlocks, kernels::kAtomicThreads>>>(counters_.data(), tickets_.data(), width,
                                                                           kIterations, Clocks{span_.data()});
      GPUBENCH_CUDA_LAUNCHED();
      SCOPED_TRACE(::testing::Message() << width << " lanes per address");
      expect_adds_and_tickets(counters_.download(), tickets_.download(), counter_of_threads(width, false),
                              Op == AtomicOp::kAtom, what);
    }
  }
  DeviceBuffer<unsigned> counters_, tickets_;
  DeviceBuffer<CycleSpan> span_;
};

TEST_F(AtomicsKernel, GlobalRedPerWarpCountsEveryAdd) { check_global<AtomicOp::kRed>(AtomicSharing::kPerWarp, "red"); }
TEST_F(AtomicsKernel, GlobalRedPerGpuCountsEveryAdd) { check_global<AtomicOp::kRed>(AtomicSharing::kPerGpu, "red"); }
TEST_F(AtomicsKernel, GlobalAtomPerWarpHandsOutEachTicketOnce) {
  check_global<AtomicOp::kAtom>(AtomicSharing::kPerWarp, "atom");
}
TEST_F(AtomicsKernel, GlobalAtomPerGpuHandsOutEachTicketOnce) {
  check_global<AtomicOp::kAtom>(AtomicSharing::kPerGpu, "atom");
}
TEST_F(AtomicsKernel, SharedRedCountsEveryAdd) { check_shared<AtomicOp::kRed>("shared red"); }
TEST_F(AtomicsKernel, SharedAtomHandsOutEachTicketOnce) { check_shared<AtomicOp::kAtom>("shared atom"); }

TEST_F(AtomicsKernel, RecordsAForwardCycleSpan) {
  reset();
  kernels::atomic_add_global<AtomicOp::kAtom><<<kBlocks, kernels::kAtomicThreads>>>(
      counters_.data(), tickets_.data(), 4, AtomicSharing::kPerWarp, kIterations, Clocks{span_.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const CycleSpan span = span_.download().front();
  EXPECT_GT(span.stop_clock, span.start_clock);
}

}  // namespace
}  // namespace gpubench
