// The run's ending: the micro-architecture card, built by analysis/card.py from the JSON the run wrote
// (one implementation of every rule, in Python, shared with the analysis scripts), by a Python that
// has the packages the card needs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpubench::app {

struct CardResult {
  bool ok = false;
  std::string markdown;     // the card, when ok
  std::string message;      // one line: why there is no card, or which Python made it and whether it drew plots
  int verdict_status = -1;  // with a verdict asked: card.py --check's exit status (0 normal, 1 abnormal, ...)
  std::string verdict;      // and its lines
};

// --gpubench_verdict: after the card, card.py checks the run against the SKU's limits and measures the
// families of outside values again by running `binary` with `args` (the run's own flags) and a filter.
struct VerdictRequest {
  std::string binary;
  std::vector<std::string> args;
};

// Whether `python` starts (checked before a run, so a bad --gpubench_python costs no run).
bool python_runs(const std::string& python);

// Why a file cannot be written at `path` (its folder missing, or not writable), or empty when it
// can (or path is empty). The card's prefix counts as a path: PREFIX.md goes beside it.
std::string unwritable_reason(const std::string& path);

// Runs card.py on `json` writing `prefix`.md / .json (and, with `plots`, figures where matplotlib exists).
// `python`: the user's choice (--gpubench_python or GPUBENCH_PYTHON), or empty to find one.
CardResult make_card(const std::string& json, const std::string& prefix, const std::string& python,
                     const std::optional<VerdictRequest>& verdict = std::nullopt, bool plots = true);

}  // namespace gpubench::app
