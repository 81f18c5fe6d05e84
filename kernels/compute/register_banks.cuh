// FFMA throughput with its three source registers placed in chosen register banks (seed 000's
// question: does a register bank conflict cost cycles, and how many).
//
// ptxas picks register numbers, but a 128-bit load (float4) lands in four consecutive registers
// R4n..R4n+3, and ptxas keeps the quad there when the whole quad is also stored at the end (a quad
// used only in one lane is loaded by a 32-bit load into any register: seen on sm_90). A float4's lane
// is then its register number mod 4: lane x is R4n, z is R4n+2. Choosing lanes chooses banks:
//   c (accumulator, also the destination), a, b all lane x: every source register = 0 mod 4;
//   c x, a z, b x: all even (0 mod 2), two different residues mod 4;
//   c x, a y, b z: three residues mod 4, two even and one odd.
// FFMA k updates accumulator k % 8 with source pair k % 4, so a register comes back in the same
// operand slot only every fourth FFMA and the operand reuse cache has nothing to keep (ptxas marked a
// register .reuse with one FFMA between when pairs alternated). The SASS audit
// (test/audit/loop_audit.py) checks the registers ptxas chose and that no operand is marked .reuse.
#pragma once

#include "common/clocks.h"

namespace gpubench::kernels {

inline constexpr int kBankAccumulators = 8;  // float4s holding the accumulators (lane c of each)
inline constexpr int kBankSources = 8;       // float4s holding a and b: four pairs
inline constexpr int kBankFmasPerRep = 64;
inline constexpr int kBankQuadsPerThread = kBankAccumulators + kBankSources;

template <int Lane>
__device__ __forceinline__ float& lane_of(float4& quad) {
  static_assert(Lane >= 0 && Lane < 4, "a float4 has lanes 0..3");
  if constexpr (Lane == 0)
    return quad.x;
  else if constexpr (Lane == 1)
    return quad.y;
  else if constexpr (Lane == 2)
    return quad.z;
  else
    return quad.w;
}

// Thread t reads kBankQuadsPerThread float4s from in + t * kBankQuadsPerThread (accumulators first,
// then sources), runs `reps` x kBankFmasPerRep FFMAs, and writes all its quads back to out at the same
// place (sources unchanged). FFMA k updates accumulator k % 8 with source pair k % 4.
template <int CLane, int ALane, int BLane>
__global__ void ffma_register_banks(const float4* __restrict__ in, float4* __restrict__ out, int reps, Clocks clocks) {
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
      const float a = lane_of<ALane>(src[(k % 4) * 2]);
      const float b = lane_of<BLane>(src[(k % 4) * 2 + 1]);
      asm volatile("fma.rn.f32 %0, %1, %2, %0;" : "+f"(c) : "f"(a), "f"(b));
    }
  }
  __syncwarp();
  clocks.end(start);
  float4* back = out + static_cast<long long>(thread) * kBankQuadsPerThread;
#pragma unroll
  for (int i = 0; i < kBankAccumulators; ++i) back[i] = acc[i];
#pragma unroll
  for (int i = 0; i < kBankSources; ++i) back[kBankAccumulators + i] = src[i];
}

}  // namespace gpubench::kernels
