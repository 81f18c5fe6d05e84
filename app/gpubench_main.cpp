// gpubench: every registered experiment in one binary. Our flags first, then Google Benchmark's; at
// the end, the micro-architecture card derived from the run's own rows.
#include "app/card_runner.h"
#include "app/gpu_processes.h"
#include "app/json_report.h"
#include "app/node_run.h"
#include "app/selection.h"
#include "app/source_version.h"
#include "app/verdict_table.h"
#include "common/benchmark_compat.h"
#include "common/chip_table.h"
#include "common/counter_catalog.h"
#include "common/cupti/counter_selection.h"
#include "common/cupti/counter_session.h"
#include "common/detail/gpu_health.h"
#include "common/detail/gpu_session.h"
#include "common/detail/options.h"
#include "common/detail/precision.h"
#include "common/detail/process_sampler.h"
#include "common/detail/run_control.h"
#include "common/link_turn.h"
#include "common/plant_forms.h"
#include "common/registry.h"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

void print_help() {
  std::fputs(gpubench::options_usage().c_str(), stdout);
  std::fputs("\nExit status (analysis/verdict/verdicts.json):\n", stdout);
  for (const auto& status : gpubench::app::kgpubench_exits) std::printf("  %d  %s\n", status.code, status.meaning);
  for (const auto& status : gpubench::app::kverdicts_exits)
    std::printf("  %d  with --gpubench_verdict: %s (%s the node)\n", status.code, status.meaning, status.action);
  std::fputs("  128+N  interrupted by signal N (the rows that finished are in the report)\n\n", stdout);
  std::fputs("Google Benchmark flags:\n", stdout);
  benchmark::PrintDefaultHelp();
}

std::string last_filter(int argc, char** argv) {
  std::string filter;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_filter=", 19) == 0) filter = argv[i] + 19;
  return filter;
}

int gpu_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

// Opens `device` and adds its context rows, keys followed by `key_suffix` (/gpu:N in a run over several
// GPUs): the session's, and the other processes on it, with a warning when there are any. Throws
// GpuUnavailable when the GPU cannot be used.
std::string describe_gpu(int device, const std::string& key_suffix) {
  gpubench::GpuSession::select_device(device);
  gpubench::GpuSession::get().add_benchmark_context(key_suffix);
  gpubench::detail::start_health_watch(device);
  const std::string others = gpubench::app::other_gpu_processes(device);
  if (others != "none")
    std::fprintf(stderr,
                 "gpubench: warning: other processes use GPU %d: %s; their work shares the SMs, memory "
                 "and clocks with the run\n",
                 device, others.c_str());
  benchmark::AddCustomContext(gpubench::kOtherProcessesKey + key_suffix, others);
  return others;
}

// Only a named process makes a GPU busy: "none", "unknown (...)" and no look at all (no GPU opened) do not.
bool busy(const std::string& others) { return !others.empty() && others != "none" && others.rfind("unknown", 0) != 0; }

std::atomic<bool> g_deadline_reached{false};
std::atomic<bool> g_rows_over{false};  // the rows are done: the card and verdict are not cut by the deadline

// After `seconds`, the run ends as SIGTERM ends it (the row in flight stops, the rest are interrupted, the JSON, card
// and verdict are written: incomplete), so that a scheduler's own time limit never kills it unreported.
void start_deadline(double seconds) {
  std::thread([seconds] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    if (g_rows_over.load()) return;
    g_deadline_reached.store(true);
    std::fprintf(stderr, "gpubench: the deadline of %.0f s is reached: the rows not run are interrupted\n", seconds);
    kill(getpid(), SIGTERM);
  }).detach();
}

// The node's merged report says its deadline, and whether it was reached, as a one-process run's context does.
void note_deadline_in(const std::string& path, double seconds) {
  std::ifstream in(path);
  nlohmann::ordered_json report = nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded() || !report.contains("context")) return;
  report["context"]["gpubench_deadline_s"] = std::to_string(static_cast<int>(seconds));
  if (g_deadline_reached.load()) report["context"]["gpubench_deadline_reached"] = "yes";
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    out << report.dump(1) << "\n";
  }
  std::rename(partial.c_str(), path.c_str());
}

