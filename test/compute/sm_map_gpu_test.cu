// The per-SM map's kernels give the answers the host computes for every block (the check preset verifies them
// in every run), and a flipped bit in one block's answers is found and pinned on that block's SM.
#include "bench/compute/sm_map_check.h"
#include "common/clocks.h"
#include "common/cuda_check.h"
#include "common/device_memory.h"
#include "kernels/compute/sm_map.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace gpubench {
namespace {

using kernels::SmRecord;
constexpr int kBlocks = 4;
constexpr int kThreads = kernels::kSmMapThreads;

template <class Answer>
std::vector<int> wrong_after(void (*kernel)(SmRecord*, Answer*, int, Clocks), int iterations, int shared_bytes,
                             const std::vector<Answer>& reference, std::vector<SmRecord>* records = nullptr,
                             bool flip = false) {
  DeviceBuffer<SmRecord> record(kBlocks);
  DeviceBuffer<Answer> answers(static_cast<std::size_t>(kBlocks) * kThreads);
  if (shared_bytes > 48 * 1024)
    GPUBENCH_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  kernel<<<kBlocks, kThreads, static_cast<std::size_t>(shared_bytes)>>>(record.data(), answers.data(), iterations,
                                                                        Clocks{});
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaDeviceSynchronize());
  std::vector<Answer> got = answers.download();
  if (flip) {  // bit 0 of thread 5's answer in block 2
    std::uint32_t bits;
    std::memcpy(&bits, &got[2 * kThreads + 5], sizeof bits);
    bits ^= 1u;
    std::memcpy(&got[2 * kThreads + 5], &bits, sizeof bits);
  }
  if (records) *records = record.download();
  return sm_map::wrong_per_block(got, reference);
}

TEST(SmMapGpu, FmaChainsEndWhereTheHostSays) {
  GPUBENCH_REQUIRE_GPU();
  std::vector<SmRecord> records;
  const std::vector<int> wrong = wrong_after(kernels::sm_map_fma, 64, 0, sm_map::fma_reference(kThreads, 64), &records);
  EXPECT_EQ(wrong, std::vector<int>(kBlocks, 0));
  for (const SmRecord& record : records) EXPECT_GT(record.cycles, 0u);
}

TEST(SmMapGpu, SharedSumsMatchTheHost) {
  GPUBENCH_REQUIRE_GPU();
  const int bytes = kernels::kSmMapSharedWords * static_cast<int>(sizeof(uint4));
  EXPECT_EQ(wrong_after(kernels::sm_map_shared, 16, bytes, sm_map::shared_reference(kThreads, 16)),
            std::vector<int>(kBlocks, 0));
}

TEST(SmMapGpu, TensorTilesMatchTheHost) {
  GPUBENCH_REQUIRE_GPU();
  EXPECT_EQ(wrong_after(kernels::sm_map_mma, 32, 0, sm_map::mma_reference(kThreads, 32)), std::vector<int>(kBlocks, 0));
}

TEST(SmMapGpu, AFlippedBitIsAWrongResultFromItsBlocksSm) {
  GPUBENCH_REQUIRE_GPU();
  std::vector<SmRecord> records;
  const std::vector<int> wrong =
      wrong_after(kernels::sm_map_fma, 64, 0, sm_map::fma_reference(kThreads, 64), &records, /*flip=*/true);
  EXPECT_EQ(wrong, (std::vector<int>{0, 0, 1, 0}));
  std::vector<sm_map::SmReading> readings;
  for (int b = 0; b < kBlocks; ++b) readings.push_back({records[b].sm, 1.0, wrong[b]});
  const sm_map::Map map = sm_map::make_map(readings, false, "the FP32 FMA map");
  EXPECT_EQ(map.wrong_sms, 1);
  EXPECT_NE(map.wrong_text.find("SM " + std::to_string(records[2].sm)), std::string::npos) << map.wrong_text;
}

TEST(SmMapGpu, EveryBlocksChaseEndsWhereTheHostSays) {
  GPUBENCH_REQUIRE_GPU();
  constexpr std::uint32_t kNodes = 1024;
  std::vector<std::uint32_t> order(kNodes);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937 random(7);
  std::shuffle(order.begin(), order.end(), random);
  std::vector<std::uint32_t> next(kNodes * kernels::kSmMapNodeWords, 0u);
  for (std::size_t i = 0; i < kNodes; ++i)
    next[order[i] * kernels::kSmMapNodeWords] = order[(i + 1) % kNodes] * kernels::kSmMapNodeWords;
  DeviceBuffer<std::uint32_t> chain(next.size());
  chain.upload(next);
  DeviceBuffer<SmRecord> records(kBlocks);
  DeviceBuffer<std::uint32_t> ends(kBlocks);
  kernels::sm_map_l2_chase<<<kBlocks, 32>>>(records.data(), chain.data(), kNodes, 300, ends.data(), Clocks{});
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaDeviceSynchronize());
  const std::vector<SmRecord> got_records = records.download();
  const std::vector<std::uint32_t> got_ends = ends.download();
  for (int b = 0; b < kBlocks; ++b) {
    const std::uint32_t start = kernels::sm_map_chase_start(got_records[b].sm, kNodes);
    EXPECT_EQ(got_ends[b], sm_map::chase_end(next, start, 300)) << "block " << b;
    EXPECT_GT(got_records[b].cycles, 300u * 20u) << "block " << b;  // 300 dependent loads of 20+ cycles each
  }
}

}  // namespace
}  // namespace gpubench
