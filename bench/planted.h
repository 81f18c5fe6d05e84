// Faults planted on purpose through an environment variable ("SPEC", or "SPEC@G" for GPU G only), so a test of the
// hardware must name them: the memory test's flipped bit, the burn's wrong product and clock-event reasons.
#pragma once

#include "common/experiment.h"

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpubench {

// The plant's SPEC where `variable` is set and names this run's GPU (or none); nothing otherwise. `bad` is the error
// a malformed "@G" throws (the caller's, naming its own form).
template <class Bad>
std::optional<std::string> plant_for_this_gpu(const char* variable, const Bad& bad) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::string spec = text;
  if (const auto at = spec.find('@'); at != std::string::npos) {
    char* end = nullptr;
    const long gpu = std::strtol(spec.c_str() + at + 1, &end, 10);
    if (end == spec.c_str() + at + 1 || *end != '\0') throw bad();
    if (gpu != device().index) return std::nullopt;
    spec = spec.substr(0, at);
  }
  return spec;
}

}  // namespace gpubench
