// Energy of a launch, from NVML's energy counter over windows long enough for it (it updates every few
// tens of milliseconds, and on A100/H100 sees only part of each interval): the launch repeated back to
// back for about a second, in batches with one synchronization each, the GPU's baseline power over
// the same kind of window subtracted.
#pragma once

#include "common/launch.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace gpubench {

struct EnergyWindow {
  double seconds = 0.0;
  double joules = 0.0;
  std::int64_t launches = 0;
  double watts() const { return seconds > 0 ? joules / seconds : 0.0; }
};

// `launch` back to back for at least `min_seconds` (batches of about 20 ms of `launch_seconds` each).
// Nothing where NVML reads no energy.
std::optional<EnergyWindow> energy_of(const Launch& launch, double launch_seconds, double min_seconds);

// The baselines, measured once per process and GPU: the GPU idle (nothing launched), and active-idle
// (a block on every SM, asleep: the power of a busy GPU that computes and moves nothing).
struct EnergyBaseline {
  double idle_w = 0.0;
  double active_idle_w = 0.0;
};
std::optional<EnergyBaseline> energy_baseline();

// Joules of one unit of work (FLOP, bit) above the active-idle power, per window; in picojoules.
std::vector<double> picojoules_per_unit(const std::vector<EnergyWindow>& windows, double units_per_launch,
                                        double baseline_w);

}  // namespace gpubench
