// Which benchmarks a run selects, asked of Google Benchmark itself (its list mode), so gpubench can
// plan progress, keep GPU benchmarks out of a run without a GPU, and treat every whole-suite filter
// alike.
#pragma once

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

// A Google Benchmark filter (POSIX extended regex) matching exactly these names.
std::string exact_filter(const std::vector<std::string>& names);

}  // namespace gpubench::app
