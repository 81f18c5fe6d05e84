// The asynchronous-copy kernels move what they say: TMA, bulk and cp.async chases end where the
// host's chase of the same chain ends (so every copy brought the right bytes to the right place);
// the bandwidth kernels land every tile or word they count, checked through what they read back.
#include "bench/memory/chase/device_chain.cuh"
#include "bench/memory/tensor_map.h"
#include "common/device_memory.h"
#include "kernels/memory/async_copy.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

namespace gpubench {
namespace {

using kernels::CopyVia;
using kernels::TmaStep;

int compute_major() {
  int device = 0, major = 0;
  GPUBENCH_CUDA(cudaGetDevice(&device));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major;
}

#define GPUBENCH_REQUIRE_MAJOR(major, what)                                                         \
  do {                                                                                              \
    GPUBENCH_REQUIRE_GPU();                                                                         \
    if (compute_major() < (major)) GTEST_SKIP() << what << " needs sm_" << (major) << "0 or newer"; \
  } while (0)

constexpr std::uint32_t kWarmup = 20, kSteps = 100;

template <TmaStep Step>
void check_tma_chase(std::uint32_t tile) {
  DeviceChain chain(256 << 10, tile, tile, 1, nullptr);
  const CUtensorMap map = row_tile_map(chain.words(), (256 << 10) / 128, tile / 128);
  DeviceBuffer<std::uint32_t> position = chain.position_at(0);
  DeviceBuffer<CycleSpan> span(1);
  span.fill_bytes(0);
  kernels::tma_chase<Step><<<1, 1, tile + 128>>>(map, reinterpret_cast<const char*>(chain.words()), tile, tile / 128,
                                                 position.data(), kWarmup, kSteps, Clocks{span.data()}, kernels::kAnySm,
                                                 nullptr, 0);
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_NO_THROW(chain.expect_walked(position, 0, kWarmup + kSteps))
      << (Step == TmaStep::kTensor ? "tensor" : "bulk") << " tile of " << tile << " bytes";
  const CycleSpan stamps = span.download().front();
  EXPECT_GT(stamps.stop_clock, stamps.start_clock);
}

TEST(AsyncCopyKernels, TmaChasesEndWhereTheHostSays) {
  GPUBENCH_REQUIRE_MAJOR(9, "the TMA");
  for (std::uint32_t tile : {128u, 1024u, 32768u}) {
    check_tma_chase<TmaStep::kTensor>(tile);
    check_tma_chase<TmaStep::kBulk>(tile);
  }
  // Nothing copied: the barrier steps still complete, one phase each, and the chase finishes.
  DeviceChain chain(4 << 10, 128, 128, 1, nullptr);
  const CUtensorMap map = row_tile_map(chain.words(), 32, 1);
  DeviceBuffer<std::uint32_t> position(2);
  position.fill_bytes(0);
  kernels::tma_chase<TmaStep::kBarrierOnly>
      <<<1, 1, 256>>>(map, nullptr, 128, 1, position.data(), kWarmup, kSteps, Clocks{}, kernels::kAnySm, nullptr, 0);
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_GT(position.download()[1], 0u) << "the barrier-only chase did not finish";
}

// Rows of 32 words; word 0 of row r holds r, so tile t's first word is t x rows per tile.
TEST(AsyncCopyKernels, TmaStreamLandsEveryTileOfEveryBlock) {
  GPUBENCH_REQUIRE_MAJOR(9, "the TMA");
  constexpr std::uint32_t kTiles = 40, kBlocks = 3, kPasses = 2;
  for (std::uint32_t tile : {1024u, 4096u})
    for (std::uint32_t stages : {1u, 2u, 4u}) {
      const std::uint32_t box_rows = tile / 128, rows = kTiles * box_rows;
      std::vector<std::uint32_t> host(static_cast<std::size_t>(rows) * 32, 7u);
      for (std::uint32_t r = 0; r < rows; ++r) host[r * 32] = r;
      DeviceBuffer<std::uint32_t> source(host.size());
      source.upload(host);
      const CUtensorMap map = row_tile_map(source.data(), rows, box_rows);
      DeviceBuffer<std::uint32_t> sums(kBlocks);
      sums.fill_bytes(0xFF);
      const int shared = static_cast<int>(stages * tile + 128);
      GPUBENCH_CUDA(cudaFuncSetAttribute(kernels::tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
      kernels::tma_stream<<<kBlocks, 32, shared>>>(map, kTiles, box_rows, stages, kPasses, sums.data(), Clocks{});
      GPUBENCH_CUDA_LAUNCHED();
      const std::vector<std::uint32_t> got = sums.download();
      for (std::uint32_t b = 0; b < kBlocks; ++b) {
        std::uint32_t want = 0;
        for (std::uint32_t t = b; t < kTiles; t += kBlocks) want += t * box_rows;
        EXPECT_EQ(got[b], want * kPasses) << "tile " << tile << ", " << stages << " stages, block " << b;
      }
    }
}

template <CopyVia Via, int Width>
void check_copy_chase(const char* name) {
  DeviceChain chain(64 << 10, 128, 4, 1, nullptr);
  DeviceBuffer<std::uint32_t> position = chain.position_at(0);
  kernels::copy_chase<Via, Width>
      <<<1, 1>>>(chain.words(), position.data(), kWarmup, kSteps, Clocks{}, kernels::kAnySm, nullptr, 0);
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_NO_THROW(chain.expect_walked(position, 0, kWarmup + kSteps)) << name << ", " << Width << " bytes";
}

TEST(AsyncCopyKernels, CopyChasesEndWhereTheHostSays) {
  GPUBENCH_REQUIRE_MAJOR(8, "cp.async");
  check_copy_chase<CopyVia::kLoadStoreCa, 4>("ld.ca + st.shared");
  check_copy_chase<CopyVia::kLoadStoreCa, 8>("ld.ca + st.shared");
  check_copy_chase<CopyVia::kLoadStoreCa, 16>("ld.ca + st.shared");
  check_copy_chase<CopyVia::kLoadStoreCg, 16>("ld.cg + st.shared");
  check_copy_chase<CopyVia::kCpAsyncCa, 4>("cp.async.ca");
  check_copy_chase<CopyVia::kCpAsyncCa, 8>("cp.async.ca");
  check_copy_chase<CopyVia::kCpAsyncCa, 16>("cp.async.ca");
  check_copy_chase<CopyVia::kCpAsyncCg, 16>("cp.async.cg");
}

// Word i of the source holds i; a partial last chunk is not copied.
template <CopyVia Via, int Width>
void check_copy_stream(const char* name) {
  constexpr std::uint32_t kThreads = 64, kBlocks = 3, kPasses = 2, kChunks = 11;
  constexpr std::size_t kChunkBytes = kThreads * Width;
  constexpr std::size_t kBytes = kChunks * kChunkBytes + 3 * Width;
  std::vector<std::uint32_t> host(kBytes / 4);
  std::iota(host.begin(), host.end(), 0u);
  DeviceBuffer<std::uint32_t> source(host.size());
  source.upload(host);
  DeviceBuffer<std::uint32_t> sums(kBlocks * kThreads);
  sums.fill_bytes(0xFF);
  kernels::copy_stream<Via, Width><<<kBlocks, kThreads, kernels::kCopyStages * kThreads * Width>>>(
      reinterpret_cast<const char*>(source.data()), kBytes, kPasses, sums.data(), Clocks{});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<std::uint32_t> got = sums.download();
  for (std::uint32_t b = 0; b < kBlocks; ++b)
    for (std::uint32_t t = 0; t < kThreads; ++t) {
      std::uint32_t want = 0;
      for (std::uint32_t c = b; c < kChunks; c += kBlocks)
        want += static_cast<std::uint32_t>((c * kChunkBytes + t * Width) / 4);
      ASSERT_EQ(got[b * kThreads + t], want * kPasses)
          << name << ", " << Width << " bytes: block " << b << ", thread " << t;
    }
}

TEST(AsyncCopyKernels, CopyStreamsLandEveryWord) {
  GPUBENCH_REQUIRE_MAJOR(8, "cp.async");
  check_copy_stream<CopyVia::kLoadStoreCa, 4>("ld.ca + st.shared");
  check_copy_stream<CopyVia::kLoadStoreCa, 16>("ld.ca + st.shared");
  check_copy_stream<CopyVia::kLoadStoreCg, 8>("ld.cg + st.shared");
  check_copy_stream<CopyVia::kCpAsyncCa, 4>("cp.async.ca");
  check_copy_stream<CopyVia::kCpAsyncCa, 8>("cp.async.ca");
  check_copy_stream<CopyVia::kCpAsyncCa, 16>("cp.async.ca");
  check_copy_stream<CopyVia::kCpAsyncCg, 16>("cp.async.cg");
}

}  // namespace
}  // namespace gpubench
