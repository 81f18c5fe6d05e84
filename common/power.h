// What the board says about a row's timed launches: power drawn, the enforced power limit and why the
// clocks were held back, from NVML samples taken before and after the timed loop. Plain data and the
// arithmetic on it (units, counter differences, reason bits), testable without a GPU or NVML.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpubench {

// NVML's clocks-event reason bits (nvml.h's nvmlClocksEventReason*), copied so the arithmetic builds
// where NVML does not.
namespace clock_reasons {
inline constexpr std::uint64_t kGpuIdle = 0x1;
inline constexpr std::uint64_t kApplicationsClocksSetting = 0x2;
inline constexpr std::uint64_t kSwPowerCap = 0x4;
inline constexpr std::uint64_t kHwSlowdown = 0x8;
inline constexpr std::uint64_t kSyncBoost = 0x10;
inline constexpr std::uint64_t kSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint64_t kDisplayClockSetting = 0x100;
inline constexpr std::uint64_t kPower = kSwPowerCap | kHwPowerBrakeSlowdown;
inline constexpr std::uint64_t kThermal = kSwThermalSlowdown | kHwThermalSlowdown | kHwSlowdown;
}  // namespace clock_reasons

// One NVML reading; a field NVML refused (unsupported on this board) stays empty.
struct PowerSample {
  double host_seconds = 0.0;                          // steady clock when sampled
  std::optional<std::uint64_t> energy_mj;             // total energy since the driver loaded
  std::optional<std::uint32_t> power_mw;              // the board's current power reading
  std::optional<std::uint32_t> limit_mw;              // the enforced power limit
  std::optional<std::uint64_t> reasons;               // clocks-event reasons now (bits above)
  std::optional<std::uint64_t> power_violation_ns;    // time held back by the power cap, cumulative
  std::optional<std::uint64_t> thermal_violation_ns;  // time held back by temperature, cumulative
};

// A second of a long run (the burn preset): power and its reasons, with the clocks and temperatures beside them.
struct LoadSample {
  PowerSample power;
  std::optional<std::uint32_t> sm_mhz;
  std::optional<std::uint32_t> memory_mhz;
  std::optional<std::int32_t> temperature_c;         // the GPU die's sensor
  std::optional<std::int32_t> memory_temperature_c;  // HBM's, where the board reports it
};

// The window between two samples, in the units rows report.
struct PowerWindow {
  std::optional<double> power_w;  // energy counter's difference over the window; nothing when too short
  std::optional<double> limit_w;
  std::uint64_t reasons = 0;    // reasons seen at either end, but GpuIdle
  bool power_capped = false;    // a power reason at either end, or power-cap violation time grew
  bool thermal_capped = false;  // likewise for temperature
};

// The energy counter moves in coarse steps: over 0.1-0.3 s windows an H100's quick rows read half to
// twice their power, so a window needs a second. Neither power reading is a substitute: on an H100 the
// averaged one lags by about a second (it showed the previous row's power) and the instantaneous field
// (NVML_FI_DEV_POWER_INSTANT, sampled every 10 ms) read 455 W in a 0.14-s wgmma row that draws 650-700 W
// (docs/results/2026-11-24-energy-2). Shorter windows report none.
inline constexpr double kMinEnergyWindowSeconds = 1.0;

PowerWindow power_window(const PowerSample& before, const PowerSample& after);

// "SwPowerCap, HwSlowdown" for the set bits ("none" for 0; unknown bits in hex).
std::string clock_reason_names(std::uint64_t reasons);

}  // namespace gpubench
