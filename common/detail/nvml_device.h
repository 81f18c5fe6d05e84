// NVML for the GPU a session measures: one handle, and samples of its energy counter, power, power limit,
// clocks-event reasons and throttle (violation) times. Built with the toolkit's nvml.h and CUDA::nvml
// where they exist (GPUBENCH_HAVE_NVML); elsewhere every device is "unavailable in this build".
#pragma once

#include "common/power.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gpubench {

class NvmlDevice {
 public:
  // Opens NVML for CUDA device `cuda_index` (matched by PCI bus id). Never throws: when NVML is missing
  // from the build, does not start or refuses the device, unavailable() says why.
  explicit NvmlDevice(int cuda_index);
  ~NvmlDevice();
  NvmlDevice(const NvmlDevice&) = delete;
  NvmlDevice& operator=(const NvmlDevice&) = delete;

  const std::optional<std::string>& unavailable() const { return why_; }
  // A reading now; fields the board refuses stay empty. Only when available.
  PowerSample sample() const;
  // NVML's instantaneous power field (not the ~1 s average power_mw reads); nothing where the driver or
  // board lacks it.
  std::optional<std::uint32_t> instant_power_mw() const;

 private:
  void* handle_ = nullptr;  // nvmlDevice_t
  bool initialized_ = false;
  std::optional<std::string> why_;
};

// Samples a device's instantaneous power every `period` on a thread of its own from construction to
// stop() (or destruction): a row's power over windows too short for the energy counter.
class InstantPowerSampler {
 public:
  InstantPowerSampler(const NvmlDevice* device, double period_seconds = 0.01);
  ~InstantPowerSampler();
  InstantPowerSampler(const InstantPowerSampler&) = delete;
  InstantPowerSampler& operator=(const InstantPowerSampler&) = delete;
  InstantPower stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpubench
