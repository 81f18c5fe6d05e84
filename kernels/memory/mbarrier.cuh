// Hopper's transaction barriers (mbarrier) in shared memory, as the TMA and bulk copies use them: a
// copy names the barrier and, when its bytes have landed, completes the barrier's current phase.
// Addresses are shared-window addresses (32-bit). sm_90 and newer; callers guard with __CUDA_ARCH__.
#pragma once

#if defined(__CUDACC__)
namespace gpubench::kernels::mbarrier {

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One arrival completes a phase (the thread that issues the copies arrives).
__device__ __forceinline__ void init(unsigned barrier) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barrier));
}

// The initialisation visible to the async proxy (the TMA unit) before any copy names the barrier.
__device__ __forceinline__ void fence_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

// Arrives and says `bytes` more will land before this phase completes.
__device__ __forceinline__ void arrive_expecting(unsigned barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(bytes) : "memory");
}

// Arrives with no bytes to wait for: the phase completes now (the barrier counts one arrival).
__device__ __forceinline__ void arrive(unsigned barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(barrier) : "memory");
}

// Waits until the phase of parity `parity` has completed.
__device__ __forceinline__ void wait(unsigned barrier, unsigned parity) {
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(barrier), "r"(parity)
                 : "memory");
}

}  // namespace gpubench::kernels::mbarrier
#endif
