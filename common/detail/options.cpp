#include "common/detail/options.h"

#include "common/benchmark_compat.h"

#include <cstdlib>
#include <cstring>
#include <deque>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {
namespace {

constexpr const char* kFlagPrefix = "--gpubench_";

int parse_device_index(const std::string& text, const std::string& source) {
  std::size_t used = 0;
  int value = -1;
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  try {
    if (digits) value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (!digits || used != text.size() || value < 0)
    throw std::invalid_argument(source + " must be a GPU index (0, 1, ...), a list (0,1) or all, got '" + text + "'");
  return value;
}

}  // namespace

DeviceChoice parse_device_choice(const std::string& text, const std::string& source) {
  DeviceChoice choice;
  choice.listed.clear();
  if (text == "all") {
    choice.all = true;
    return choice;
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const int index = parse_device_index(item, source);
    for (int seen : choice.listed)
      if (seen == index) throw std::invalid_argument(source + " lists GPU " + item + " twice ('" + text + "')");
    choice.listed.push_back(index);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return choice;
}

std::vector<int> DeviceChoice::resolve(int device_count) const {
  if (!all) return listed;
  std::vector<int> every;
  for (int i = 0; i < device_count; ++i) every.push_back(i);
  if (every.empty()) every.push_back(0);
  return every;
}

namespace {

std::string parse_preset(const std::string& text, const std::string& source) {
  if (text == "quick" || text == "full" || text == "check" || text == "burn" || text == "memtest") return text;
  throw std::invalid_argument(source + " must be quick, full, check, burn or memtest, got '" + text + "'");
}

// --name, --name=true/1/yes: true; --name=false/0/no: false; anything else is an error. nullopt-like:
// returns -1 when `arg` is not this flag at all.
int bool_flag(const std::string& arg, const std::string& name) {
  if (arg == name) return 1;
  if (arg.rfind(name + "=", 0) != 0) return -1;
  const std::string value = arg.substr(name.size() + 1);
  if (value == "true" || value == "1" || value == "yes") return 1;
  if (value == "false" || value == "0" || value == "no") return 0;
  throw std::invalid_argument("'" + arg + "': " + name + " takes true or false");
}

bool value_of(const std::string& arg, const std::string& name, std::string& value) {
  if (arg.rfind(name + "=", 0) != 0) return false;
  value = arg.substr(name.size() + 1);
  return true;
}

bool is_number(const std::string& text, bool integer) {
  if (text.empty()) return false;
  char* end = nullptr;
  if (integer) {
    std::strtol(text.c_str(), &end, 10);
  } else {
    std::strtod(text.c_str(), &end);
  }
  return end != nullptr && *end == '\0';
}

void require_one_of(const std::string& flag, const std::string& value, const std::set<std::string>& allowed) {
  if (allowed.count(value)) return;
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw std::invalid_argument(flag + "=" + value + ": expected one of " + list);
}

// Google Benchmark flags whose bad values it would abort on or exit silently for; checked here so the
// user gets one line and exit 2. Returns the argument as Google Benchmark should see it.
std::string check_benchmark_flag(const std::string& arg, Options& options) {
  std::string value;
  if (value_of(arg, "--benchmark_filter", value)) check_filter(value);
  if (value_of(arg, "--benchmark_min_time", value)) {
    options.min_time_given = true;
    return "--benchmark_min_time=" +
           min_time_for_version(value, GPUBENCH_BENCHMARK_VERSION_MAJOR, GPUBENCH_BENCHMARK_VERSION_MINOR);
  }
  if (value_of(arg, "--benchmark_min_warmup_time", value) && !is_number(value, false))
    throw std::invalid_argument(arg + ": expected seconds, e.g. 0.1");
  if (value_of(arg, "--benchmark_repetitions", value) && (!is_number(value, true) || std::atoi(value.c_str()) < 1))
    throw std::invalid_argument(arg + ": expected a whole number of at least 1");
  if (value_of(arg, "--benchmark_format", value)) {
    require_one_of("--benchmark_format", value, {"console", "json", "csv"});
    options.format = value;
  }
  if (value_of(arg, "--benchmark_out_format", value)) {
    require_one_of("--benchmark_out_format", value, {"console", "json", "csv"});
    options.out_format = value;
  }
  if (value_of(arg, "--benchmark_time_unit", value))
    require_one_of("--benchmark_time_unit", value, {"ns", "us", "ms", "s"});
  if (value_of(arg, "--benchmark_out", value)) options.out = value;
  return arg;
}

}  // namespace

std::string min_time_for_version(const std::string& value, int major, int minor) {
  const bool modern = major > 1 || minor >= 8;
  const std::string usage = "--benchmark_min_time=" + value + ": expected seconds (0.5 or 0.5s)" +
                            std::string(modern ? " or iterations (100x)" : "");
  if (value.empty()) throw std::invalid_argument(usage);
  const char last = value.back();
  const std::string number = (last == 's' || last == 'x') ? value.substr(0, value.size() - 1) : value;
  if (last == 'x') {
    if (!is_number(number, true)) throw std::invalid_argument(usage);
    if (!modern)
      throw std::invalid_argument("--benchmark_min_time=" + value +
                                  ": iteration counts need Google Benchmark 1.8 or newer; this gpubench uses " +
                                  std::to_string(major) + "." + std::to_string(minor));
    return value;
  }
  if (!is_number(number, false) || std::strtod(number.c_str(), nullptr) < 0) throw std::invalid_argument(usage);
  return modern ? number + "s" : number;
}

void check_filter(const std::string& filter) {
  const std::string pattern = !filter.empty() && filter[0] == '-' ? filter.substr(1) : filter;
  try {
    std::regex(pattern, std::regex::extended);  // as Google Benchmark compiles it
  } catch (const std::regex_error& e) {
    throw std::invalid_argument("--benchmark_filter=" + filter + ": not a regular expression (" + e.what() + ")");
  }
}

namespace {
// A count of GPUs, 1 to 1024. Throws std::invalid_argument naming `source`.
int parse_gpu_count(const std::string& text, const std::string& source) {
  char* end = nullptr;
  const long count = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || count < 1 || count > 1024)
    throw std::invalid_argument(source + "=" + text + ": give the number of GPUs the node should have (1-1024)");
  return static_cast<int>(count);
}

// Seconds, 1 to a day. Throws std::invalid_argument naming `source`.
double parse_deadline(const std::string& text, const std::string& source) {
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(seconds >= 1.0 && seconds <= 86400.0))
    throw std::invalid_argument(source + "=" + text + ": give the seconds the run may take (1-86400)");
  return seconds;
}
}  // namespace

