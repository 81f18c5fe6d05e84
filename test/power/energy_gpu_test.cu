// The Energy rows' work does what it counts: every FMA chain ends where the host's fma of the same
// operands ends (zeros stay zero), and the read kernel folds exactly the words it was given.
#include "common/device_memory.h"
#include "kernels/power/energy_work.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <cmath>
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

TEST(EnergyKernels, FmaChainsEndWhereTheHostsEnd) {
  GPUBENCH_REQUIRE_GPU();
  check_fma<float>(false);
  check_fma<float>(true);
  check_fma<double>(false);
  check_fma<double>(true);
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
    kernels::read_work<<<kBlocks, kThreads>>>(reinterpret_cast<const uint4*>(words.data()), kWords / 4, kPasses,
                                              out.data(), Clocks{});
    GPUBENCH_CUDA_LAUNCHED();
    const std::vector<std::uint32_t> got = out.download();
    for (std::size_t t = 0; t < kBlocks * kThreads; ++t) {
      std::uint32_t want = 0;
      for (std::uint32_t p = 0; p < kPasses; ++p)
        for (std::size_t v = t; v < kWords / 4; v += kBlocks * kThreads)
          want ^= host[4 * v] ^ host[4 * v + 1] ^ host[4 * v + 2] ^ host[4 * v + 3];
      ASSERT_EQ(got[t], want) << (random ? "random" : "zero") << " words, thread " << t;
    }
    if (random) EXPECT_NE(host[1], host[2]);
  }
}

}  // namespace
}  // namespace gpubench
