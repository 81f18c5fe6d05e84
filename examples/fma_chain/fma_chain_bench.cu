// Dependent FP32 FMA chains measured by gpubench: the FMA pipe's latency (one chain) and its throughput (chains in
// flight), as cycles per FMA from clock64 and as a rate, with the instructions CUPTI counted. The FMAs go through
// asm volatile so the compiler keeps every one, and the result is stored so that none is dead.
#include <gpubench/gpubench.h>

namespace {

constexpr int kThreads = 256;
// The work each chain is asked for; a planted slower build (FMA_CHAIN_EXTRA_PERCENT=3) adds that share of steps in a
// loop of its own after it (the same job done 3% slower, as a regression would), the main loop's code unchanged.
constexpr int kSteps = 4096;
constexpr int kExtraSteps = kSteps * FMA_CHAIN_EXTRA_PERCENT / 100;

template <int Chains>
__global__ void fma_chains(float* out, float seed, gpubench::Clocks clocks) {
  float value[Chains];
  for (int c = 0; c < Chains; ++c) value[c] = seed + static_cast<float>(threadIdx.x + c);
  const auto start = clocks.begin_block();
  for (int step = 0; step < kSteps; ++step)
#pragma unroll
    for (int c = 0; c < Chains; ++c)
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(value[c]) : "f"(0.999f), "f"(0.5f));
  for (int step = 0; step < kExtraSteps; ++step)
#pragma unroll
    for (int c = 0; c < Chains; ++c)
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(value[c]) : "f"(0.999f), "f"(0.5f));
  clocks.end_block(start);
  float sum = 0.0f;
  for (int c = 0; c < Chains; ++c) sum += value[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int Chains>
void chain_rows(benchmark::State& state) {
  // One block per SM, all resident from the start: block 0's clock64 span is what every SM does.
  const int blocks = gpubench::device().sm_count;
  gpubench::DeviceBuffer<float> out(static_cast<std::size_t>(blocks) * kThreads);
  const gpubench::RunResult result = gpubench::run(
      state,
      [&](cudaStream_t stream, gpubench::Clocks clocks) {
        fma_chains<Chains><<<blocks, kThreads, 0, stream>>>(out.data(), 1.0f, clocks);
        GPUBENCH_CUDA_LAUNCHED();
      },
      gpubench::RunOptions{{"inst_executed", "fp32_pipe_utilization"}});
  const double fmas = static_cast<double>(kSteps) * Chains;
  gpubench::report_per(state, result, "fma", fmas);  // cycles_per_fma: a block's span over its chain's length
  state.counters["fma_per_second"] = benchmark::Counter(
      fmas * blocks * kThreads * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

GPUBENCH_FAMILY(FmaChain) {
  auto* rows = family.gpu("FmaChain/fp32", {"chains"}, [](benchmark::State& state) {
    switch (gpubench::arg(state, "chains")) {
      case 1: return chain_rows<1>(state);
      case 4: return chain_rows<4>(state);
      default: throw std::invalid_argument("chains must be 1 or 4");
    }
  });
  // How compare judges them: a chain inside the SM counted in its clocks; per second, it moves with the SM clock.
  gpubench::noise_class(rows, "sm_clocks");
  gpubench::noise_class(rows, "sm_time", "fma_per_second");
  gpubench::noise_class(rows, "sm_time", "ns_per_fma");
  for (std::int64_t chains : {1, 4}) gpubench::add_point(rows, {{"chains", chains}});
}

GPUBENCH_COUNTERS(FmaChain, {"fma_per_second", "FMA/s", gpubench::CounterKind::kMeasured,
                             "FP32 FMAs per second over every thread of the launch", gpubench::Better::kHigher});