std::string listed_text(std::optional<int> driver) {
  return driver ? "; the driver lists " + std::to_string(*driver) : std::string();
}

// Why the node has fewer usable GPUs than it should, or "": none at all under a verdict, fewer than
// --gpubench_expect_gpus, or (a node check over every GPU with CUDA_VISIBLE_DEVICES unset) fewer than the driver
// itself lists.
std::string missing_gpus(const gpubench::Options& options) {
  const bool whole_node = options.devices.all && std::getenv("CUDA_VISIBLE_DEVICES") == nullptr;
  std::future<std::optional<int>> driver_count;  // NVML's start beside CUDA's: each takes a few tenths on four GPUs
  if (whole_node || options.expect_gpus > 0)
    driver_count = std::async(std::launch::async, [] { return gpubench::detail::driver_gpu_count(); });
  const int cuda_count = gpu_count();
  const std::optional<int> driver = driver_count.valid() ? driver_count.get() : std::nullopt;
  // A verdict on a node whose GPUs CUDA cannot use (the driver gone, none present) is this node's fault.
  if (options.verdict && cuda_count == 0) return gpubench::no_gpu_reason() + listed_text(driver);
  const std::string listed = listed_text(driver);
  if (options.expect_gpus > 0 && cuda_count < options.expect_gpus)
    return (cuda_count == 0 ? std::string("no usable CUDA GPU") : "CUDA opens " + std::to_string(cuda_count)) +
           " where " + std::to_string(options.expect_gpus) + " are expected (--gpubench_expect_gpus)" + listed;
  if (whole_node && driver && *driver > cuda_count)
    return "CUDA opens " + std::to_string(cuda_count) + " GPU(s), the driver lists " + std::to_string(*driver);
  return "";
}

// The command line and the environment as Options; false (after saying why) on a bad flag, a Python that
// does not run, or an output that cannot be written: checked before a run of minutes, not after it.
bool parse_and_check(int& argc, char** argv, gpubench::Options& options) {
  try {
    options = gpubench::parse_options(argc, argv, std::getenv("GPUBENCH_DEVICE"), std::getenv("GPUBENCH_COUNTERS"),
                                      std::getenv("GPUBENCH_PRESET"), std::getenv("GPUBENCH_PYTHON"));
    // The check judges times and rates only (no card value of it reads a hardware counter): without CUPTI its
    // rows take 4-5 s less a GPU, and a node's processes do not queue for the profiler. --gpubench_counters asks.
    if (options.preset == "check" && options.counters.empty()) options.counters = "none";
    gpubench::CounterSession::get().configure(gpubench::CounterSelection::parse(options.counters));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpubench: %s\n", e.what());
    return false;
  }
  if (!options.python.empty() && !gpubench::app::python_runs(options.python)) {
    std::fprintf(stderr, "gpubench: --gpubench_python=%s (or GPUBENCH_PYTHON) does not run\n", options.python.c_str());
    return false;
  }
  for (const auto& [flag, path] : {std::pair<const char*, std::string>{"--benchmark_out", options.out},
                                   {"--gpubench_card", options.card == "none" ? std::string() : options.card}}) {
    if (const std::string why = gpubench::app::unwritable_reason(path); !why.empty()) {
      std::fprintf(stderr, "gpubench: %s=%s: %s\n", flag, path.c_str(), why.c_str());
      return false;
    }
  }
  return true;
}

