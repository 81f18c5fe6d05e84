#include "common/cuda_check.h"
#include "common/device_memory.h"
#include "kernels/memory/stream.cuh"
#include "kernels/memory/stream_bulk.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace gpubench {
namespace {

using kernels::StreamOp;

constexpr float kQ = 3.0f;
constexpr int kBlocks = 3;
constexpr int kThreads = 128;
// Not multiples of the grid or of the unrolled steps (4 or 8 x 384 threads), small and large.
const std::size_t kCounts[] = {1, 31, 383, 384, 1535, 1537, 3073, 100003};

// Small whole numbers: every sum and product below is exact in float, whatever the order.
std::vector<float> random_words(std::size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> value(0, 7);
  std::vector<float> words(n);
  for (float& w : words) w = static_cast<float>(value(rng));
  return words;
}

float expected(StreamOp op, float a, float b) {
  switch (op) {
    case StreamOp::kWrite: return kQ;
    case StreamOp::kCopy: return a;
    case StreamOp::kScale: return kQ * a;
    case StreamOp::kTriad: return a + kQ * b;
    case StreamOp::kRead: break;
  }
  return 0.0f;
}

// Claimed launches must leave the counter at zero for the next one.
void expect_claims_released(const DeviceBuffer<kernels::WorkClaims>& claims, const char* what) {
  const kernels::WorkClaims left = claims.download().front();
  EXPECT_EQ(left.next_tile, 0u) << what;
  EXPECT_EQ(left.claimers_done, 0u) << what;
}

// steps_per_tile > 0: tiles claimed by warps from a counter, launched twice (the second launch runs on
// the counter the first reset).
template <StreamOp Op, class T, int kUnroll>
void check(std::size_t count, unsigned steps_per_tile = 0) {
  const bool claimed = steps_per_tile > 0;
  constexpr std::size_t kWords = sizeof(T) / sizeof(float);
  std::mt19937 rng(static_cast<unsigned>(count * 7 + kWords));
  const std::vector<float> a = random_words(count * kWords, rng), b = random_words(count * kWords, rng);
  DeviceBuffer<float> da(a.size()), db(b.size()), dc(a.size()), partial(kBlocks * kThreads);
  da.upload(a);
  db.upload(b);
  dc.fill_bytes(0xFF);  // NaN wherever an element is not written
  partial.fill_bytes(0xFF);
  DeviceBuffer<CycleSpan> span(1);
  DeviceBuffer<kernels::WorkClaims> claims(1);
  claims.fill_bytes(0);
  const kernels::StreamArrays<T> arrays{reinterpret_cast<const T*>(da.data()), reinterpret_cast<const T*>(db.data()),
                                        reinterpret_cast<T*>(dc.data()), partial.data()};
  if (claimed) {
    for (int launch = 0; launch < 2; ++launch) {
      if (launch == 1) {
        dc.fill_bytes(0xFF);
        partial.fill_bytes(0xFF);
      }
      kernels::stream_claimed<Op, T, kUnroll>
          <<<kBlocks, kThreads>>>(arrays, count, kQ, steps_per_tile, claims.data(), Clocks{span.data()});
      GPUBENCH_CUDA_LAUNCHED();
      expect_claims_released(claims, "stream_claimed");
    }
  } else {
    kernels::stream<Op, T, kUnroll><<<kBlocks, kThreads>>>(arrays, count, kQ, Clocks{span.data()});
    GPUBENCH_CUDA_LAUNCHED();
  }
  if constexpr (Op == StreamOp::kRead) {
    const std::vector<float> sums = partial.download();
    EXPECT_EQ(std::accumulate(sums.begin(), sums.end(), 0.0), std::accumulate(a.begin(), a.end(), 0.0))
        << count << " elements of " << sizeof(T) << " bytes" << (claimed ? ", claimed" : "");
  } else {
    const std::vector<float> c = dc.download();
    for (std::size_t i = 0; i < c.size(); ++i)
      ASSERT_EQ(c[i], expected(Op, a[i], b[i])) << "word " << i << " of " << count << " elements of " << sizeof(T)
                                                << " bytes" << (claimed ? ", claimed" : "");
  }
}

template <StreamOp Op>
void check_every_width() {
  for (std::size_t count : kCounts) {
    check<Op, float, 4>(count);
    check<Op, float2, 4>(count);
    check<Op, float4, 4>(count);
    check<Op, float, 8>(count);
    check<Op, float4, 8>(count);
    check<Op, float, 4>(count, 1);
    check<Op, float2, 4>(count, 3);
    check<Op, float4, 8>(count, 2);
  }
}

TEST(StreamKernels, ReadSumsEveryElementOnce) {
  GPUBENCH_REQUIRE_GPU();
  check_every_width<StreamOp::kRead>();
}
TEST(StreamKernels, WriteFillsEveryElement) {
  GPUBENCH_REQUIRE_GPU();
  check_every_width<StreamOp::kWrite>();
}
TEST(StreamKernels, CopyCopiesEveryElement) {
  GPUBENCH_REQUIRE_GPU();
  check_every_width<StreamOp::kCopy>();
}
TEST(StreamKernels, ScaleScalesEveryElement) {
  GPUBENCH_REQUIRE_GPU();
  check_every_width<StreamOp::kScale>();
}
TEST(StreamKernels, TriadAddsEveryElement) {
  GPUBENCH_REQUIRE_GPU();
  check_every_width<StreamOp::kTriad>();
}

// The TMA copy: every byte arrives, none past the end is written, for sizes that leave a short last
// chunk, fewer chunks than blocks, and more chunks than stages per block; grid-stride and claimed
// (twice, on the counter the first launch reset).
template <int kStages>
void check_bulk(std::size_t bytes, unsigned chunk, int blocks, bool claimed = false) {
  std::vector<unsigned char> src(bytes);
  std::mt19937 rng(static_cast<unsigned>(bytes + chunk + kStages));
  for (unsigned char& byte : src) byte = static_cast<unsigned char>(rng());
  constexpr std::size_t kGuard = 256;
  DeviceBuffer<unsigned char> dsrc(bytes), ddst(bytes + kGuard);
  dsrc.upload(src);
  const int shared_bytes = kStages * static_cast<int>(chunk);
  GPUBENCH_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernels::stream_copy_bulk<kStages>),
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  DeviceBuffer<CycleSpan> span(1);
  DeviceBuffer<kernels::WorkClaims> claims(1);
  claims.fill_bytes(0);
  for (int launch = 0; launch < (claimed ? 2 : 1); ++launch) {
    ddst.fill_bytes(0xA5);
    kernels::stream_copy_bulk<kStages>
        <<<blocks, 32, shared_bytes>>>(reinterpret_cast<const char*>(dsrc.data()), reinterpret_cast<char*>(ddst.data()),
                                       bytes, chunk, claimed ? claims.data() : nullptr, Clocks{span.data()});
    GPUBENCH_CUDA_LAUNCHED();
    if (claimed) expect_claims_released(claims, "stream_copy_bulk");
    const std::vector<unsigned char> dst = ddst.download();
    for (std::size_t i = 0; i < bytes; ++i)
      ASSERT_EQ(dst[i], src[i]) << "byte " << i << " of " << bytes << ", chunk " << chunk << ", " << kStages
                                << " stages" << (claimed ? ", claimed, launch " + std::to_string(launch) : "");
    for (std::size_t i = bytes; i < dst.size(); ++i) ASSERT_EQ(dst[i], 0xA5) << "written past the end at " << i;
  }
}

TEST(StreamKernels, BulkCopyCopiesEveryByteAndNoMore) {
  GPUBENCH_REQUIRE_GPU();
  int major = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, GpuSession::get().device().index));
  if (major < 9) GTEST_SKIP() << "the TMA bulk copy needs sm_90 or newer";
  for (std::size_t bytes : {std::size_t{16}, std::size_t{4096}, std::size_t{4096 + 48}, std::size_t{3 * 4096 + 16},
                            std::size_t{100000}, std::size_t{(1 << 20) + 4096 + 32}}) {
    check_bulk<2>(bytes, 4096, 3);
    check_bulk<3>(bytes, 4096, 1);
    check_bulk<8>(bytes, 1024, 2);
    check_bulk<4>(bytes, 16384, 5);
    check_bulk<3>(bytes, 4096, 4, true);
    check_bulk<8>(bytes, 1024, 2, true);
  }
}

}  // namespace
}  // namespace gpubench
