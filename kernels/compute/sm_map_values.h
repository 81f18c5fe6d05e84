// The per-SM map's shapes and the inputs every block starts from: shared by its kernels (sm_map.cuh) and the host
// code that computes the answers they must give (bench/compute/sm_map_check.cpp), which nvcc does not compile.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define GPUBENCH_HOST_DEVICE __host__ __device__
#else
#define GPUBENCH_HOST_DEVICE
#endif

namespace gpubench::kernels {

inline constexpr int kSmMapThreads = 256;
inline constexpr int kSmMapChains = 8;             // independent FMA chains per thread
inline constexpr int kSmMapSharedWords = 4096;     // uint4 words each block reads over and over (64 KiB)
inline constexpr int kSmMapLoadsPerStep = 8;       // shared loads per loop step
inline constexpr int kSmMapMmaChains = 4;          // independent accumulators per warp
inline constexpr float kSmMapFmaScale = 1.00001f;  // x <- x * scale + step: grows slowly, so errors persist
inline constexpr float kSmMapFmaStep = 0.0001f;
inline constexpr std::uint32_t kSmMapNodeWords = 32;  // one chase node per 128-byte line

// Where the chase from SM `sm` starts (a word index of `next`).
GPUBENCH_HOST_DEVICE inline std::uint32_t sm_map_chase_start(std::uint32_t sm, std::uint32_t nodes) {
  return (sm * 2654435761u) % nodes * kSmMapNodeWords;
}

// A value every thread of a chain starts from (the host reference starts from the same).
GPUBENCH_HOST_DEVICE inline float sm_map_fma_start(int thread, int chain) {
  return 1.0f + static_cast<float>(thread * kSmMapChains + chain) * 0.0009765625f;  // exact: no rounding to differ
}
// The shared-memory word i holds (x, y, z, w); each load adds x ^ w to its thread's sum.
GPUBENCH_HOST_DEVICE inline std::uint32_t sm_map_shared_term(std::uint32_t i) { return (i * 2654435761u) ^ (i * 7u); }
// Tensor-core operands: A's row r is all a(r), B's column n all b(n), so D[r][n] = K x a(r) x b(n) per step.
GPUBENCH_HOST_DEVICE inline int sm_map_a(int row) { return 1 + row % 2; }
GPUBENCH_HOST_DEVICE inline int sm_map_b(int col) { return 1 + col % 3; }

}  // namespace gpubench::kernels
