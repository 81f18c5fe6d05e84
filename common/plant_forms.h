// Faults planted on purpose through environment variables (GPUBENCH_PLANT*, for calibrating the verdicts): the code
// that plants one registers its form, and the main checks every set variable before any row runs, so a misspelt
// plant is refused at start (exit 2) instead of failing the rows it touches (an incomplete verdict, which drains).
#pragma once

#include <functional>
#include <string>

namespace gpubench {

// `parse` throws std::invalid_argument, naming the variable and its form, where the variable's text is malformed.
// Returns true, for a namespace-scope initializer.
bool register_plant_form(const char* variable, std::function<void(const std::string& text)> parse);

// Throws the error of the first set plant variable whose text is malformed (GPUBENCH_PLANT_HEALTH's included).
void check_plant_forms();

}  // namespace gpubench
