// The run's ending: the micro-architecture card, built by bench/analysis/card.py from the JSON the
// run wrote (one implementation of every rule, in Python, shared with the analysis scripts).
#pragma once

#include <string>

namespace gpubench::app {

// Runs card.py on `json` writing `prefix`.md / .json (and plots where matplotlib exists); returns the
// card's Markdown, or a one-line reason it could not be made.
std::string make_card(const std::string& json, const std::string& prefix, const char* argv0, bool* ok);

}  // namespace gpubench::app
