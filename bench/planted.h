// Faults planted on purpose through an environment variable ("SPEC", or "SPEC@G" for GPU G only), so a test of the
// hardware must name them: the memory test's flipped bit, the burn's wrong product and clock-event reasons, a slow
// host link. Each variable's form is registered (common/plant_forms.h): the main refuses a malformed one at start.
#pragma once

#include "common/experiment.h"
#include "common/plant_forms.h"

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpubench {

// The error of a malformed plant: "VARIABLE=TEXT: FORM" (FORM: what the variable takes).
inline std::invalid_argument plant_error(const char* variable, const char* form) {
  const char* text = std::getenv(variable);
  return std::invalid_argument(std::string(variable) + "=" + (text ? text : "") + ": " + form);
}

// A plant's SPEC and the GPU its "@G" names (none: every GPU).
struct PlantText {
  std::string spec;
  std::optional<long> gpu;
};

// Splits `text` at its "@"; `bad` is the error a malformed "@G" throws (the caller's, naming its own form).
template <class Bad>
PlantText split_plant(const std::string& text, const Bad& bad) {
  const auto at = text.find('@');
  if (at == std::string::npos) return {text, std::nullopt};
  char* end = nullptr;
  const long gpu = std::strtol(text.c_str() + at + 1, &end, 10);
  if (end == text.c_str() + at + 1 || *end != '\0' || gpu < 0) throw bad();
  return {text.substr(0, at), gpu};
}

// The plant's SPEC where `variable` is set and names this run's GPU (or none); nothing otherwise.
template <class Bad>
std::optional<std::string> plant_for_this_gpu(const char* variable, const Bad& bad) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return std::nullopt;
  PlantText plant = split_plant(text, bad);
  if (plant.gpu && *plant.gpu != device().index) return std::nullopt;
  return plant.spec;
}

// Registers `variable`'s form for the check at start: `parse_spec` reads a SPEC (the text less its "@G") or throws.
template <class Bad, class ParseSpec>
bool register_plant(const char* variable, const Bad& bad, const ParseSpec& parse_spec) {
  return register_plant_form(variable,
                             [bad, parse_spec](const std::string& text) { parse_spec(split_plant(text, bad).spec); });
}

}  // namespace gpubench
