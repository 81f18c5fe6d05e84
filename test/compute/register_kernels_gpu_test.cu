// The register matmul in every order, the register-bank FFMA kernels in every bank pattern, and the
// register-pressure kernels at every register count, against host references.
#include "common/device_memory.h"
#include "kernels/compute/register_banks.cuh"
#include "kernels/compute/register_matmul.cuh"
#include "kernels/compute/register_pressure.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace gpubench {
namespace {

template <kernels::MatmulOrder Order>
void check_matmul_order(const char* name) {
  constexpr int N = kernels::kMatmulN, kThreads = 32, kReps = 3;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> in(kThreads * 2 * N * N);
  for (float& v : in) v = value(rng);
  DeviceBuffer<float> in_d(in.size()), out(kThreads * N * N);
  in_d.upload(in);
  out.fill_bytes(0xFF);
  DeviceBuffer<CycleSpan> span(1);
  kernels::register_matmul<Order><<<1, kThreads>>>(in_d.data(), out.data(), kReps, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<float> got = out.download();
  for (int t = 0; t < kThreads; ++t) {
    const float* a = &in[t * 2 * N * N];
    const float* b = a + N * N;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) {
        double want = 0.0;
        for (int k = 0; k < N; ++k) want += static_cast<double>(a[i * N + k]) * b[k * N + j];
        ASSERT_NEAR(got[t * N * N + i * N + j], kReps * want, 1e-5)
            << name << " thread " << t << " C[" << i << "][" << j << "]";
      }
  }
}

TEST(RegisterMatmul, EveryOrderComputesTheProduct) {
  GPUBENCH_REQUIRE_GPU();
  check_matmul_order<kernels::MatmulOrder::kIjk>("ijk");
  check_matmul_order<kernels::MatmulOrder::kKij>("kij");
  check_matmul_order<kernels::MatmulOrder::kKijSkewed>("kij skewed");
}

float& host_lane(float4& quad, int lane) {
  return lane == 0 ? quad.x : lane == 1 ? quad.y : lane == 2 ? quad.z : quad.w;
}

// Each FFMA is fma.rn.f32, so the host's fmaf in the same order gives the same bits; lanes the kernel
// does not write come back as they went in.
template <int CLane, int ALane, int BLane>
void check_register_banks(const char* name) {
  constexpr int kThreads = 64, kReps = 5;  // two warps: each thread's quads at its own place
  constexpr int kQuads = kernels::kBankQuadsPerThread, kAcc = kernels::kBankAccumulators;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float4> in(kThreads * kQuads);
  for (float4& v : in) v = make_float4(value(rng), value(rng), value(rng), value(rng));
  DeviceBuffer<float4> in_d(in.size()), out(in.size());
  in_d.upload(in);
  out.fill_bytes(0xFF);
  DeviceBuffer<CycleSpan> span(1);
  kernels::ffma_register_banks<CLane, ALane, BLane>
      <<<1, kThreads>>>(in_d.data(), out.data(), kReps, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  std::vector<float4> got = out.download();
  for (int t = 0; t < kThreads; ++t) {
    std::vector<float4> acc(in.begin() + t * kQuads, in.begin() + t * kQuads + kAcc);
    std::vector<float4> src(in.begin() + t * kQuads + kAcc, in.begin() + (t + 1) * kQuads);
    for (int r = 0; r < kReps; ++r)
      for (int k = 0; k < kernels::kBankFmasPerRep; ++k) {
        float& c = host_lane(acc[k % kAcc], CLane);
        c = std::fmaf(host_lane(src[(k % 4) * 2], ALane), host_lane(src[(k % 4) * 2 + 1], BLane), c);
      }
    acc.insert(acc.end(), src.begin(), src.end());  // the sources come back unchanged
    for (int i = 0; i < kQuads; ++i)
      for (int lane = 0; lane < 4; ++lane)
        ASSERT_EQ(host_lane(got[t * kQuads + i], lane), host_lane(acc[i], lane))
            << name << " thread " << t << " quad " << i << " lane " << lane;
  }
}

TEST(RegisterBanks, EveryBankPatternComputesItsFmas) {
  GPUBENCH_REQUIRE_GPU();
  check_register_banks<0, 0, 0>("one bank");
  check_register_banks<0, 2, 0>("even registers");
  check_register_banks<0, 1, 2>("spread");
}

template <int Live>
void check_register_pressure() {
  constexpr int kBlocks = 3;
  constexpr std::size_t kCount = 10007;  // not a multiple of the grid
  std::vector<float> in(kCount);
  for (std::size_t i = 0; i < kCount; ++i) in[i] = static_cast<float>(i % 7);  // small integers: sums exact
  DeviceBuffer<float> in_d(kCount), out(kBlocks * kernels::kPressureBlock);
  in_d.upload(in);
  out.fill_bytes(0xFF);
  DeviceBuffer<CycleSpan> span(1);
  kernels::register_pressure<Live>
      <<<kBlocks, kernels::kPressureBlock>>>(in_d.data(), kCount, out.data(), Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<float> got = out.download();
  const std::size_t stride = kBlocks * kernels::kPressureBlock;
  for (std::size_t thread = 0; thread < stride; ++thread) {
    float sum = 0.0f;
    for (std::size_t i = thread; i < kCount; i += stride) sum += in[i];
    for (int k = 0; k < Live; ++k) sum += in[(thread + static_cast<std::size_t>(k) * 7919) % kCount];
    ASSERT_EQ(got[thread], sum) << Live << " live values, thread " << thread;
  }
}

TEST(RegisterPressure, SameStreamSumWhateverTheRegisterCountOrSpills) {
  GPUBENCH_REQUIRE_GPU();
  check_register_pressure<1>();
  check_register_pressure<64>();
  check_register_pressure<240>();
  check_register_pressure<288>();  // spills to local memory
}

TEST(RegisterPressure, SeedKernelsComputeTheirValues) {
  GPUBENCH_REQUIRE_GPU();
  DeviceBuffer<float> out(256);
  out.fill_bytes(0xFF);  // the lean kernel writes only its first 200
  DeviceBuffer<CycleSpan> span(1);
  kernels::seed_lean<<<1, 256>>>(out.data(), 200, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<float> lean = out.download();
  for (int t = 0; t < 200; ++t) ASSERT_EQ(lean[t], t * 1.0f + 10.0f);
  kernels::seed_fat<<<1, 256>>>(out.data(), 256, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<float> fat = out.download();
  for (int t = 0; t < 256; t += 51) {
    std::vector<double> vals(128);
    for (int i = 0; i < 128; ++i) vals[i] = t * 0.0001 + i;
    for (int k = 0; k < 5; ++k)
      for (int i = 0; i < 128; ++i) vals[i] += vals[(i + 64) % 128] * 0.001;
    double sum = 0.0;
    for (double v : vals) sum += v;
    ASSERT_NEAR(fat[t], sum, 1e-2) << "thread " << t;  // float vs double over ~1300 operations
  }
}

}  // namespace
}  // namespace gpubench