// Google Benchmark sees: list mode off (the listing before turned it on), the quick preset's min time
// when `quick_min_time`, then the user's flags, which win. False on a flag it does not know. Under a stopping
// rule the min time is one iteration ("1x"; 0 on 1.7, whose first trial of one iteration then ends the row): a
// GPU row's one iteration samples to its precision, and the row's name stays as registered (Iterations(1) would
// append /iterations:1).
bool initialize_benchmark(int argc, char** argv, bool quick_min_time) {
  std::string list_off = "--benchmark_list_tests=false";
  const bool modern = GPUBENCH_BENCHMARK_VERSION_MAJOR > 1 || GPUBENCH_BENCHMARK_VERSION_MINOR >= 8;
  const std::string effort = gpubench::detail::stopping_rule() != nullptr ? (modern ? "1x" : "0") : "0.1s";
  std::string min_time =
      "--benchmark_min_time=" +
      gpubench::min_time_for_version(effort, GPUBENCH_BENCHMARK_VERSION_MAJOR, GPUBENCH_BENCHMARK_VERSION_MINOR);
  std::vector<char*> args = {argv[0], list_off.data()};
  if (quick_min_time) args.push_back(min_time.data());
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data(), print_help);  // exits after --help
  return !benchmark::ReportUnrecognizedArguments(count, args.data());
}

// How the run measured: the stopping rule, or fixed effort.
std::string precision_context() {
  const gpubench::detail::StoppingRule* rule = gpubench::detail::stopping_rule();
  if (rule == nullptr) return "fixed effort (Google Benchmark's min time)";
  char text[200];
  std::snprintf(text, sizeof text,
                "target %.3g%% (95%% half-width of the mean), at least %d launches and %.3g s of them, at most %.3g "
                "s a row",
                rule->target * 100.0, rule->min_samples, rule->min_s, rule->cap_s);
  return text;
}

int print_counter_catalog(const std::string& format) {
  std::fputs((format == "markdown" ? gpubench::counter_catalog_markdown()
              : format == "json"   ? gpubench::counter_catalog_json() + "\n"
                                   : gpubench::counter_catalog_text())
                 .c_str(),
             stdout);
  return 0;
}

int print_known_chips() {
  for (const gpubench::KnownChip& chip : gpubench::known_chips())
    std::printf("%-10s %-20s sm_%d  %3d SMs  L2 %3zu MiB  (%s)\n", chip.key.c_str(), chip.name.c_str(), chip.shape.sm(),
                chip.shape.sm_count, chip.shape.l2_bytes >> 20, chip.source.c_str());
  return 0;
}

// The chip --gpubench_plan names, or nullptr after saying which chips are known.
const gpubench::KnownChip* known_chip(const std::string& key) {
  const gpubench::KnownChip* chip = gpubench::find_known_chip(key);
  if (chip == nullptr) {
    std::string keys;
    for (const gpubench::KnownChip& known : gpubench::known_chips()) keys += " " + known.key;
    std::fprintf(stderr, "gpubench: --gpubench_plan=%s: not a known chip; known:%s\n", key.c_str(), keys.c_str());
  }
  return chip;
}

// A plan's context: the chip's facts in place of a GPU's.
void add_plan_context(const gpubench::KnownChip& plan) {
  const gpubench::ChipShape& chip = plan.shape;
  benchmark::AddCustomContext("gpubench_plan", plan.key);
  benchmark::AddCustomContext("gpu_name", plan.name + " (planned: nothing ran)");
  benchmark::AddCustomContext("gpu_compute_capability", std::to_string(chip.major) + "." + std::to_string(chip.minor));
  benchmark::AddCustomContext("gpu_sm_count", std::to_string(chip.sm_count));
  benchmark::AddCustomContext("gpu_l2_bytes", std::to_string(chip.l2_bytes));
  benchmark::AddCustomContext("gpu_l1_shared_bytes_per_sm", std::to_string(chip.l1_shared_bytes));
  benchmark::AddCustomContext("gpu_shared_memory_per_sm_bytes", std::to_string(chip.shared_max_bytes));
  benchmark::AddCustomContext("gpubench_plan_source", plan.source);
}

