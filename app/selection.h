// Which benchmarks a run selects, asked of Google Benchmark itself (its list mode), so gpubench can
// plan progress, keep GPU benchmarks out of a run without a GPU, and treat every whole-suite filter
// alike.
#pragma once

#include "common/registry.h"

#include <string>
#include <utility>
#include <vector>

namespace gpubench::app {

// Full names of the benchmarks `filter` selects (empty filter: all). Call before the real
// benchmark::Initialize: it initializes Google Benchmark in list mode with argv0 and the filter only.
std::vector<std::string> list_selected(const char* argv0, const std::string& filter);

// The selection's families in run order, with their row counts.
std::vector<std::pair<std::string, int>> families_of(const std::vector<std::string>& names);

// The names among `names` whose registration runs without a GPU.
std::vector<std::string> host_only(const std::vector<std::string>& names);

// The names among `names` that the check preset runs (runs_in_check).
std::vector<std::string> check_rows(const std::vector<std::string>& names);

// The names among `names` that `preset` runs: the check's (check_rows), a long preset's own (burn, memtest: rows
// marked only_in_preset), or every one (quick, full).
std::vector<std::string> preset_rows(const std::vector<std::string>& names, Preset preset);

// A Google Benchmark filter (POSIX extended regex) matching exactly these names.
std::string exact_filter(const std::vector<std::string>& names);

// A filter that selects exactly `names` among `all` (names is a part of all), short enough for a regex engine: a
// registered case whose every row of `all` is in `names` is matched by its prefix, the rest name by name. A full
// preset's exact names (2,300 of them) are more than std::regex takes (its NFA state limit).
std::string compact_filter(const std::vector<std::string>& names, const std::vector<std::string>& all);

}  // namespace gpubench::app
