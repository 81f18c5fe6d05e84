// Every tensor-core kernel the TensorCore rows time computes D = C + times x (A x B) with the fragment
// and shared-memory layouts bench/compute/tensor_operands.cu gives: small integers make every sum
// exact in every format, so the comparison is exact and a misplaced element cannot hide.
#include "bench/compute/tensor_operands.h"
#include "common/device_memory.h"
#include "kernels/compute/mma_sync.cuh"
#include "kernels/compute/wgmma.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace gpubench {
namespace {

int device_sm() {
  int device = 0, major = 0, minor = 0;
  GPUBENCH_CUDA(cudaGetDevice(&device));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

// The first element that differs, or "" when the matrices are equal.
std::string first_difference(const Matrix& got, const Matrix& want) {
  for (int r = 0; r < want.rows; ++r)
    for (int c = 0; c < want.cols; ++c)
      if (got.at(r, c) != want.at(r, c))
        return "D[" + std::to_string(r) + "][" + std::to_string(c) + "] = " + std::to_string(got.at(r, c)) + ", want " +
               std::to_string(want.at(r, c));
  return "";
}

// Two warps, two chains each, reps = 1: every chain ends at C + kMmaUnroll x (A x B).
template <class Mma>
void check_mma_sync(std::mt19937& rng, int sm, std::vector<std::string>& skipped) {
  const TensorShape shape = Mma::info;
  if (sm < shape.min_sm || !compiled_here(reinterpret_cast<const void*>(kernels::mma_compiled<Mma>))) {
    skipped.push_back(shape.name);
    return;
  }
  constexpr int kWarps = 2, kChains = 2;
  const Matrix a = make_matrix(shape.m, shape.k, shape.input, Fill::kSmallIntegers, rng);
  const Matrix b = make_matrix(shape.k, shape.n, shape.input, Fill::kSmallIntegers, rng);
  const Matrix c = make_matrix(shape.m, shape.n, shape.input, Fill::kSmallIntegers, rng);
  auto a_d = upload_words(mma_a_fragments(shape, a)), b_d = upload_words(mma_b_fragments(shape, b));
  auto c_d = upload_words(mma_c_fragments(shape, c));
  constexpr int kWordsPerLane = Mma::acc_regs * sizeof(typename Mma::Acc) / 4;
  DeviceBuffer<std::uint32_t> out(kWarps * 32 * kChains * kWordsPerLane);
  out.fill_bytes(0xFF);
  DeviceBuffer<CycleSpan> span(1);
  using Reg = typename Mma::Reg;
  using Acc = typename Mma::Acc;
  kernels::mma_sync_loop<Mma, kChains><<<1, kWarps * 32>>>(
      reinterpret_cast<const Reg*>(a_d.data()), reinterpret_cast<const Reg*>(b_d.data()),
      reinterpret_cast<const Acc*>(c_d.data()), reinterpret_cast<Acc*>(out.data()), 1, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<std::uint32_t> words = out.download();
  const Matrix want = reference_product(a, b, c, kernels::kMmaUnroll);
  for (int warp = 0; warp < kWarps; ++warp)
    for (int chain = 0; chain < kChains; ++chain) {
      std::vector<std::uint32_t> lanes;
      for (int lane = 0; lane < 32; ++lane) {
        const auto at = words.begin() + ((warp * 32 + lane) * kChains + chain) * kWordsPerLane;
        lanes.insert(lanes.end(), at, at + kWordsPerLane);
      }
      EXPECT_EQ(first_difference(mma_d_matrix(shape, lanes), want), "")
          << "mma.sync " << shape.name << ", warp " << warp << ", chain " << chain;
    }
}

TEST(TensorCore, MmaSyncEveryPrecisionComputesCPlusAxB) {
  GPUBENCH_REQUIRE_GPU();
  std::mt19937 rng(std::random_device{}());
  const int sm = device_sm();
  std::vector<std::string> skipped;
  kernels::MmaInstructions::for_each(
      [&](auto instruction) { check_mma_sync<decltype(instruction)>(rng, sm, skipped); });
  if (sm >= 89) EXPECT_TRUE(skipped.empty()) << "this build lacks mma.sync code for sm_" << sm;
  for (const std::string& name : skipped)
    std::printf("mma.sync %s: not on sm_%d (or not in this build)\n", name.c_str(), sm);
}

// Two warpgroups in one block; the latency kernel with 3 groups (3 instructions), the throughput
// kernel with 2 groups of kWgmmaPerGroup.
template <class Op, bool RegisterA, int N>
void check_wgmma(std::mt19937& rng) {
  const TensorShape shape = Op::info;
  constexpr int kWarpgroups = 2, kThreads = kWarpgroups * kernels::kWgmmaThreads;
  const Matrix a = make_matrix(kernels::kWgmmaM, shape.k, shape.input, Fill::kSmallIntegers, rng);
  const Matrix b = make_matrix(shape.k, N, shape.input, Fill::kSmallIntegers, rng);
  const Matrix c = make_matrix(kernels::kWgmmaM, N, shape.input, Fill::kSmallIntegers, rng);
  auto a_tile = upload_words(wgmma_a_tile(shape.input, a)), b_tile = upload_words(wgmma_b_tile(shape.input, b));
  auto a_frags = upload_words(RegisterA ? wgmma_a_fragments(shape, a) : std::vector<std::uint32_t>(4 * 128));
  auto c_frags = upload_words(wgmma_c_fragments(shape.accumulator, c));
  DeviceBuffer<std::uint32_t> out(kThreads * N / 2);
  DeviceBuffer<CycleSpan> span(1);
  using Acc = typename Op::Acc;
  for (const bool latency : {true, false}) {
    out.fill_bytes(0xFF);
    const int groups = latency ? 3 : 2;
    const int times = latency ? 3 : 2 * kernels::kWgmmaPerGroup;
    const auto kernel =
        latency ? kernels::wgmma_loop<Op, N, RegisterA, true> : kernels::wgmma_loop<Op, N, RegisterA, false>;
    kernel<<<1, kThreads>>>(
        reinterpret_cast<const uint4*>(a_tile.data()), reinterpret_cast<const uint4*>(b_tile.data()), a_frags.data(),
        reinterpret_cast<const Acc*>(c_frags.data()), reinterpret_cast<Acc*>(out.data()), groups, Clocks{span.data()});
    GPUBENCH_CUDA_LAUNCHED();
    const std::vector<std::uint32_t> words = out.download();
    const Matrix want = reference_product(a, b, c, times);
    for (int wg = 0; wg < kWarpgroups; ++wg) {
      const std::vector<std::uint32_t> mine(words.begin() + wg * 128 * (N / 2),
                                            words.begin() + (wg + 1) * 128 * (N / 2));
      EXPECT_EQ(first_difference(wgmma_d_matrix(shape.accumulator, N, mine), want), "")
          << "wgmma " << shape.name << (RegisterA ? " A in registers" : " A in shared memory") << ", N " << N
          << (latency ? ", latency loop" : ", throughput loop") << ", warpgroup " << wg;
    }
  }
}

TEST(TensorCore, WgmmaEveryRowComputesCPlusAxB) {
  GPUBENCH_REQUIRE_GPU();
  if (device_sm() != 90) GTEST_SKIP() << "wgmma is sm_90a's; this GPU is sm_" << device_sm();
  if (!compiled_here(reinterpret_cast<const void*>(kernels::wgmma_compiled<kernels::WgmmaF16F32>)))
    GTEST_SKIP() << "this build has no sm_90a code (configure with CMAKE_CUDA_ARCHITECTURES=90a-real)";
  std::mt19937 rng(std::random_device{}());
  using namespace kernels;
  check_wgmma<WgmmaF16F32, false, 8>(rng);
  check_wgmma<WgmmaF16F32, false, 16>(rng);
  check_wgmma<WgmmaF16F32, false, 32>(rng);
  check_wgmma<WgmmaF16F32, false, 64>(rng);
  check_wgmma<WgmmaF16F32, false, 128>(rng);
  check_wgmma<WgmmaF16F32, false, 256>(rng);
  check_wgmma<WgmmaF16F32, true, 64>(rng);
  check_wgmma<WgmmaF16F32, true, 128>(rng);
  check_wgmma<WgmmaF16F32, true, 256>(rng);
  check_wgmma<WgmmaBf16F32, false, 64>(rng);
  check_wgmma<WgmmaBf16F32, false, 256>(rng);
  check_wgmma<WgmmaTf32F32, false, 64>(rng);
  check_wgmma<WgmmaTf32F32, false, 256>(rng);
  check_wgmma<WgmmaE4m3F32, false, 64>(rng);
  check_wgmma<WgmmaE4m3F32, false, 256>(rng);
  check_wgmma<WgmmaE5m2F32, false, 64>(rng);
  check_wgmma<WgmmaE5m2F32, false, 256>(rng);
  check_wgmma<WgmmaS8S32, false, 64>(rng);
  check_wgmma<WgmmaS8S32, false, 256>(rng);
}

}  // namespace
}  // namespace gpubench
