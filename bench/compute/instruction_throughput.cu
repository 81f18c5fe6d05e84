//! Instruction throughput: ILP independent chains per thread x warps per SM, one block on every
//! SM. Latency hiding by ILP and by TLP shows separately; the best cells reach the pipe's peak.
#include "bench/compute/instruction_support.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/dispatch.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/compute/instruction_chains.cuh"

#include <vector>

namespace gpubench {
namespace {

constexpr int kRounds = 128;  // x 128 operations per thread
constexpr int kMaxIlp = 16;
constexpr int kMaxThreadsPerBlock = 1024;

template <class I>
struct Buffers {
  Buffers() : out(static_cast<std::size_t>(device().sm_count) * kMaxThreadsPerBlock * kMaxIlp), seeds(kMaxIlp) {
    std::vector<typename I::T> values(kMaxIlp);
    for (int j = 0; j < kMaxIlp; ++j) values[j] = kernels::chain_seed<I>(j);
    seeds.upload(values, stream());
  }
  DeviceBuffer<typename I::T> out;
  DeviceBuffer<typename I::T> seeds;
};

template <class I>
void throughput(benchmark::State& state) {
  static ArgCache<Buffers<I>> buffers;
  const int ilp = static_cast<int>(arg(state, "ilp"));
  const int warps = static_cast<int>(arg(state, "warps"));
  const DeviceInfo& gpu = device();
  const int threads = warps * kWarpSize;
  const int blocks = gpu.sm_count;  // one block per SM
  Buffers<I>& b = buffers.get({}, [] { return Buffers<I>(); });
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) {
    dispatch<1, 2, 4, 8, 16>(ilp, [&](auto chains) {
      kernels::instruction_throughput<I, decltype(chains)::value>
          <<<blocks, threads, 0, s>>>(b.out.data(), b.seeds.data(), I::a, I::b, kRounds, c);
    });
  });

  const double ops_per_thread = static_cast<double>(kRounds) * kernels::kThroughputOpsPerRound;
  const double results_per_sm = threads * ops_per_thread * I::info.results_per_instruction;
  const double per_clock = results_per_sm / result.cycles;
  state.counters["ops_per_clock_per_sm"] = per_clock;
  state.counters["cycles_per_op_per_thread"] = result.cycles / ops_per_thread;
  const double results_per_second = per_clock * gpu.sm_count * result.sm_mhz * 1e6;
  state.counters["tops"] = results_per_second / 1e12;
  if (I::info.flops_per_result > 0) state.counters["tflops"] = results_per_second * I::info.flops_per_result / 1e12;
  if (const auto peak = peak_results_per_sm_per_clock(I::info.pipe, gpu.major, gpu.minor))
    state.counters["fraction_of_peak"] = per_clock / *peak;
}

GPUBENCH_FAMILY(InstructionThroughput) {
  kernels::Instructions::for_each([&](auto instruction) {
    using I = decltype(instruction);
    auto* rows = family.gpu(std::string("InstructionThroughput/") + I::info.name, {"ilp", "warps"}, throughput<I>,
                            needs_sm(I::info.min_sm, I::info.name));
    // Quick: the cells that reach each pipe's peak (on H100/H200 the best full-sweep cell is within 0.1% of
    // one of these for every FMA and MUFU instruction) and the single chain.
    for (const Point& point : product(family.pick<std::vector<std::pair<std::string, std::vector<std::int64_t>>>>(
             {{"ilp", {1, 4, 8}}, {"warps", {8, 32}}}, {{"ilp", {1, 2, 4, 8, 16}}, {"warps", {1, 2, 4, 8, 16, 32}}})))
      add_point(rows, point);
    if (is_fma_pipe(I::info)) in_check(rows);  // the node check's FP32/FP64/FP16 pipes
    Family::min_time(rows, 0.1);  // fixed effort: 300 cells, each launch long enough that 0.1 s gives hundreds
  });
}

GPUBENCH_COUNTERS(InstructionThroughput,
                  {"cycles_per_op_per_thread", "cycles", CounterKind::kMeasured,
                   "cycles per instruction of one thread's stream (1 / throughput per lane)", Better::kLower},
                  {"ops_per_clock_per_sm", "results/clk/SM", CounterKind::kMeasured,
                   "results (lanes x instructions) per SM clock per SM", Better::kHigher},
                  {"tops", "T results/s", CounterKind::kMeasured, "results per second over the GPU, in 1e12",
                   Better::kHigher},
                  {"tflops", "TFLOP/s", CounterKind::kMeasured, "tops x the FLOPs per result (2 for an FMA)",
                   Better::kHigher});

}  // namespace
}  // namespace gpubench
