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
// The SM this thread runs on.
__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

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
  // Whole-block spans. A plain __syncthreads() is not enough: on sm_90 it compiles to
  // BAR.SYNC.DEFER_BLOCKING and the clock read after it does not wait for the barrier, so warp 0
  // stamped its own finish, not the block's (seen: an FFMA rate 1.4x the SM's peak). Here the clock
  // read is predicated on the barrier's result, which exists only once every warp has arrived.
  // `ready` is passed through the barrier: make it depend on data just loaded, and the span starts
  // only once those loads are in.
  __device__ __forceinline__ Stamp begin_block(int ready = 1) const {
    const int arrived = __syncthreads_count(ready);
    Stamp s;
    s.ns = global_timer_ns();
    s.clock = clock_after(arrived);
    return s;
  }
  __device__ __forceinline__ void end_block(Stamp start, int ready = 1) const {
    const int arrived = __syncthreads_count(ready);
    record(start, clock_after(arrived));
  }

  __device__ __forceinline__ void end(Stamp start) const { record(start, sm_clock()); }

  // One-thread spans around dependent loads: the clock read waits for `value`, so the span starts
  // after the load that produced it has returned and ends only when the last one has.
  __device__ __forceinline__ Stamp begin_after(unsigned value) const {
    Stamp s;
    s.ns = global_timer_ns();
    s.clock = clock_after(static_cast<int>(value | 1u));
    return s;
  }
  __device__ __forceinline__ void end_after(Stamp start, unsigned value) const {
    record(start, clock_after(static_cast<int>(value | 1u)));
  }
  // As end_after, recorded by the calling thread whatever its block: for kernels where one chosen
  // block (e.g. the one on a given SM) does the measured work.
  __device__ __forceinline__ void end_after_here(Stamp start, unsigned value) const {
    const std::uint64_t stop_clock = clock_after(static_cast<int>(value | 1u));
    if (span != nullptr) *span = CycleSpan{start.clock, stop_clock, start.ns, global_timer_ns()};
  }

 private:
  static __device__ __forceinline__ std::uint64_t clock_after(int barrier_result) {
    std::uint64_t clock = 0;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.s32 p, %1, 0;\n\t@p mov.u64 %0, %%clock64;\n\t}"
                 : "+l"(clock)
                 : "r"(barrier_result));
    return clock;
  }
  __device__ __forceinline__ void record(Stamp start, std::uint64_t stop_clock) const {
    const std::uint64_t stop_ns = global_timer_ns();
    if (span != nullptr && threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 0 &&
        blockIdx.y == 0 && blockIdx.z == 0)
      *span = CycleSpan{start.clock, stop_clock, start.ns, stop_ns};
  }
#endif
};

}  // namespace gpubench
