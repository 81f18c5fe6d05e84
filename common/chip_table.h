// Device facts of the NVIDIA GPUs gpubench is meant to run on (sm_70 to sm_120), each with its source:
// what `--gpubench_plan=KEY` registers the presets for, without the GPU, and what the per-chip preset
// test checks the quick preset against. On a real GPU the device's own attributes decide, not this.
#pragma once

#include "common/chip_shape.h"

#include <string>
#include <vector>

namespace gpubench {

struct KnownChip {
  std::string key;   // --gpubench_plan=KEY: "a100-sxm4", "h100-sxm5", ...
  std::string name;  // the product
  ChipShape shape;   // SMs, L1/shared per SM, shared-memory maximum per SM, L2, compute capability
  std::string source;
};

const std::vector<KnownChip>& known_chips();
// The chip with this key, or nullptr.
const KnownChip* find_known_chip(const std::string& key);

}  // namespace gpubench
