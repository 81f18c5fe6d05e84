#include "common/energy.h"

#include "common/cuda_check.h"
#include "common/detail/gpu_session.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace gpubench {
namespace {

constexpr double kBaselineSeconds = 1.0;
constexpr double kBatchSeconds = 0.02;

// Every SM holds a block that sleeps for `ns` (in slices, so the warps stay resident).
__global__ void active_idle(std::uint64_t ns) {
  std::uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(100000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

}  // namespace

std::optional<EnergyWindow> energy_of(const Launch& launch, double launch_seconds, double min_seconds) {
  GpuSession& session = GpuSession::get();
  const cudaStream_t stream = session.stream();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  const std::optional<PowerSample> before = session.power_sample();
  if (!before || !before->energy_mj) return std::nullopt;
  const auto batch = static_cast<std::int64_t>(std::max(1.0, kBatchSeconds / std::max(launch_seconds, 1e-7)));
  EnergyWindow window;
  std::optional<PowerSample> after;
  do {
    for (std::int64_t i = 0; i < batch; ++i) launch(stream, Clocks{});
    GPUBENCH_CUDA_LAUNCHED();
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    window.launches += batch;
    after = session.power_sample();
  } while (after && after->host_seconds - before->host_seconds < min_seconds);
  if (!after || !after->energy_mj || *after->energy_mj < *before->energy_mj) return std::nullopt;
  window.seconds = after->host_seconds - before->host_seconds;
  window.joules = static_cast<double>(*after->energy_mj - *before->energy_mj) * 1e-3;
  return window;
}

std::optional<EnergyBaseline> energy_baseline() {
  GpuSession& session = GpuSession::get();
  static std::optional<EnergyBaseline> measured;
  static int measured_for = -1;
  if (measured && measured_for == session.device().index) return measured;
  const std::optional<PowerSample> before = session.power_sample();
  if (!before || !before->energy_mj) return std::nullopt;
  std::this_thread::sleep_for(std::chrono::duration<double>(kBaselineSeconds));
  const std::optional<PowerSample> after = session.power_sample();
  if (!after || !after->energy_mj) return std::nullopt;
  EnergyBaseline baseline;
  baseline.idle_w =
      static_cast<double>(*after->energy_mj - *before->energy_mj) * 1e-3 / (after->host_seconds - before->host_seconds);
  constexpr std::uint64_t kSleepNs = 10'000'000;
  const int blocks = session.device().sm_count;
  const auto sleep = [blocks](cudaStream_t s, Clocks) { active_idle<<<blocks, 32, 0, s>>>(kSleepNs); };
  const std::optional<EnergyWindow> active = energy_of(sleep, kSleepNs * 1e-9, kBaselineSeconds);
  if (!active) return std::nullopt;
  baseline.active_idle_w = active->watts();
  measured = baseline;
  measured_for = session.device().index;
  return measured;
}

std::vector<double> picojoules_per_unit(const std::vector<EnergyWindow>& windows, double units_per_launch,
                                        double baseline_w) {
  std::vector<double> picojoules;
  for (const EnergyWindow& w : windows) {
    const double units = units_per_launch * static_cast<double>(w.launches);
    if (units > 0) picojoules.push_back((w.joules - baseline_w * w.seconds) / units * 1e12);
  }
  return picojoules;
}

}  // namespace gpubench
