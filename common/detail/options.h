// gpubench's own command-line flags (--gpubench_*), taken out of argv before Google Benchmark
// parses the rest.
#pragma once

#include <string>

namespace gpubench {

struct Options {
  int device = 0;            // --gpubench_device=N, or GPUBENCH_DEVICE
  bool list_only = false;    // --benchmark_list_tests: no GPU needed
  std::string counters;      // --gpubench_counters=SPEC, or GPUBENCH_COUNTERS
  bool list_counters = false;  // --gpubench_list_counters
  bool cold_l2 = false;      // --gpubench_cold_l2: empty L2 before every launch
  bool help = false;
};

// Removes gpubench flags from argv (argc shrinks). Throws std::invalid_argument naming a bad flag.
// env_device / env_counters are GPUBENCH_DEVICE / GPUBENCH_COUNTERS or nullptr; flags win.
Options parse_options(int& argc, char** argv, const char* env_device, const char* env_counters = nullptr);

std::string options_usage();

}  // namespace gpubench
