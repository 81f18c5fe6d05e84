// The Energy rows' work does what it counts: every FMA chain (FP16x2, FP32, FP64) ends where the host's
// fma of the same operands ends (zeros stay zero), and the read kernel folds exactly the words it was
// given at every width.
#include "common/device_memory.h"
#include "kernels/power/energy_work.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace gpubench {
namespace {

// The device's operand hash, on the host.
template <class T>
T host_operand(unsigned thread, unsigned c, unsigned salt) {
  unsigned h = thread * 0x9E3779B1u ^ (c + 1u) * 0x85EBCA77u ^ salt * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return T(static_cast<int>(h >> 8) - (1 << 23)) / T(1 << 23);
}

template <class T>
void check_fma(bool random) {
  constexpr int kBlocks = 3, kThreads = 64;
  constexpr std::uint32_t kReps = 5;
  DeviceBuffer<T> out(kBlocks * kThreads);
  kernels::fma_work<T><<<kBlocks, kThreads>>>(out.data(), kReps, random, Clocks{});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<T> got = out.download();
  for (unsigned thread = 0; thread < kBlocks * kThreads; ++thread) {
    T sum = 0;
    for (unsigned c = 0; c < kernels::kEnergyChains; ++c) {
      const T a = random ? host_operand<T>(thread, c, 1) : T(0), b = random ? host_operand<T>(thread, c, 2) : T(0);
      T x = random ? host_operand<T>(thread, c, 3) : T(0);
      for (std::uint32_t s = 0; s < kReps * kernels::kEnergyUnroll; ++s) x = std::fma(x, a, b);
      sum += x;
    }
    ASSERT_EQ(got[thread], sum) << (sizeof(T) == 8 ? "dfma" : "ffma") << (random ? " random" : " zero") << ", thread "
                                << thread;
  }
}

// v rounded to the nearest FP16 value, ties to even (11 significant bits; subnormals in steps of 2^-24).
double round_to_half(double v) {
  if (v == 0.0) return v;
  int exponent = 0;
  std::frexp(v, &exponent);
  const double quantum = std::ldexp(1.0, std::max(exponent - 11, -24));
  return std::nearbyint(v / quantum) * quantum;
}

double decode_half(std::uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

// HFMA2: each half of every chain, fused (one rounding to FP16), the sum rounded after each add.
void check_hfma2(bool random) {
  constexpr int kBlocks = 3, kThreads = 64;
  constexpr std::uint32_t kReps = 5;
  DeviceBuffer<__half2> out(kBlocks * kThreads);
  kernels::fma_work<__half2><<<kBlocks, kThreads>>>(out.data(), kReps, random, Clocks{});
  GPUBENCH_CUDA_LAUNCHED();
  std::vector<std::uint32_t> got(kBlocks * kThreads);
  GPUBENCH_CUDA(cudaMemcpy(got.data(), out.data(), got.size() * 4, cudaMemcpyDeviceToHost));
  for (unsigned thread = 0; thread < kBlocks * kThreads; ++thread)
    for (unsigned half = 0; half < 2; ++half) {
      const auto operand = [&](unsigned c, unsigned salt) {
        return random ? round_to_half(host_operand<float>(thread, c, salt + 16u * half)) : 0.0;
      };
      double sum = 0.0;
      for (unsigned c = 0; c < kernels::kEnergyChains; ++c) {
        const double a = operand(c, 1), b = operand(c, 2);
        double x = operand(c, 3);
        for (std::uint32_t s = 0; s < kReps * kernels::kEnergyUnroll; ++s) x = round_to_half(x * a + b);
        sum = c == 0 ? x : round_to_half(sum + x);
      }
      ASSERT_EQ(decode_half(static_cast<std::uint16_t>(got[thread] >> (16 * half))), sum)
          << "hfma2 " << (random ? "random" : "zero") << ", thread " << thread << ", half " << half;
    }
}

TEST(EnergyKernels, FmaChainsEndWhereTheHostsEnd) {
  GPUBENCH_REQUIRE_GPU();
  check_fma<float>(false);
  check_fma<float>(true);
  check_fma<double>(false);
  check_fma<double>(true);
  check_hfma2(false);
  check_hfma2(true);
}

TEST(EnergyKernels, ReadFoldsEveryWordItWasGiven) {
  GPUBENCH_REQUIRE_GPU();
  constexpr int kBlocks = 2, kThreads = 32;
  constexpr std::size_t kWords = 4 * 1000;
  constexpr std::uint32_t kPasses = 3;
  for (bool random : {false, true}) {
    DeviceBuffer<std::uint32_t> words(kWords);
    kernels::fill_energy_words<<<4, 128>>>(words.data(), kWords, random);
    GPUBENCH_CUDA_LAUNCHED();
    const std::vector<std::uint32_t> host = words.download();
    DeviceBuffer<std::uint32_t> out(kBlocks * kThreads);
    // The fold of words [4v, 4v + per) for every vector v a thread reads, per words of `per`.
    const auto check = [&](std::size_t per) {
      const std::vector<std::uint32_t> got = out.download();
      for (std::size_t t = 0; t < kBlocks * kThreads; ++t) {
        std::uint32_t want = 0;
        for (std::uint32_t p = 0; p < kPasses; ++p)
          for (std::size_t v = t; v < kWords / per; v += kBlocks * kThreads)
            for (std::size_t w = 0; w < per; ++w) want ^= host[per * v + w];
        ASSERT_EQ(got[t], want) << (random ? "random" : "zero") << " words of " << per * 4 << " bytes, thread " << t;
      }
    };
    kernels::read_work<<<kBlocks, kThreads>>>(reinterpret_cast<const uint4*>(words.data()), kWords / 4, kPasses,
                                              out.data(), Clocks{});
    GPUBENCH_CUDA_LAUNCHED();
    check(4);
    kernels::read_work<<<kBlocks, kThreads>>>(reinterpret_cast<const uint2*>(words.data()), kWords / 2, kPasses,
                                              out.data(), Clocks{});
    GPUBENCH_CUDA_LAUNCHED();
    check(2);
    kernels::read_work<<<kBlocks, kThreads>>>(words.data(), kWords, kPasses, out.data(), Clocks{});
    GPUBENCH_CUDA_LAUNCHED();
    check(1);
    if (random) EXPECT_NE(host[1], host[2]);
  }
}

}  // namespace
}  // namespace gpubench
