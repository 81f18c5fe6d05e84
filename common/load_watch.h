// What the board says while a long load runs (the burn preset): NVML's power, clocks, temperatures and clock-event
// reasons of one GPU, read when asked (a second apart). Never throws: without NVML, unavailable() says why and each
// reading carries only its host time.
#pragma once

#include "common/power.h"

#include <memory>
#include <optional>
#include <string>

namespace gpubench {

class NvmlDevice;

class LoadWatch {
 public:
  explicit LoadWatch(int cuda_index);
  ~LoadWatch();
  LoadWatch(const LoadWatch&) = delete;
  LoadWatch& operator=(const LoadWatch&) = delete;

  const std::optional<std::string>& unavailable() const;
  LoadSample sample() const;

 private:
  std::unique_ptr<NvmlDevice> device_;
};

}  // namespace gpubench
