// A memory pattern test over a buffer of 64-bit words, as memtest86 and DCGM's memory test do: each word written with
// a pattern of its own index (own address) or a pseudo-random one, read back and checked, its complement written and
// checked (moving inversions). A mismatch is counted and the first few are recorded: where, what was expected, what
// was read.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpubench::kernels {

constexpr int kMemtestRecorded = 8;

struct MemtestErrors {
  unsigned long long count;
  unsigned long long index[kMemtestRecorded];  // the word's index in the buffer
  unsigned long long expected[kMemtestRecorded];
  unsigned long long read[kMemtestRecorded];
};

enum MemtestPattern : int { kOwnAddress = 0, kRandom = 1 };

// The word at `index` for `pattern` and `seed`: its own index mixed with the seed, or splitmix64 of both (every word
// differs from its neighbours, so an address line stuck or a write landing in the wrong word shows).
__host__ __device__ inline std::uint64_t memtest_word(std::uint64_t index, std::uint64_t seed, int pattern) {
  if (pattern == kOwnAddress) return index ^ seed;
  std::uint64_t z = index + seed * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static __global__ void memtest_fill(std::uint64_t* words, std::size_t count, std::uint64_t seed, int pattern) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    words[i] = memtest_word(i, seed, pattern);
}

// Counts a word read other than expected, recording the first kMemtestRecorded: where, what was expected, what was
// read.
__device__ inline void record_mismatch(MemtestErrors* errors, std::size_t index, std::uint64_t expected,
                                       std::uint64_t read) {
  const unsigned long long k = atomicAdd(&errors->count, 1ull);
  if (k < kMemtestRecorded) {
    errors->index[k] = index;
    errors->expected[k] = expected;
    errors->read[k] = read;
  }
}

// Checks every word against the pattern (its complement where `inverted`); where `write_complement`, writes the
// complement of what the word should hold, for the next pass to check.
static __global__ void memtest_check(std::uint64_t* words, std::size_t count, std::uint64_t seed, int pattern,
                                     bool inverted, bool write_complement, MemtestErrors* errors) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const std::uint64_t want = inverted ? ~memtest_word(i, seed, pattern) : memtest_word(i, seed, pattern);
    const std::uint64_t got = words[i];
    if (got != want) record_mismatch(errors, i, want, got);
    if (write_complement) words[i] = ~want;
  }
}

// The planted fault: one bit of one word flipped in place (GPUBENCH_PLANT_MEMORY).
static __global__ void memtest_flip(std::uint64_t* words, std::size_t index, int bit) {
  words[index] ^= std::uint64_t{1} << bit;
}

// The whole test, queued on `stream`: for each pattern (own address, then random), fill, check and write the
// complement, check the complement. Eight passes over the buffer: each word written four times and read four times.
// `flip_index` >= 0 plants a flipped bit (`flip_bit`) after the first fill. `errors` is cleared first unless
// `keep_errors` (rounds of a long test add up).
inline void queue_memtest(std::uint64_t* words, std::size_t count, std::uint64_t seed, int blocks, cudaStream_t stream,
                          MemtestErrors* errors, long long flip_index = -1, int flip_bit = 0,
                          bool keep_errors = false) {
  constexpr int kThreads = 256;
  if (!keep_errors) cudaMemsetAsync(errors, 0, sizeof(MemtestErrors), stream);
  for (int pattern : {kOwnAddress, kRandom}) {
    memtest_fill<<<blocks, kThreads, 0, stream>>>(words, count, seed, pattern);
    if (flip_index >= 0 && pattern == kOwnAddress)
      memtest_flip<<<1, 1, 0, stream>>>(words, static_cast<std::size_t>(flip_index), flip_bit);
    memtest_check<<<blocks, kThreads, 0, stream>>>(words, count, seed, pattern, false, true, errors);
    memtest_check<<<blocks, kThreads, 0, stream>>>(words, count, seed, pattern, true, false, errors);
  }
}

}  // namespace gpubench::kernels
