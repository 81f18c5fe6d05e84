// gpubench's own command-line flags (--gpubench_*), taken out of argv before Google Benchmark
// parses the rest, and a check of the Google Benchmark flags that its versions would abort on.
#pragma once

#include <string>
#include <vector>

namespace gpubench {

// --gpubench_device: one GPU, a list (0,1) or all of the host's, run one after the other.
struct DeviceChoice {
  bool all = false;
  std::vector<int> listed{0};  // when not all
  // The GPUs to run on, given how many the host has (all on a host without any: GPU 0, whose
  // session then says why it cannot open).
  std::vector<int> resolve(int device_count) const;
};

struct Options {
  DeviceChoice devices;             // --gpubench_device=N|LIST|all, or GPUBENCH_DEVICE
  bool list_only = false;           // --benchmark_list_tests: no GPU needed
  std::string counters;             // --gpubench_counters=SPEC, or GPUBENCH_COUNTERS
  std::string list_counters;        // --gpubench_list_counters[=text|markdown|json]: "" when not asked
  bool cold_l2 = false;             // --gpubench_cold_l2: empty L2 before every launch
  bool verdict = false;             // --gpubench_verdict: check against the SKU, measure outside values again
  std::string preset = "quick";     // --gpubench_preset=quick|full|check|burn|memtest, or GPUBENCH_PRESET
  double duration_s = 0.0;          // --gpubench_duration=S: each burn or memtest row's time; 0: the default
  std::string card;                 // --gpubench_card=PREFIX: card files; "none": no card; "": beside --benchmark_out
  std::string python;               // --gpubench_python=PATH, or GPUBENCH_PYTHON: the Python that builds the card
  std::string out;                  // --benchmark_out=FILE, seen (not consumed)
  std::string format = "console";   // --benchmark_format, seen
  std::string out_format = "json";  // --benchmark_out_format, seen
  bool min_time_given = false;      // --benchmark_min_time, seen: fixed effort instead of the stopping rule
  double precision = 0.0;           // --gpubench_precision=PCT as a fraction; 0: the preset's target
  std::string plan;                 // --gpubench_plan=CHIP|list: the preset for a known chip, nothing run
  double deadline_s = 0.0;          // --gpubench_deadline=S, or GPUBENCH_DEADLINE: rows not run by then are interrupted
  std::vector<int> peers;           // --gpubench_peers=N,M: a node run's child measures its Peer rows with these
  int expect_gpus = 0;              // --gpubench_expect_gpus=N, or GPUBENCH_EXPECT_GPUS: fewer is "missing"; 0 unset
  bool help = false;
};

// Removes gpubench flags from argv (argc shrinks), checks Google Benchmark's flags that take values
// and rewrites --benchmark_min_time to the form this Google Benchmark understands. Throws
// std::invalid_argument naming a bad flag. env_* are GPUBENCH_DEVICE / GPUBENCH_COUNTERS /
// GPUBENCH_PRESET or nullptr; flags win.
Options parse_options(int& argc, char** argv, const char* env_device, const char* env_counters = nullptr,
                      const char* env_preset = nullptr, const char* env_python = nullptr);

// Throws std::invalid_argument when `filter` (a --benchmark_filter value, a leading '-' negating it)
// is not a regular expression Google Benchmark can use.
void check_filter(const std::string& filter);

// --benchmark_min_time's value for Google Benchmark major.minor: 1.8+ takes "<seconds>s", "<seconds>"
// and "<iterations>x"; 1.7 only "<seconds>". Throws std::invalid_argument when malformed or when this
// version cannot express it.
std::string min_time_for_version(const std::string& value, int major, int minor);

// "all", "N" or "N,M,...": distinct GPU indices. Throws std::invalid_argument naming `source`.
DeviceChoice parse_device_choice(const std::string& text, const std::string& source);

std::string options_usage();

}  // namespace gpubench
