// The names of the counters the harness itself writes (every counter a row can carry, with its unit and
// meaning, is in common/counter_catalog.h).
#pragma once

#include <string>

namespace gpubench::counters {

inline constexpr const char* kCycles = "cycles";                 // clock64 span per launch, mean
inline constexpr const char* kCyclesMin = "cycles_min";          // fastest launch
inline constexpr const char* kNs = "ns";                         // cycles at the measured SM clock
inline constexpr const char* kSmMhz = "sm_mhz";                  // SM clock measured while the benchmark ran
inline constexpr const char* kSlowdown = "slowdown";             // relative to the experiment's baseline
inline constexpr const char* kClockFlagged = "clock_flagged";    // 1: the SM clock spoiled this row (see its label)
inline constexpr const char* kPowerW = "power_w";                // board power over the timed launches (NVML)
inline constexpr const char* kPowerLimitW = "power_limit_w";     // enforced power limit (NVML)
inline constexpr const char* kClockReasons = "clock_reasons";    // NVML clocks-event reason bits seen
inline constexpr const char* kPowerCapped = "power_capped";      // 1: the power cap held the clocks back
inline constexpr const char* kThermalCapped = "thermal_capped";  // 1: temperature held the clocks back
inline constexpr const char* kTimeSpread = "time_spread";        // (q3 - min) / median of the launches' times
inline constexpr const char* kCyclesSpread = "cycles_spread";    // the same of their clock64 spans

// "cycles" + "path" -> "cycles_per_path".
inline std::string per(const std::string& quantity, const std::string& unit) { return quantity + "_per_" + unit; }

}  // namespace gpubench::counters