// Every GPU's context before the first row (Google Benchmark writes the context first); a GPU of the list
// that cannot open ends the run here, before any row (false).
bool describe_devices(const std::vector<int>& devices) {
  std::string listed;
  for (int device : devices) {
    try {
      describe_gpu(device, gpubench::Family::device_suffix(device));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpubench: --gpubench_device: %s\n", e.what());
      return false;
    }
    gpubench::GpuSession::close();  // the first row opens its GPU again
    listed += (listed.empty() ? "" : ",") + std::to_string(device);
  }
  benchmark::AddCustomContext("gpubench_devices", listed);
  gpubench::GpuSession::select_device(devices.front());
  return true;
}

// One GPU's context. Without a GPU only the selected benchmarks that need none run (`selected` shrinks to
// them); a selection with none, or the whole suite (`all_count` rows), stops here with the reason (false).
// `others`: what else used the GPU when it opened.
bool open_the_gpu(int device, std::size_t all_count, std::vector<std::string>& selected, std::string& others) {
  try {
    others = describe_gpu(device, "");
  } catch (const gpubench::GpuUnavailable& e) {
    const std::vector<std::string> host = gpubench::app::host_only(selected);
    if (host.empty() || selected.size() == all_count) {
      std::fprintf(stderr, "gpubench: %s\n", e.what());
      return false;
    }
    std::fprintf(stderr, "gpubench: %s; running the %zu selected benchmark(s) that need none, skipping %zu\n", e.what(),
                 host.size(), selected.size() - host.size());
    benchmark::SetBenchmarkFilter(gpubench::app::exact_filter(host));
    selected = host;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpubench: %s\n", e.what());
    return false;
  }
  return true;
}

