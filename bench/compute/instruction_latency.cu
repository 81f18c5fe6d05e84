//! Instruction latency: one thread, a dependent chain of one instruction; cycles per instruction
//! are its latency (plus nothing: the loop's own instructions issue in the chain's shadow).
#include "bench/compute/instruction_support.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/compute/instruction_chains.cuh"

namespace gpubench {
namespace {

constexpr int kRounds = 128;  // x 128 steps

template <class I>
void latency(benchmark::State& state) {
  using T = typename I::T;
  static ArgCache<DeviceBuffer<T>> out_cache;
  T* out = out_cache.get({}, [] { return DeviceBuffer<T>(1); }).data();
  const RunResult result = run(state,
                               [&](cudaStream_t s, Clocks c) {
                                 kernels::instruction_latency<I><<<1, 1, 0, s>>>(out, I::x0, I::a, I::b, kRounds, c);
                               },
                               {{"inst_executed"}});
  report_per(state, result, "op", static_cast<double>(kRounds) * kernels::kLatencyStepsPerRound);
}

GPUBENCH_FAMILY(InstructionLatency) {
  kernels::Instructions::for_each([&](auto instruction) {
    using I = decltype(instruction);
    auto* row = family.gpu(std::string("InstructionLatency/") + I::info.name, {}, latency<I>,
                           needs_sm(I::info.min_sm, I::info.name));
    if (is_fma_pipe(I::info)) in_check(row);
  });
}

}  // namespace
}  // namespace gpubench