Options parse_options(int& argc, char** argv, const char* env_device, const char* env_counters, const char* env_preset,
                      const char* env_python) {
  Options options;
  if (env_python != nullptr) options.python = env_python;
  if (env_device != nullptr && *env_device != '\0')
    options.devices = parse_device_choice(env_device, "GPUBENCH_DEVICE");
  if (env_counters != nullptr) options.counters = env_counters;
  if (env_preset != nullptr && *env_preset != '\0') options.preset = parse_preset(env_preset, "GPUBENCH_PRESET");
  if (const char* deadline = std::getenv("GPUBENCH_DEADLINE"); deadline != nullptr && *deadline != '\0')
    options.deadline_s = parse_deadline(deadline, "GPUBENCH_DEADLINE");
  if (const char* expect = std::getenv("GPUBENCH_EXPECT_GPUS"); expect != nullptr && *expect != '\0')
    options.expect_gpus = parse_gpu_count(expect, "GPUBENCH_EXPECT_GPUS");

  // Rewritten arguments must outlive argv's use by Google Benchmark; a deque never moves its elements.
  static std::deque<std::string> rewritten;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    if (arg.rfind(kFlagPrefix, 0) == 0) {
      int flag = -1;
      if (value_of(arg, "--gpubench_device", value)) {
        options.devices = parse_device_choice(value, "--gpubench_device");
      } else if (value_of(arg, "--gpubench_counters", value)) {
        options.counters = value;
      } else if (value_of(arg, "--gpubench_preset", value)) {
        options.preset = parse_preset(value, "--gpubench_preset");
      } else if (value_of(arg, "--gpubench_precision", value)) {
        char* end = nullptr;
        const double percent = std::strtod(value.c_str(), &end);
        if (value.empty() || end == nullptr || *end != '\0' || !(percent > 0.0) || percent > 100.0)
          throw std::invalid_argument("--gpubench_precision=" + value +
                                      ": expected a percentage above 0 and at most 100 (0.5 for 0.5%)");
        options.precision = percent / 100.0;
      } else if (value_of(arg, "--gpubench_card", value)) {
        if (value.empty()) throw std::invalid_argument("--gpubench_card needs a path prefix or none");
        options.card = value;
      } else if (value_of(arg, "--gpubench_plan", value)) {
        if (value.empty()) throw std::invalid_argument("--gpubench_plan needs a chip (list: --gpubench_plan=list)");
        options.plan = value;
      } else if (value_of(arg, "--gpubench_python", value)) {
        if (value.empty()) throw std::invalid_argument("--gpubench_python needs the path of a python3");
        options.python = value;
      } else if (arg == "--gpubench_list_counters") {
        options.list_counters = "text";
      } else if (value_of(arg, "--gpubench_list_counters", value)) {
        require_one_of("--gpubench_list_counters", value, {"text", "markdown", "json"});
        options.list_counters = value;
      } else if ((flag = bool_flag(arg, "--gpubench_cold_l2")) >= 0) {
        options.cold_l2 = flag == 1;
      } else if ((flag = bool_flag(arg, "--gpubench_verdict")) >= 0) {
        options.verdict = flag == 1;
      } else if (value_of(arg, "--gpubench_deadline", value)) {
        options.deadline_s = parse_deadline(value, "--gpubench_deadline");
      } else if (value_of(arg, "--gpubench_duration", value)) {
        char* end = nullptr;
        options.duration_s = std::strtod(value.c_str(), &end);
        if (value.empty() || *end != '\0' || !(options.duration_s >= 5.0 && options.duration_s <= 86400.0))
          throw std::invalid_argument("--gpubench_duration=" + value +
                                      ": give the seconds each burn or memtest row runs (5-86400)");
      } else if (value_of(arg, "--gpubench_peers", value)) {
        const DeviceChoice peers = parse_device_choice(value, "--gpubench_peers");
        if (peers.all) throw std::invalid_argument("--gpubench_peers=" + value + ": give GPU indices (N or N,M)");
        options.peers = peers.listed;
      } else if (value_of(arg, "--gpubench_expect_gpus", value)) {
        options.expect_gpus = parse_gpu_count(value, "--gpubench_expect_gpus");
      } else {
        throw std::invalid_argument("unknown flag '" + arg + "' (see --help)");
      }
      continue;  // consumed
    }
    if (bool_flag(arg, "--benchmark_list_tests") == 1) options.list_only = true;
    if (arg == "--help" || arg == "-h") options.help = true;
    const std::string checked = arg.rfind("--benchmark_", 0) == 0 ? check_benchmark_flag(arg, options) : arg;
    if (checked == arg) {
      argv[kept++] = argv[i];
    } else {
      rewritten.push_back(checked);
      argv[kept++] = rewritten.back().data();
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  if (options.verdict && options.out.empty())
    throw std::invalid_argument("--gpubench_verdict needs --benchmark_out=FILE (the verdict is read from the JSON)");
  if (options.verdict && options.out_format != "json")
    throw std::invalid_argument("--gpubench_verdict needs --benchmark_out_format=json (the verdict is read from it)");
  if (options.duration_s > 0.0 && options.preset != "burn" && options.preset != "memtest")
    throw std::invalid_argument("--gpubench_duration is the burn or memtest preset's time (--gpubench_preset=burn)");
  if (options.verdict && options.card == "none")
    throw std::invalid_argument("--gpubench_verdict needs the card (it is built from the card's values)");
  if (options.precision > 0.0 && options.min_time_given)
    throw std::invalid_argument(
        "--gpubench_precision and --benchmark_min_time: choose one (a precision to reach, or a fixed effort)");
  return options;
}

std::string options_usage() {
  return "gpubench: GPU micro-architecture experiments on Google Benchmark.\n"
         "gpubench flags:\n"
         "  --gpubench_preset=P       quick (default: every family at the points that carry its answer),\n"
         "                            full (every sweep) or check (the node check: the values the SKU\n"
         "                            verdict needs and a map of every SM, results verified); for\n"
         "                            administrators, burn (every GPU under tensor-core GEMM and memory\n"
         "                            traffic, answers verified, clocks, power and temperature each\n"
         "                            second) or memtest (the memory pattern test repeated);\n"
         "                            environment: GPUBENCH_PRESET\n"
         "  --gpubench_duration=S     how long the burn or memtest preset runs each GPU (default 120)\n"
         "  --gpubench_precision=PCT  each GPU row samples launches until the 95% confidence interval of\n"
         "                            its mean is within PCT percent (default 0.5, the check 1; at least\n"
         "                            20 launches and 0.08 s of them, at most 0.2 s; full 0.1 and 0.3 s;\n"
         "                            the check 0.05 and 0.15 s); --benchmark_min_time instead: fixed\n"
         "                            effort, Google Benchmark's way\n"

         "  --gpubench_card=PREFIX    write the card to PREFIX.md / PREFIX.json (default: beside\n"
         "                            --benchmark_out, as FILE.card.md / .json); none: no card\n"
         "  --gpubench_device=N       GPU to run on (default 0; environment: GPUBENCH_DEVICE); a list\n"
         "                            (0,1) or all: a node run, a process per GPU at once, each then its\n"
         "                            share of the NVLink pairs, taking turns (GPUBENCH_NODE=serial: GPU\n"
         "                            by GPU in one process); each row's name ends in /gpu:N, the\n"
         "                            context holds every GPU (keys /gpu:N)\n"
         "  --gpubench_peers=N,M      a node run's child: the GPUs whose links it measures\n"
         "  --gpubench_counters=LIST  hardware counters (environment: GPUBENCH_COUNTERS):\n"
         "                            default (each experiment's own; the check preset: none), none,\n"
         "                            a,b (instead), +a,b (added)\n"
         "  --gpubench_list_counters[=F]  every counter a row can carry (name, unit, kind, meaning,\n"
         "                            Perfworks metric) and exit; F: text (default), markdown, json\n"
         "  --gpubench_python=PATH    the python3 that builds the card and its plots (environment:\n"
         "                            GPUBENCH_PYTHON; default: the first with matplotlib of the one\n"
         "                            found at configure time, python3 on PATH, /usr/bin/python3)\n"
         "  --gpubench_plan=CHIP      run nothing: every row of the preset for a known chip (a100-sxm4,\n"
         "                            l40s, b200, ...; list: the chips), skipped with the reason that\n"
         "                            chip could not run it, or 'planned'; no GPU needed\n"
         "  --gpubench_cold_l2[=B]    empty L2 before every launch, timed ones included (cold-cache\n"
         "                            times; the same state the counter pass and Nsight Compute start from)\n"
         "  --gpubench_deadline=S     after S seconds the rows not yet run are interrupted and the run\n"
         "                            ends as after SIGTERM: JSON, card and verdict (incomplete) written\n"
         "                            (environment: GPUBENCH_DEADLINE)\n"
         "  --gpubench_expect_gpus=N  the GPUs the node should have (environment: GPUBENCH_EXPECT_GPUS):\n"
         "                            with --gpubench_verdict, fewer usable ones (or none) is the verdict\n"
         "                            missing; without it, the driver's own count where\n"
         "                            CUDA_VISIBLE_DEVICES is unset and --gpubench_device=all\n"
         "  --gpubench_verdict        is this GPU normal for its SKU: after the run and its card, check\n"
         "                            every value against the SKU's limits, measure the families of\n"
         "                            values past a limit once more, then exit with the verdict (the\n"
         "                            exit statuses below; needs --benchmark_out; docs/verdicts.md)\n"
         "  --version                 the gpubench source version it was built from\n"
         "Counters: cycles (clock64 span per launch), ns, sm_mhz (clock measured during the run),\n"
         "plus each experiment's own (e.g. cycles_per_path, slowdown). Time is GPU time (manual time).\n"
         "Filters select within the preset; --benchmark_list_tests lists the preset's rows.\n"
         "--benchmark_min_time takes 0.5 or 0.5s (and 100x on Google Benchmark 1.8+).\n"
         "Ctrl-C ends the benchmark in flight, skips the rest as 'interrupted', still writes valid JSON.\n"
         "Examples:\n"
         "  gpubench --benchmark_out=run.json                 # quick preset, then the card\n"
         "  gpubench --gpubench_preset=full --benchmark_filter=PointerChase --benchmark_out=chase.json\n"
         "  gpubench --benchmark_list_tests\n";
}

}  // namespace gpubench
