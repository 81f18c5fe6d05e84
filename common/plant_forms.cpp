#include "common/plant_forms.h"

#include "common/detail/gpu_health.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <map>
#include <utility>

namespace gpubench {
namespace {
std::map<std::string, std::function<void(const std::string&)>>& forms() {
  static auto* registered = new std::map<std::string, std::function<void(const std::string&)>>;
  return *registered;
}
}  // namespace

bool register_plant_form(const char* variable, std::function<void(const std::string& text)> parse) {
  forms()[variable] = std::move(parse);
  return true;
}

void check_plant_forms() {
  if (const char* text = std::getenv(detail::kPlantHealthVariable)) {
    nlohmann::ordered_json trial = nlohmann::ordered_json::object();
    detail::plant_health(trial, text, -1, /*form_only=*/true);
  }
  for (const auto& [variable, parse] : forms())
    if (const char* text = std::getenv(variable.c_str()); text != nullptr && *text != '\0') parse(text);
}

}  // namespace gpubench
