//! Energy per unit of work: FP32 and FP64 FMA (pJ per FLOP) and reads from L2 and DRAM (pJ per bit),
//! each with zero and random data. A row is timed as any row, then its launch runs back to back in
//! windows of about a second (NVML's energy counter is coarse), three times; the GPU's active-idle
//! power (every SM resident, asleep) is subtracted. Full preset only (each row takes seconds).
//! docs/experiments/energy.md.
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/energy.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/power/energy_work.cuh"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace gpubench {
namespace {

constexpr double kWindowSeconds = 1.0;
constexpr int kRepeats = 3;
constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;

// Times the launch, then measures its energy per unit (`unit`: "flop" or "bit") over kRepeats windows.
void energy_row(benchmark::State& state, const Launch& launch, double units_per_launch, const std::string& unit) {
  const std::optional<EnergyBaseline> baseline = energy_baseline();
  if (!baseline) {
    skip_benchmark(state, "no energy readings: NVML is missing from this build or reads no energy on this GPU");
    return;
  }
  const RunResult result = run(state, launch);
  const double launch_seconds = std::max(result.ns * 1e-9, 1e-6);
  // [pJ of each window..., mean power]
  const std::vector<double> measured = once_per_case([&] {
    std::vector<EnergyWindow> windows;
    for (int r = 0; r < kRepeats; ++r)
      if (const auto window = energy_of(launch, launch_seconds, kWindowSeconds)) windows.push_back(*window);
    std::vector<double> values = picojoules_per_unit(windows, units_per_launch, baseline->active_idle_w);
    double watts = 0;
    for (const EnergyWindow& w : windows) watts += w.watts() / static_cast<double>(windows.size());
    values.push_back(watts);
    return values;
  });
  if (measured.size() < 2) throw std::runtime_error("NVML read no energy over the windows");
  const std::vector<double> picojoules(measured.begin(), measured.end() - 1);
  const auto [low, high] = std::minmax_element(picojoules.begin(), picojoules.end());
  state.counters["pj_per_" + unit] =
      std::accumulate(picojoules.begin(), picojoules.end(), 0.0) / static_cast<double>(picojoules.size());
  state.counters["pj_min"] = *low;
  state.counters["pj_max"] = *high;
  state.counters["energy_power_w"] = measured.back();
  state.counters["idle_power_w"] = baseline->idle_w;
  state.counters["active_idle_power_w"] = baseline->active_idle_w;
}

template <class T>
void fma_row(benchmark::State& state) {
  const bool random = arg(state, "operands") != 0;
  const int blocks = device().sm_count * kBlocksPerSm;
  const std::uint32_t reps = sizeof(T) == 8 ? 512 : 2048;  // about a millisecond per launch on an H100
  static ArgCache<DeviceBuffer<T>> outs;
  DeviceBuffer<T>& out =
      outs.get({blocks}, [&] { return DeviceBuffer<T>(static_cast<std::size_t>(blocks) * kThreads); });
  const double fmas = static_cast<double>(blocks) * kThreads * kernels::kEnergyChains * kernels::kEnergyUnroll * reps;
  energy_row(
      state,
      [&](cudaStream_t s, Clocks c) { kernels::fma_work<T><<<blocks, kThreads, 0, s>>>(out.data(), reps, random, c); },
      2.0 * fmas, "flop");
}

void read_row(benchmark::State& state, std::size_t bytes, std::uint32_t passes) {
  const bool random = arg(state, "operands") != 0;
  static ArgCache<DeviceBuffer<std::uint32_t>> buffers;
  DeviceBuffer<std::uint32_t>& data = buffers.get({static_cast<std::int64_t>(bytes), random}, [&] {
    DeviceBuffer<std::uint32_t> made(bytes / 4);
    kernels::fill_energy_words<<<1024, 256, 0, stream()>>>(made.data(), bytes / 4, random);
    GPUBENCH_CUDA_LAUNCHED();
    GPUBENCH_CUDA(cudaStreamSynchronize(stream()));
    return made;
  });
  const int blocks = device().sm_count * kBlocksPerSm;
  static ArgCache<DeviceBuffer<std::uint32_t>> outs;
  DeviceBuffer<std::uint32_t>& out =
      outs.get({blocks}, [&] { return DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(blocks) * kThreads); });
  const std::size_t vectors = bytes / 16;
  energy_row(
      state,
      [&](cudaStream_t s, Clocks c) {
        kernels::read_work<<<blocks, kThreads, 0, s>>>(reinterpret_cast<const uint4*>(data.data()), vectors, passes,
                                                       out.data(), c);
      },
      8.0 * static_cast<double>(vectors) * 16 * passes, "bit");
}

GPUBENCH_FAMILY(Energy) {
  if (family.preset() != Preset::kFull) return;  // seconds per row: `--gpubench_preset=full --benchmark_filter=Energy`
  const std::vector<std::int64_t> operands{0, 1};  // 0: zeros, 1: random data
  auto* ffma = family.gpu("Energy/ffma", {"operands"}, fma_row<float>);
  auto* dfma = family.gpu("Energy/dfma", {"operands"}, fma_row<double>);
  const std::size_t l2_set = std::max<std::size_t>(family.chip().l2_bytes / 4, 1 << 20);
  auto* l2 =
      family.gpu("Energy/l2_read", {"operands"}, [l2_set](benchmark::State& state) { read_row(state, l2_set, 64); });
  auto* dram = family.gpu("Energy/dram_read", {"operands"},
                          [](benchmark::State& state) { read_row(state, std::size_t{2} << 30, 1); });
  for (auto* rows : {ffma, dfma, l2, dram})
    for (std::int64_t o : operands) rows->Args({o})->Iterations(20);
}

GPUBENCH_COUNTERS(
    Energy,
    {"pj_per_flop", "pJ", CounterKind::kMeasured,
     "energy per floating-point operation (an FMA is 2) above the active-idle power, mean of the windows"},
    {"pj_per_bit", "pJ", CounterKind::kMeasured,
     "energy per bit read above the active-idle power, mean of the windows"},
    {"pj_min", "pJ", CounterKind::kMeasured, "the lowest window's pJ per unit"},
    {"pj_max", "pJ", CounterKind::kMeasured, "the highest window's pJ per unit"},
    {"energy_power_w", "W", CounterKind::kMeasured,
     "board power over the energy windows (the launch back to back, about 1 s each)"},
    {"idle_power_w", "W", CounterKind::kMeasured, "board power with nothing launched (1 s)"},
    {"active_idle_power_w", "W", CounterKind::kMeasured,
     "board power with a block asleep on every SM (1 s): the baseline subtracted"});

}  // namespace
}  // namespace gpubench
