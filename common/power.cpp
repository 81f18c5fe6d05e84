#include "common/power.h"

#include <cstdio>
#include <utility>

namespace gpubench {

PowerWindow power_window(const PowerSample& before, const PowerSample& after) {
  PowerWindow window;
  const double seconds = after.host_seconds - before.host_seconds;
  if (before.energy_mj && after.energy_mj && *after.energy_mj >= *before.energy_mj &&
      seconds >= kMinEnergyWindowSeconds)
    window.power_w = static_cast<double>(*after.energy_mj - *before.energy_mj) * 1e-3 / seconds;
  if (after.limit_mw) window.limit_w = *after.limit_mw * 1e-3;
  // The start's reasons are the previous row's; the end falls after the last launch, when the GPU
  // idles: that bit says nothing about the run.
  window.reasons = after.reasons.value_or(0) & ~clock_reasons::kGpuIdle;
  const auto grew = [](const std::optional<std::uint64_t>& a, const std::optional<std::uint64_t>& b) {
    return a && b && *b > *a;
  };
  window.power_capped =
      (window.reasons & clock_reasons::kPower) != 0 || grew(before.power_violation_ns, after.power_violation_ns);
  window.thermal_capped =
      (window.reasons & clock_reasons::kThermal) != 0 || grew(before.thermal_violation_ns, after.thermal_violation_ns);
  return window;
}

std::string clock_reason_names(std::uint64_t reasons) {
  using namespace clock_reasons;
  static const std::pair<std::uint64_t, const char*> names[] = {
      {kGpuIdle, "GpuIdle"},
      {kApplicationsClocksSetting, "ApplicationsClocksSetting"},
      {kSwPowerCap, "SwPowerCap"},
      {kHwSlowdown, "HwSlowdown"},
      {kSyncBoost, "SyncBoost"},
      {kSwThermalSlowdown, "SwThermalSlowdown"},
      {kHwThermalSlowdown, "HwThermalSlowdown"},
      {kHwPowerBrakeSlowdown, "HwPowerBrakeSlowdown"},
      {kDisplayClockSetting, "DisplayClockSetting"}};
  if (reasons == 0) return "none";
  std::string text;
  for (const auto& [bit, name] : names) {
    if ((reasons & bit) == 0) continue;
    text += (text.empty() ? "" : ", ") + std::string(name);
    reasons &= ~bit;
  }
  if (reasons != 0) {
    char rest[32];
    std::snprintf(rest, sizeof rest, "0x%llx", static_cast<unsigned long long>(reasons));
    text += (text.empty() ? "" : ", ") + std::string(rest);
  }
  return text;
}

}  // namespace gpubench
