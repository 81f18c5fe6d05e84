// FFMA throughput with its three source registers placed in chosen register banks (seed 000's
// question: does a register bank conflict cost cycles, and how many).
//
// ptxas picks register numbers, but a 128-bit load (float4) lands in four consecutive registers
// R4n..R4n+3, and ptxas keeps a quad there when the same quad is stored whole at the end. A float4's
// lane is then its register number mod 4: lane x is R4n, z is R4n+2. Choosing lanes chooses banks:
//   c (accumulator, also the destination), a, b all lane x: every source register = 0 mod 4;
//   c x, a z, b x: all even (0 mod 2), two different residues mod 4;
//   c x, a y, b z: three residues mod 4, two even and one odd.
// Consecutive FFMAs share no source register (8 accumulators in turn, two (a, b) pairs alternating),
// so the operand reuse cache has nothing to keep: every operand is read from the register file. The
// SASS audit (test/audit/loop_audit.py) checks the registers ptxas chose and that no operand is
// marked .reuse.
#pragma once

#include "common/clocks.h"

namespace gpubench::kernels {

inline constexpr int kBankAccumulators = 8;    // float4s holding the accumulators (lane c of each)
inline constexpr int kBankSources = 4;         // float4s holding a and b
inline constexpr int kBankFmasPerRep = 64;
inline constexpr int kBankQuadsPerThread = kBankAccumulators + kBankSources;

template <int Lane>
__device__ __forceinline__ float& lane_of(float4& quad) {
  static_assert(Lane >= 0 && Lane < 4, "a float4 has lanes 0..3");
  if constexpr (Lane == 0) return quad.x;
  else if constexpr (Lane == 1) return quad.y;
  else if constexpr (Lane == 2) return quad.z;
  else return quad.w;
}

// Thread t reads kBankQuadsPerThread float4s from in + t * kBankQuadsPerThread (accumulators first,
// then sources), runs `reps` x kBankFmasPerRep FFMAs, and writes its accumulator quads to
// out + t * kBankAccumulators. FFMA k updates accumulator k % 8 with the source pair k % 2.
template <int CLane, int ALane, int BLane>
__global__ void ffma_register_banks(const float4* __restrict__ in, float4* __restrict__ out, int reps,
                                    Clocks clocks) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  const float4* mine = in + static_cast<long long>(thread) * kBankQuadsPerThread;
  float4 acc[kBankAccumulators], src[kBankSources];
#pragma unroll
  for (int i = 0; i < kBankAccumulators; ++i) acc[i] = mine[i];
#pragma unroll
  for (int i = 0; i < kBankSources; ++i) src[i] = mine[kBankAccumulators + i];
  __syncwarp();
  const Clocks::Stamp start = clocks.begin();
#pragma unroll 1
  for (int r = 0; r < reps; ++r) {
#pragma unroll
    for (int k = 0; k < kBankFmasPerRep; ++k) {
      float& c = lane_of<CLane>(acc[k % kBankAccumulators]);
      const float a = lane_of<ALane>(src[(k % 2) * 2]);
      const float b = lane_of<BLane>(src[(k % 2) * 2 + 1]);
      asm volatile("fma.rn.f32 %0, %1, %2, %0;" : "+f"(c) : "f"(a), "f"(b));
    }
  }
  __syncwarp();
  clocks.end(start);
#pragma unroll
  for (int i = 0; i < kBankAccumulators; ++i) out[static_cast<long long>(thread) * kBankAccumulators + i] = acc[i];
}

}  // namespace gpubench::kernels
