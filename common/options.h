// gpubench's own command-line flags (--gpubench_*), taken out of argv before Google Benchmark
// parses the rest.
#pragma once

#include <string>

namespace gpubench {

struct Options {
  int device = 0;            // --gpubench_device=N, or GPUBENCH_DEVICE
  bool list_only = false;    // --benchmark_list_tests: no GPU needed
  bool help = false;
};

// Removes gpubench flags from argv (argc shrinks). Throws std::invalid_argument naming a bad flag.
// env_device is the value of GPUBENCH_DEVICE or nullptr; the flag wins over it.
Options parse_options(int& argc, char** argv, const char* env_device);

std::string options_usage();

}  // namespace gpubench
