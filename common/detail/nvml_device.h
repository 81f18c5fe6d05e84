// NVML for the GPU a session measures: one handle, and samples of its energy counter, power, power limit,
// clocks-event reasons and throttle (violation) times. Built with the toolkit's nvml.h and CUDA::nvml
// where they exist (GPUBENCH_HAVE_NVML); elsewhere every device is "unavailable in this build".
#pragma once

#include "common/power.h"

#include <optional>
#include <string>

namespace gpubench {

// NVML's handle (an nvmlDevice_t) of CUDA device `cuda_index`, matched by its PCI bus id, with NVML started; null, and
// `why`, where there is none (or this build has no NVML). The one way gpubench finds a CUDA device in NVML.
void* nvml_handle_of(int cuda_index, std::string* why);

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
  // sample() with the SM and memory clocks and the GPU's and memory's temperatures.
  LoadSample load_sample() const;

 private:
  void* handle_ = nullptr;  // nvmlDevice_t
  bool initialized_ = false;
  std::optional<std::string> why_;
};

}  // namespace gpubench
