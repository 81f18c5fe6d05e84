// Cycle spans: the kernel under test stamps clock64 and %globaltimer around its work; the fixture
// turns the stamps into cycles, SM MHz and ns. Plain data on the host side; device helpers for nvcc.
#pragma once

#include <cstdint>

namespace gpubench {

struct CycleSpan {
  std::uint64_t start_clock;
  std::uint64_t stop_clock;
  std::uint64_t start_ns;  // %globaltimer
  std::uint64_t stop_ns;
};

#if defined(__CUDACC__)
__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__device__ __forceinline__ std::uint64_t sm_clock() {
  std::uint64_t clock;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(clock));
  return clock;
}
#endif

// Handed by value to every kernel the fixture times. Every thread may call begin()/end(); only
// thread 0 of block 0 records, so the span is that thread's view of its block's work.
struct Clocks {
  CycleSpan* span = nullptr;

  struct Stamp {
    std::uint64_t clock;
    std::uint64_t ns;
  };

#if defined(__CUDACC__)
  // The timer is read before the clock and after it at the end, so its cost stays out of the cycles.
  __device__ __forceinline__ Stamp begin() const {
    Stamp s;
    s.ns = global_timer_ns();
    s.clock = sm_clock();
    return s;
  }
  __device__ __forceinline__ void end(Stamp start) const {
    const std::uint64_t stop_clock = sm_clock();
    const std::uint64_t stop_ns = global_timer_ns();
    if (span != nullptr && threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 0 &&
        blockIdx.y == 0 && blockIdx.z == 0)
      *span = CycleSpan{start.clock, stop_clock, start.ns, stop_ns};
  }
#endif
};

}  // namespace gpubench