// The rows, with progress and Ctrl-C handled; the JSON report carries gpubench's data (each row's
// arguments and results, the counter catalog) and what else used the GPUs when the run ended.
void run_selected(const gpubench::Options& options, const std::vector<std::string>& selected,
                  const std::vector<int>& devices) {
  gpubench::detail::set_progress_plan(gpubench::app::families_of(selected));
  gpubench::detail::install_interrupt_handlers();
  // A job that starts and ends between the start's look and the end's is seen by the sampler.
  const bool gpu_rows = gpubench::app::host_only(selected).size() < selected.size();
  std::optional<gpubench::detail::ProcessSampler> sampler;
  if (gpu_rows) sampler.emplace(devices, gpubench::app::ours);
  gpubench::app::JsonReport json_report;
  json_report.add_context_at_end([&devices, &sampler](nlohmann::ordered_json& context) {
    if (sampler) sampler->stop();
    for (int device : devices) {
      const std::string suffix = devices.size() > 1 ? gpubench::Family::device_suffix(device) : std::string();
      const std::string others = gpubench::app::other_gpu_processes(device);
      if (others != "none")
        std::fprintf(stderr, "gpubench: warning: other processes used GPU %d when the run ended: %s\n", device,
                     others.c_str());
      context[gpubench::kOtherProcessesEndKey + suffix] = others;
      if (auto health = gpubench::detail::health_record(device); !health.empty())
        context[gpubench::kGpuHealthKey + suffix] = std::move(health);
      if (!sampler) continue;
      const std::string during = gpubench::detail::describe_seen(
          sampler->seen(device), gpubench::detail::rows_started_by_time(), sampler->unavailable());
      if (busy(during))
        std::fprintf(stderr, "gpubench: warning: other processes used GPU %d during the run: %s\n", device,
                     during.c_str());
      context[gpubench::kOtherProcessesDuringKey + suffix] = during;
    }
    if (g_deadline_reached.load()) context["gpubench_deadline_reached"] = "yes";
  });
  // A node run's child: its peers' contexts made and every sibling ready before any row (link_turn.h). Its rows that
  // take a turn on a link: those of the Peer family but the chase in its own memory.
  if (gpu_rows) {
    const std::string own_memory = "memory_on:" + std::to_string(devices.front()) + "/";
    gpubench::set_link_rows(
        static_cast<int>(std::count_if(selected.begin(), selected.end(), [&](const std::string& row) {
          return row.rfind("Peer/", 0) == 0 && row.find(own_memory) == std::string::npos;
        })));
    gpubench::node_ready(gpubench::node_peers());
  }
  if (!options.out.empty() && options.out_format == "json") {
    benchmark::RunSpecifiedBenchmarks(nullptr, &json_report);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  g_rows_over.store(true);
  benchmark::Shutdown();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  gpubench::CounterSession::get().close();
  gpubench::GpuSession::close();
  // Its buffers, its links' on the peers too, are freed: its GPU may serve another child's link now (x4m: freed after
  // saying so, a chase on a GPU being freed read +-3.9% against +-0.03%).
  gpubench::node_rows_done();
}

// What a --gpubench_verdict rerun passes on: the run's flags without its output, filter, card and verdict.
std::vector<std::string> rerun_args(const std::vector<std::string>& original) {
  std::vector<std::string> kept;
  for (const std::string& arg : original)
    if (arg.rfind("--benchmark_out", 0) != 0 && arg.rfind("--benchmark_filter", 0) != 0 &&
        arg.rfind("--gpubench_card", 0) != 0 && arg.rfind("--gpubench_verdict", 0) != 0 &&
        arg.rfind("--gpubench_deadline", 0) != 0)  // the run's deadline is the run's, not a child's
      kept.push_back(arg);
  return kept;
}

// card.py --check exits with the verdict's own status (analysis/verdict/verdicts.json); anything else is no verdict.
int verdict_exit(int check_status) {
  for (const auto& status : gpubench::app::kverdicts_exits)
    if (status.code == check_status) return check_status;
  return 4;
}

// What a run's rows came to: counted by this process, or read from a node run's merged report.
struct Outcome {
  int failed = 0;
  std::vector<std::string> wrong;
  int signal = 0;
};

// Exit status: the table of analysis/verdict/verdicts.json (gpubench --help): 0 all ran; 1 no GPU; 2 bad command line;
// 3 a benchmark failed; 4 the card asked for could not be made; 8 a result verified in the run was wrong;
// 128+signal interrupted. With --gpubench_verdict: the verdict's.
int finish(const gpubench::Options& options, bool gpu_rows_ran, const std::string& binary,
           const std::vector<std::string>& original_args, const Outcome& outcome) {
  gpubench::detail::finish_progress();
  const int failed = outcome.failed;
  if (failed > 0) std::fprintf(stderr, "gpubench: %d benchmark(s) failed; see ERROR rows above\n", failed);
  const bool json_out = !options.out.empty() && options.out_format == "json";
  bool card_failed = false;
  int verdict_status = -1;
  if (options.card != "none" && (json_out || !options.card.empty())) {
    if (!json_out) {
      std::fprintf(stderr,
                   "gpubench: no card: it is built from the JSON report; add --benchmark_out=FILE "
                   "(JSON)\n");
      card_failed = true;
    } else if (!gpu_rows_ran) {
      std::fprintf(stderr, "gpubench: no card: no GPU row ran (a card describes a GPU)%s\n",
                   options.verdict ? "; no verdict either (exit 4)" : "");
    } else {
      const std::string prefix = options.card.empty() ? options.out + ".card" : options.card;
      std::optional<gpubench::app::VerdictRequest> verdict;
      if (options.verdict) verdict = gpubench::app::VerdictRequest{binary, rerun_args(original_args)};
      // The check's card is read by a scheduler and monitoring: its figures would only add seconds to a node's minute.
      const gpubench::app::CardResult card =
          gpubench::app::make_card(options.out, prefix, options.python, verdict, options.preset != "check");
      if (card.ok) {
        // The card follows the console table; with JSON or CSV on stdout it goes to stderr instead.
        std::FILE* stream = options.format == "console" ? stdout : stderr;
        std::fprintf(stream, "\n%s\n", card.markdown.c_str());
        std::fflush(stream);
        std::fprintf(stderr, "gpubench: card written to %s.md and %s.json; %s\n", prefix.c_str(), prefix.c_str(),
                     card.message.c_str());
        if (card.verdict_status >= 0) {
          std::fputs(card.verdict.c_str(), stderr);
          verdict_status = card.verdict_status;
        }
      } else {
        std::fprintf(stderr, "gpubench: %s\n", card.message.c_str());
        card_failed = true;
      }
    }
  }
  for (const std::string& wrong : outcome.wrong) std::fprintf(stderr, "gpubench: WRONG RESULT: %s\n", wrong.c_str());
  if (outcome.signal != 0) {
    std::fprintf(stderr, "gpubench: interrupted; the rows that finished are in the report\n");
    // Stopped by its own --gpubench_deadline, a run with a verdict exits with it (incomplete), as its scheduler reads.
    if (!(g_deadline_reached.load() && verdict_status >= 0)) return 128 + outcome.signal;
  }
  if (!outcome.wrong.empty()) return 8;  // whatever else the verdict found
  if (verdict_status >= 0) return verdict_exit(verdict_status);
  if (options.verdict) return 4;  // asked, and no verdict came
  return failed > 0 ? 3 : card_failed ? 4 : 0;
}

// The parent's set-up, step by step, for the node's timeline: (step, seconds since main began).
std::chrono::steady_clock::time_point g_main_started;
std::vector<std::pair<std::string, double>> g_setup_marks;
void mark_setup(const char* step) {
  g_setup_marks.emplace_back(step,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - g_main_started).count());
}

