#include "common/detail/options.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace gpubench {
namespace {

constexpr const char* kFlagPrefix = "--gpubench_";

int parse_device_index(const std::string& text, const std::string& source) {
  std::size_t used = 0;
  int value = -1;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < 0)
    throw std::invalid_argument(source + " must be a GPU index (0, 1, ...), got '" + text + "'");
  return value;
}

bool is_true_flag(const std::string& arg, const std::string& name) {
  return arg == name || arg == name + "=true" || arg == name + "=1" || arg == name + "=yes";
}

}  // namespace

Options parse_options(int& argc, char** argv, const char* env_device, const char* env_counters) {
  Options options;
  if (env_device != nullptr && *env_device != '\0')
    options.device = parse_device_index(env_device, "GPUBENCH_DEVICE");
  if (env_counters != nullptr) options.counters = env_counters;

  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(kFlagPrefix, 0) == 0) {
      const std::string device_flag = "--gpubench_device=";
      const std::string counters_flag = "--gpubench_counters=";
      if (arg.rfind(device_flag, 0) == 0) {
        options.device = parse_device_index(arg.substr(device_flag.size()), "--gpubench_device");
      } else if (arg.rfind(counters_flag, 0) == 0) {
        options.counters = arg.substr(counters_flag.size());
      } else if (arg == "--gpubench_list_counters") {
        options.list_counters = true;
      } else if (is_true_flag(arg, "--gpubench_cold_l2")) {
        options.cold_l2 = true;
      } else {
        throw std::invalid_argument("unknown flag '" + arg + "' (see --help)");
      }
      continue;  // consumed
    }
    if (is_true_flag(arg, "--benchmark_list_tests")) options.list_only = true;
    if (arg == "--help" || arg == "-h") options.help = true;
    argv[kept++] = argv[i];
  }
  argc = kept;
  argv[argc] = nullptr;
  return options;
}

std::string options_usage() {
  return "gpubench: GPU micro-architecture experiments on Google Benchmark.\n"
         "gpubench flags:\n"
         "  --gpubench_device=N       GPU to run on (default 0; environment: GPUBENCH_DEVICE)\n"
         "  --gpubench_counters=LIST  hardware counters (environment: GPUBENCH_COUNTERS):\n"
         "                            default (each experiment's own), none, a,b (instead), +a,b (added)\n"
         "  --gpubench_list_counters  print the counter table (names, metrics, units) and exit\n"
         "  --gpubench_cold_l2        empty L2 before every launch, timed ones included (cold-cache\n"
         "                            times; the same state the counter pass and Nsight Compute start from)\n"
         "Counters: cycles (clock64 span per launch), ns, sm_mhz (clock measured during the run),\n"
         "plus each experiment's own (e.g. cycles_per_path, slowdown). Time is GPU time (manual time).\n"
         "Examples:\n"
         "  gpubench --benchmark_filter=Divergence --benchmark_out=run.json\n"
         "  gpubench --benchmark_list_tests\n\n"
         "Google Benchmark flags:\n";
}

}  // namespace gpubench
