//! Instruction latency: one thread, a dependent chain of one instruction; cycles per instruction
//! are its latency (plus nothing: the loop's own instructions issue in the chain's shadow).
#include "common/arg_cache.h"
#include "common/device_memory.h"
#include "common/gpu_fixture.h"
#include "common/instructions.h"
#include "kernels/compute/instruction_chains.cuh"

namespace gpubench {
namespace {

constexpr int kRounds = 128;  // x 128 steps

template <Instruction I>
class InstructionLatency : public GpuFixture {
  using T = typename kernels::Op<I>::T;

 public:
  InstructionLatency() : GpuFixture(std::string("InstructionLatency/") + instruction_info(I).name) {
    set_default_counters({"inst_executed"});
  }

 protected:
  void BenchmarkCase(benchmark::State& state) override {
    const DeviceInfo& device = gpu().device();
    if (const auto why = unsupported_reason(instruction_info(I), device.major, device.minor)) {
      skip_benchmark(state, *why);
      return;
    }
    T* out = out_.get({}, [] { return DeviceBuffer<T>(1); }).data();
    using Operands = kernels::Operands<I>;
    run(state, [&](cudaStream_t s, Clocks c) {
      kernels::instruction_latency<I><<<1, 1, 0, s>>>(out, Operands::x0, Operands::a, Operands::b, kRounds, c);
    });
    report_per(state, "op", static_cast<double>(kRounds) * kernels::kLatencyStepsPerRound);
  }

 private:
  ArgCache<DeviceBuffer<T>> out_;
};

const bool registered = [] {
  kernels::for_each_instruction([](auto tag) { register_case<InstructionLatency<decltype(tag)::value>>(); });
  return true;
}();

}  // namespace
}  // namespace gpubench
