// Every instruction chain against a host reference: exact for IEEE-rounded operations, within the
// PTX ISA's documented error for the .approx special functions.
#include "common/device_memory.h"
#include "kernels/compute/instruction_chains.cuh"
#include "test/gpu_test.h"

#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace gpubench {
namespace {

// Half FMA on the host: the exact a*b+c fits a double, so one rounding to half is the true result.
std::uint16_t half_fma(std::uint16_t x, std::uint16_t a, std::uint16_t b) {
  auto to_double = [](std::uint16_t bits) {
    __half_raw raw;
    raw.x = bits;
    return static_cast<double>(__half2float(__half(raw)));
  };
  const __half result = __double2half(to_double(x) * to_double(a) + to_double(b));
  return static_cast<__half_raw>(result).x;
}

template <class I>
typename I::T reference_step(typename I::T x) {
  using O = I;
  if constexpr (std::is_same_v<I, kernels::Ffma>) return std::fma(x, O::a, O::b);
  if constexpr (std::is_same_v<I, kernels::Fadd>) return x + O::b;
  if constexpr (std::is_same_v<I, kernels::Dfma>) return std::fma(x, O::a, O::b);
  if constexpr (std::is_same_v<I, kernels::Imad>) return x * O::a + O::b;
  if constexpr (std::is_same_v<I, kernels::Hfma2>) {
    const std::uint32_t lo = half_fma(x & 0xFFFFu, O::a & 0xFFFFu, O::b & 0xFFFFu);
    const std::uint32_t hi = half_fma(x >> 16, O::a >> 16, O::b >> 16);
    return lo | (hi << 16);
  }
  if constexpr (std::is_same_v<I, kernels::Rsqrt>) return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
  if constexpr (std::is_same_v<I, kernels::Sin>) return static_cast<float>(std::sin(static_cast<double>(x)));
  if constexpr (std::is_same_v<I, kernels::Ex2>) return static_cast<float>(std::exp2(-static_cast<double>(x)));
  if constexpr (std::is_same_v<I, kernels::Sqrt>) return std::sqrt(x);
  if constexpr (std::is_same_v<I, kernels::Div>) return O::a / x;
}

// Tolerance after `steps` steps: 0 where the PTX operation is correctly rounded.
template <class I>
double tolerance(int steps) {
  if constexpr (std::is_same_v<I, kernels::Rsqrt>) return 4e-7 * 2;  // relative, 2^-22.9 per step; the chain contracts
  if constexpr (std::is_same_v<I, kernels::Ex2>) return 4e-7 * 4;    // relative, 2^-22.5 per step; contracts by 0.44
  if constexpr (std::is_same_v<I, kernels::Sin>)
    return 6.7e-7 * steps;  // absolute, 2^-20.5 per step; does not contract
  return 0.0;
}

template <class I>
void expect_close(typename I::T got, typename I::T want, int steps, const char* what) {
  const double tol = tolerance<I>(steps);
  if (tol == 0.0) {
    EXPECT_EQ(got, want) << I::info.name << " " << what;
  } else if (std::is_same_v<I, kernels::Sin>) {
    EXPECT_NEAR(static_cast<double>(got), static_cast<double>(want), tol) << I::info.name << " " << what;
  } else {
    EXPECT_NEAR(static_cast<double>(got) / static_cast<double>(want), 1.0, tol) << I::info.name << " " << what;
  }
}

template <class I>
void check_latency_chain() {
  using T = typename I::T;
  using O = I;
  DeviceBuffer<T> out(1);
  DeviceBuffer<CycleSpan> span(1);
  out.fill_bytes(0xFF);
  constexpr int kRounds = 1;
  kernels::instruction_latency<I><<<1, 1>>>(out.data(), O::x0, O::a, O::b, kRounds, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  T want = O::x0;
  const int steps = kRounds * kernels::kLatencyStepsPerRound;
  for (int s = 0; s < steps; ++s) want = reference_step<I>(want);
  expect_close<I>(out.download().front(), want, steps, "latency chain");
}

template <class I>
void check_throughput_chains() {
  using T = typename I::T;
  using O = I;
  constexpr int kIlp = 4, kBlocks = 2, kThreads = 64, kRounds = 2;
  std::vector<T> seeds(kIlp);
  for (int j = 0; j < kIlp; ++j) seeds[j] = kernels::chain_seed<I>(j);
  DeviceBuffer<T> seeds_d(kIlp), out(kBlocks * kThreads * kIlp);
  seeds_d.upload(seeds);
  out.fill_bytes(0xFF);
  DeviceBuffer<CycleSpan> span(1);
  kernels::instruction_throughput<I, kIlp>
      <<<kBlocks, kThreads>>>(out.data(), seeds_d.data(), O::a, O::b, kRounds, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<T> got = out.download();
  const int steps = kRounds * kernels::kThroughputStepsPerRound<kIlp>;
  for (int j = 0; j < kIlp; ++j) {
    T want = seeds[j];
    for (int s = 0; s < steps; ++s) want = reference_step<I>(want);
    for (int thread = 0; thread < kBlocks * kThreads; ++thread)
      expect_close<I>(got[thread * kIlp + j], want, steps, "ILP chain");
  }
}

TEST(InstructionChains, LatencyChainsMatchTheHostReference) {
  GPUBENCH_REQUIRE_GPU();
  kernels::Instructions::for_each([](auto instruction) { check_latency_chain<decltype(instruction)>(); });
}

TEST(InstructionChains, IndependentChainsMatchTheHostReference) {
  GPUBENCH_REQUIRE_GPU();
  kernels::Instructions::for_each([](auto instruction) { check_throughput_chains<decltype(instruction)>(); });
}

}  // namespace
}  // namespace gpubench
