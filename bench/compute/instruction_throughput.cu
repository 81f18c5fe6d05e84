//! Instruction throughput: ILP independent chains per thread x warps per SM, one block on every
//! SM. Latency hiding by ILP and by TLP shows separately; the best cells reach the pipe's peak.
#include "common/arg_cache.h"
#include "common/device_memory.h"
#include "common/gpu_fixture.h"
#include "common/instructions.h"
#include "kernels/compute/instruction_chains.cuh"

#include <utility>
#include <vector>

namespace gpubench {
namespace {

constexpr int kRounds = 128;  // x 128 operations per thread
constexpr int kMaxIlp = 16;

template <Instruction I>
class InstructionThroughput : public GpuFixture {
  using T = typename kernels::Op<I>::T;

 public:
  InstructionThroughput() : GpuFixture(std::string("InstructionThroughput/") + instruction_info(I).name) {}

 protected:
  struct Buffers {
    DeviceBuffer<T> out;
    DeviceBuffer<T> seeds;
  };

  void BenchmarkCase(benchmark::State& state) override {
    const int ilp = static_cast<int>(state.range(0));
    const int warps = static_cast<int>(state.range(1));
    const DeviceInfo& device = gpu().device();
    const InstructionInfo& info = instruction_info(I);
    if (const auto why = unsupported_reason(info, device.major, device.minor)) {
      skip_benchmark(state, *why);
      return;
    }
    const int threads = warps * 32;
    const int blocks = device.sm_count;  // one block per SM
    Buffers& b = buffers_.get({}, [&] {
      std::vector<T> seeds(kMaxIlp);
      for (int j = 0; j < kMaxIlp; ++j) seeds[j] = kernels::chain_seed<I>(j);
      Buffers made{DeviceBuffer<T>(static_cast<std::size_t>(device.sm_count) * 1024 * kMaxIlp),
                   DeviceBuffer<T>(kMaxIlp)};
      made.seeds.upload(seeds);
      return made;
    });
    run(state, [&](cudaStream_t s, Clocks c) { launch(ilp, blocks, threads, s, b, c); });

    const double ops_per_thread = static_cast<double>(kRounds) * kernels::kThroughputOpsPerRound;
    const double results_per_sm = threads * ops_per_thread * info.results_per_instruction;
    const double per_clock = results_per_sm / cycles();
    state.counters["ops_per_clock_per_sm"] = per_clock;
    state.counters["cycles_per_op_per_thread"] = cycles() / ops_per_thread;
    const double results_per_second = per_clock * device.sm_count * sm_mhz() * 1e6;
    state.counters["tops"] = results_per_second / 1e12;
    if (info.flops_per_result > 0) state.counters["tflops"] = results_per_second * info.flops_per_result / 1e12;
    if (const auto peak = peak_results_per_sm_per_clock(info.pipe, device.major, device.minor))
      state.counters["fraction_of_peak"] = per_clock / *peak;
  }

 private:
  using Kernel = void (*)(T*, const T*, T, T, int, Clocks);

  static Kernel kernel_for(int ilp) {
    switch (ilp) {
      case 1: return kernels::instruction_throughput<I, 1>;
      case 2: return kernels::instruction_throughput<I, 2>;
      case 4: return kernels::instruction_throughput<I, 4>;
      case 8: return kernels::instruction_throughput<I, 8>;
      case 16: return kernels::instruction_throughput<I, 16>;
      default: throw std::invalid_argument("ILP must be 1, 2, 4, 8 or 16");
    }
  }

  void launch(int ilp, int blocks, int threads, cudaStream_t s, Buffers& b, Clocks c) {
    using Operands = kernels::Operands<I>;
    kernel_for(ilp)<<<blocks, threads, 0, s>>>(b.out.data(), b.seeds.data(), Operands::a, Operands::b, kRounds, c);
  }

  ArgCache<Buffers> buffers_;
};

const bool registered = [] {
  kernels::for_each_instruction([](auto tag) {
    register_case<InstructionThroughput<decltype(tag)::value>>()
        ->ArgNames({"ilp", "warps"})
        ->ArgsProduct({{1, 2, 4, 8, 16}, {1, 2, 4, 8, 16, 32}})
        ->MinTime(0.1);  // 300 cells: each launch is long enough that 0.1 s gives hundreds
  });
  return true;
}();

}  // namespace
}  // namespace gpubench