// Several GPUs as a node (app/node_run.h): every GPU's rows at once, one child each, each then its share of the
// NVLink pairs, taking turns;
// the merged report then gets its card and verdict as any run's.
int run_as_node(const gpubench::Options& options, const std::vector<int>& devices, const std::vector<std::string>& all,
                const std::vector<std::string>& selected, const char* argv0, const std::vector<std::string>& original) {
  if (options.out.empty() || options.out_format != "json") {
    std::fprintf(stderr,
                 "gpubench: a run over several GPUs writes one report of the node: add --benchmark_out=FILE "
                 "(JSON), or GPUBENCH_NODE=serial to run them one after the other in this process\n");
    return 2;
  }
  char self[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  gpubench::app::NodeRun node;
  node.gpus = devices;
  node.selected = selected;
  node.all = all;
  node.binary = length > 0 ? std::string(self, static_cast<std::size_t>(length)) : std::string(argv0);
  node.reaper = node.binary;
  node.out = options.out;
  for (const std::string& arg : rerun_args(original))
    if (arg.rfind("--gpubench_device", 0) != 0 && arg.rfind("--benchmark_out_format", 0) != 0) node.args.push_back(arg);
  if (options.deadline_s > 0) start_deadline(options.deadline_s);
  mark_setup("the rest");
  std::string steps;
  double before = 0;
  for (const auto& [step, at] : g_setup_marks) {
    char text[96];
    std::snprintf(text, sizeof text, "%s%s %.2f s", steps.empty() ? "" : ", ", step.c_str(), at - before);
    steps += text;
    before = at;
  }
  std::fprintf(stderr, "gpubench: node: the parent's set-up over %zu GPUs took %.2f s: %s\n", devices.size(), before,
               steps.c_str());
  const gpubench::app::NodeResult result = gpubench::app::run_node(node);
  g_rows_over.store(true);
  if (options.deadline_s > 0) note_deadline_in(options.out, options.deadline_s);
  if (!result.ok) {
    std::fprintf(stderr, "gpubench: %s\n", result.message.c_str());
    return 3;
  }
  std::fprintf(stderr, "gpubench: %d rows of %zu GPUs (node)\n", result.rows, devices.size());
  const bool gpu_rows = gpubench::app::host_only(selected).size() < selected.size();
  return finish(options, gpu_rows, argv0, original, Outcome{result.failed, result.wrong, result.signal});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], gpubench::app::kNodeReaperFlag) == 0) return gpubench::app::reap_node(argv[2]);
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("gpubench %s (Google Benchmark %d.%d)\n", GPUBENCH_SOURCE_VERSION, GPUBENCH_BENCHMARK_VERSION_MAJOR,
                GPUBENCH_BENCHMARK_VERSION_MINOR);
    return 0;
  }
  gpubench::app::die_with_the_node();
  g_main_started = std::chrono::steady_clock::now();
  // Load every kernel at start-up: a lazily loaded kernel's first launch waits for the GPU to idle.
  setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);
  std::vector<std::string> expanded;  // argv, a node child's filter file read in (node_run.h)
  try {
    expanded = gpubench::app::expand_filter_file(std::vector<std::string>(argv, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpubench: %s\n", e.what());
    return 2;
  }
  std::vector<char*> expanded_argv;
  for (std::string& arg : expanded) expanded_argv.push_back(arg.data());
  expanded_argv.push_back(nullptr);
  argv = expanded_argv.data();
  const std::vector<std::string> original_args(argv + 1, argv + argc);
  gpubench::Options options;
  if (!parse_and_check(argc, argv, options)) return 2;
  try {  // a misspelt plant is said before any row, not as the failed rows it touches
    gpubench::check_plant_forms();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gpubench: %s\n", e.what());
    return 2;
  }
  if (!options.list_counters.empty()) return print_counter_catalog(options.list_counters);
  const gpubench::Preset preset = gpubench::preset_named(options.preset);
  if (options.duration_s > 0.0) gpubench::set_preset_duration(options.duration_s);
  const bool quick_times = preset != gpubench::Preset::kFull && !options.min_time_given;
  const gpubench::KnownChip* plan = nullptr;
  if (!options.plan.empty()) {
    if (options.plan == "list") return print_known_chips();
    plan = known_chip(options.plan);
    if (plan == nullptr) return 2;
    options.card = "none";  // nothing is measured
    gpubench::set_planned_chip(&plan->shape);
  }
  if (!plan && !options.list_only && !options.help) {
    // A lost GPU is the node's fault whatever the others measure: said before anything runs.
    if (const std::string missing = missing_gpus(options); !missing.empty()) {
      if (!options.verdict) {
        std::fprintf(stderr, "gpubench: warning: GPUs missing: %s\n", missing.c_str());
      } else {
        for (const auto& status : gpubench::app::kverdicts_exits)
          if (std::string(status.name) == "missing") {
            std::fprintf(stderr, "gpubench: verdict missing, exit %d, %s: missing: %s\n", status.code, status.action,
                         missing.c_str());
            return status.code;
          }
      }
    }
  }
  const std::vector<int> devices =
      plan ? std::vector<int>{0} : options.devices.resolve(options.devices.all ? gpu_count() : 0);
  const bool several_devices = devices.size() > 1;
  // Several GPUs run as a node (a process each, at once), unless GPUBENCH_NODE=serial asks for one process.
  const char* node_mode = std::getenv("GPUBENCH_NODE");
  const bool node_run = several_devices && !plan && !(node_mode != nullptr && std::string(node_mode) == "serial");
  // A stopping rule per row (docs/results/2026-11-26-precision), unless --benchmark_min_time asks for fixed effort.
  gpubench::detail::StoppingRule rule;
  if (!options.min_time_given) {
    rule = gpubench::detail::preset_stopping_rule(options.preset, options.precision);
    gpubench::detail::set_stopping_rule(&rule);
  }
  gpubench::set_node_peers(options.peers);
  gpubench::set_running_as_node(node_run || gpubench::in_node_run());
  // A node's child: its peers' contexts are made while it opens its own GPU (link_turn.h); the check's shares its
  // links' memory with its peers' processes instead, and makes none.
  if (devices.size() == 1 && !options.peers.empty() &&
      (preset == gpubench::Preset::kQuick || preset == gpubench::Preset::kFull))
    gpubench::start_peer_contexts(devices.front(), options.peers);
  mark_setup("CUDA and the driver's GPUs");
  try {
    // With fixed effort, the quick preset's short rows (Family::short_launches) stop after 0.02 s of GPU time.
    gpubench::register_families(preset, devices, quick_times ? 0.02 : 0.0, plan ? &plan->shape : nullptr);
    mark_setup("registration");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpubench: %s\n", e.what());
    return 2;
  }

  // Asked before the real initialization (listing initializes Google Benchmark in list mode).
  std::vector<std::string> all, selected;
  // The check, burn and memtest presets are the rows the families marked for them, whatever else is registered.
  const bool marked_rows =
      preset == gpubench::Preset::kCheck || preset == gpubench::Preset::kBurn || preset == gpubench::Preset::kMemtest;
  if (!options.help && (!options.list_only || marked_rows)) {
    all = gpubench::app::preset_rows(gpubench::app::list_selected(argv[0], ""), preset);
    selected = gpubench::app::preset_rows(gpubench::app::list_selected(argv[0], last_filter(argc, argv)), preset);
    mark_setup("selection");
  }

  if (!initialize_benchmark(argc, argv, quick_times || gpubench::detail::stopping_rule() != nullptr)) return 2;
  if (marked_rows) benchmark::SetBenchmarkFilter(selected.empty() ? "^$" : gpubench::app::exact_filter(selected));

  if (options.list_only) {
    benchmark::RunSpecifiedBenchmarks();
    return 0;
  }
  if (selected.empty()) {
    std::fprintf(stderr, "gpubench: no benchmark matches --benchmark_filter=%s in the %s preset\n",
                 last_filter(argc, argv).c_str(), options.preset.c_str());
    return 2;
  }

  gpubench::GpuSession::set_cold_l2(options.cold_l2);
  if (plan) {
    add_plan_context(*plan);
  } else if (several_devices && node_run) {
    return run_as_node(options, devices, all, selected, argv[0], original_args);
  } else if (several_devices) {
    if (!describe_devices(devices)) return 1;
  } else if (std::string others; !open_the_gpu(devices.front(), all.size(), selected, others)) {
    return 1;
  } else if (options.verdict && busy(others) && gpubench::app::host_only(selected).size() < selected.size()) {
    // A GPU another process holds is not fit for the next job, and its numbers could not be judged: the verdict
    // comes now, not after minutes of rows time-sliced with the other work.
    for (const auto& status : gpubench::app::kverdicts_exits)
      if (std::string(status.name) == "busy") {
        std::fprintf(stderr,
                     "gpubench: verdict busy, exit %d, %s: busy: other processes used the GPU (at the start %s); "
                     "nothing measured\n",
                     status.code, status.action, others.c_str());
        return status.code;
      }
  }
  if (options.deadline_s > 0) {
    start_deadline(options.deadline_s);
    benchmark::AddCustomContext("gpubench_deadline_s", std::to_string(static_cast<int>(options.deadline_s)));
  }
  benchmark::AddCustomContext("gpubench_preset", options.preset);
  benchmark::AddCustomContext("gpubench_source_version", GPUBENCH_SOURCE_VERSION);
  benchmark::AddCustomContext("gpubench_precision", precision_context());
  // What the run set out to do: a run with fewer rows in its report was cut short (the SKU check's "incomplete").
  benchmark::AddCustomContext("gpubench_rows_planned", std::to_string(selected.size()));
  benchmark::AddCustomContext("gpubench_counters", options.counters.empty() ? "default" : options.counters);
  // A filtered run measured a part on purpose: the SKU check's "incomplete" names the filter.
  if (const std::string filter = last_filter(argc, argv); !filter.empty())
    benchmark::AddCustomContext("gpubench_filter", filter);

  run_selected(options, selected, devices);
  const bool gpu_rows_selected = gpubench::app::host_only(selected).size() < selected.size();
  return finish(
      options, gpu_rows_selected, argv[0], original_args,
      Outcome{gpubench::failed_benchmarks(), gpubench::wrong_results(), gpubench::detail::interrupt_signal()});
}
