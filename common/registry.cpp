#include "common/registry.h"

#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/cuda_check.h"
#include "common/cupti/counter_session.h"
#include "common/detail/gpu_session.h"
#include "common/detail/precision.h"
#include "common/detail/run_control.h"
#include "common/detail/running_case.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

namespace gpubench {
namespace detail {
namespace {
std::optional<RunningCase> g_running_case;
}  // namespace

RunningCaseScope::RunningCaseScope(RunningCase running) { g_running_case = std::move(running); }
RunningCaseScope::~RunningCaseScope() { g_running_case.reset(); }
RunningCase* running_case() { return g_running_case ? &*g_running_case : nullptr; }

namespace {
struct FamilyEntry {
  const char* name;
  FamilyRegistration registration;
  FamilyPlace place;
  bool users;  // registered outside gpubench's source (through the installed package)
};
std::vector<FamilyEntry>& families() {
  static std::vector<FamilyEntry> list;
  return list;
}
}  // namespace

bool add_family(const char* name, FamilyRegistration registration, FamilyPlace place, bool users) {
  families().push_back({name, registration, place, users});
  return true;
}
}  // namespace detail

namespace {

std::atomic<int> g_failed{0};
constexpr double kHostMinTime = 0.1;  // seconds: a host row under a stopping rule, as the quick preset always had
std::optional<ChipShape> g_planned_chip;

// The facts of the GPU a row runs on (attributes only: no context), once per GPU.
const ChipShape& chip_of(int device) {
  static std::map<int, ChipShape> shapes;
  auto found = shapes.find(device);
  if (found == shapes.end()) found = shapes.emplace(device, chip_shape(device)).first;
  return found->second;
}

// Rows run GPU after GPU: the first row of the next GPU closes the session (its buffers, profilers)
// and opens one there.
void move_session_to(int device) {
  if (GpuSession::selected_device() == device) return;
  CounterSession::get().release_profilers();
  GpuSession::close();
  GpuSession::select_device(device);
}

// GPUs whose context a row's error broke (a sticky CUDA error: every later call fails the same way),
// with the reason: their remaining rows end with it, the other GPUs' rows run.
std::map<int, std::string>& broken_devices() {
  static std::map<int, std::string> broken;
  return broken;
}

// A GPU row runs on its session's GPU whatever is current: describing several GPUs, a peer row or a
// library may have left another one current, and an allocation made before the session is first
// touched would land there.
void enter_gpu_row(int device) {
  if (device >= 0) move_session_to(device);
  const int index = GpuSession::get().device().index;
  GPUBENCH_CUDA(cudaSetDevice(index));
}

// After a GPU row's error: clears what is pending so the next row does not inherit it, and marks the
// GPU broken when the error is sticky (it is still there after being read).
void leave_failed_gpu_row() {
  const cudaError_t pending = cudaGetLastError();
  const cudaError_t still = cudaGetLastError();
  if (pending == cudaSuccess || still == cudaSuccess) return;
  broken_devices()[GpuSession::selected_device()] =
      std::string(cudaGetErrorName(still)) + " (" + cudaGetErrorString(still) + ")";
}

// Each registered benchmark's place in registration_list(), for add_point and string_axis.
std::map<const Benchmark*, std::size_t>& index_of() {
  static std::map<const Benchmark*, std::size_t> index;
  return index;
}

std::vector<Registration>& registration_list() {
  static std::vector<Registration> list;
  return list;
}

// The wrapper every registered body runs in: progress, the interrupt, the case's identity for run(),
// and exceptions as the row's error.
// A counter the catalog does not describe: the row fails, naming it (the catalog is how JSON readers
// learn its unit and meaning).
std::string undescribed_counters(const benchmark::State& state) {
  std::string names;
  for (const auto& [name, value] : state.counters)
    if (!describe_counter(name)) names += (names.empty() ? "" : ", ") + name;
  return names;
}

BenchmarkBody guarded(const Registration& registration, BenchmarkBody body) {
  auto counters = std::make_shared<detail::CaseCounters>();
  return [registration, counters, body = std::move(body)](benchmark::State& state) {
    std::vector<std::int64_t> args;
    std::string case_key = registration.name;
    std::string report_args;
    for (std::size_t i = 0; i < registration.arg_names.size(); ++i) {
      args.push_back(state.range(i));
      case_key += "/" + std::to_string(args.back());
      report_args += (i ? "/" : "") + registration.arg_names[i] + ":" + std::to_string(args.back());
    }
    detail::note_case_started(registration.family, case_key);
    if (detail::interrupted()) {
      state.SkipWithError("interrupted");
      return;
    }
    detail::RunningCaseScope scope(
        {counters.get(), std::move(args), &registration.arg_names, registration.name + "|" + report_args});
    const int device = registration.device >= 0 ? registration.device : GpuSession::selected_device();
    if (registration.needs_gpu && broken_devices().count(device)) {
      ++g_failed;
      state.SkipWithError(
          ("not run: GPU " + std::to_string(device) + " is unusable after an earlier row's " + broken_devices()[device])
              .c_str());
      return;
    }
    if (registration.needs_gpu && registration.requirement) {
      const ChipShape& chip = g_planned_chip ? *g_planned_chip : chip_of(device);
      if (const std::optional<std::string> why = registration.requirement(chip)) {
        skip_benchmark(state, *why);
        return;
      }
    }
    if (g_planned_chip) {
      skip_benchmark(state, "planned (--gpubench_plan: nothing runs)");
      return;
    }
    try {
      if (registration.needs_gpu) enter_gpu_row(registration.device);
      detail::add_trial(case_key, static_cast<long long>(state.max_iterations));
      body(state);
      if (const std::string names = undescribed_counters(state); !names.empty())
        throw std::logic_error("counter(s) " + names + " not described: add them to the family's GPUBENCH_COUNTERS");
    } catch (const std::exception& e) {
      if (!detail::interrupted()) ++g_failed;
      if (registration.needs_gpu && dynamic_cast<const GpuUnavailable*>(&e) == nullptr) leave_failed_gpu_row();
      state.SkipWithError(detail::interrupted() ? "interrupted" : e.what());
    }
  };
}

Benchmark* register_benchmark(const std::string& name, const std::vector<std::string>& arg_names, BenchmarkBody body,
                              const std::string& family, bool needs_gpu, int device, Requirement requirement) {
  Registration registration;
  registration.name = name;
  registration.family = family.empty() ? name.substr(0, name.find('/')) : family;
  registration.needs_gpu = needs_gpu;
  registration.device = device;
  registration.arg_names = arg_names;
  registration.requirement = std::move(requirement);
  registration_list().push_back(registration);
  Benchmark* benchmark = benchmark::RegisterBenchmark(name.c_str(), guarded(registration, std::move(body)));
  if (needs_gpu) benchmark->UseManualTime();
  // Under a stopping rule the run's min time is one iteration (the main's), which a GPU row spends sampling
  // launches until its precision (run()); a host row keeps Google Benchmark's way, with a min time of its own.
  if (!needs_gpu && detail::stopping_rule() != nullptr) benchmark->MinTime(kHostMinTime);
  if (!arg_names.empty()) benchmark->ArgNames(arg_names);
  index_of()[benchmark] = registration_list().size() - 1;
  return benchmark;
}

}  // namespace

Benchmark* register_gpu_benchmark(const std::string& name, const std::vector<std::string>& arg_names,
                                  BenchmarkBody body, const std::string& family, int device, Requirement requirement) {
  return register_benchmark(name, arg_names, std::move(body), family, true, device, std::move(requirement));
}

Requirement needs_sm(int sm, std::string what) {
  return {"sm>=" + std::to_string(sm),
          [sm, what = std::move(what)](const ChipShape& chip) -> std::optional<std::string> {
            if (chip.sm() >= sm) return std::nullopt;
            return what + " needs sm_" + std::to_string(sm) + " or newer; this GPU is sm_" + std::to_string(chip.sm());
          }};
}

Requirement only_on_sm(int sm, std::string what) {
  return {"sm==" + std::to_string(sm),
          [sm, what = std::move(what)](const ChipShape& chip) -> std::optional<std::string> {
            if (chip.sm() == sm) return std::nullopt;
            return what + " is sm_" + std::to_string(sm) + "'s only; this GPU is sm_" + std::to_string(chip.sm());
          }};
}

Requirement not_on_major(int major, std::string why) {
  return {"major!=" + std::to_string(major),
          [major, why = std::move(why)](const ChipShape& chip) -> std::optional<std::string> {
            if (chip.major != major) return std::nullopt;
            return why;
          }};
}

Requirement both(Requirement a, Requirement b) {
  return {a.rule + "," + b.rule, [a, b](const ChipShape& chip) -> std::optional<std::string> {
            if (std::optional<std::string> why = a(chip)) return why;
            return b(chip);
          }};
}

bool rule_admits(const std::string& rule, const ChipShape& chip) {
  std::size_t start = 0;
  while (start < rule.size()) {
    const std::size_t comma = rule.find(',', start);
    const std::string clause = rule.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t op = clause.find_first_of("<>=!");
    if (op == std::string::npos || op + 2 > clause.size())
      throw std::invalid_argument("requirement rule: bad clause '" + clause + "'");
    const std::string subject = clause.substr(0, op), relation = clause.substr(op, 2);
    if ((subject != "sm" && subject != "major") || (relation != ">=" && relation != "==" && relation != "!="))
      throw std::invalid_argument("requirement rule: bad clause '" + clause + "'");
    const int value = std::stoi(clause.substr(op + 2));
    const int actual = subject == "sm" ? chip.sm() : chip.major;
    const bool holds = relation == ">=" ? actual >= value : relation == "==" ? actual == value : actual != value;
    if (!holds) return false;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

Benchmark* add_point(Benchmark* rows, const Point& point, Check check) {
  const auto found = index_of().find(rows);
  if (found == index_of().end()) throw std::logic_error("add_point: not a gpubench registration");
  Registration& registration = registration_list()[found->second];
  const std::vector<std::string>& axes = registration.arg_names;
  std::vector<std::int64_t> values;
  for (const std::string& axis : axes) {
    const auto value = std::find_if(point.begin(), point.end(), [&](const auto& item) { return item.first == axis; });
    if (value == point.end()) throw std::logic_error("add_point: the point has no value for axis '" + axis + "'");
    values.push_back(value->second);
  }
  for (const auto& [axis, value] : point)
    if (std::find(axes.begin(), axes.end(), axis) == axes.end())
      throw std::logic_error("add_point: the rows have no axis '" + axis + "'");
  if (check == Check::kToo) registration.check_points.push_back(values);
  return rows->Args(values);
}

Benchmark* in_check(Benchmark* rows) {
  const auto found = index_of().find(rows);
  if (found == index_of().end()) throw std::logic_error("in_check: not a gpubench registration");
  registration_list()[found->second].in_check = true;
  return rows;
}

Benchmark* only_in_preset(Benchmark* rows) {
  const auto found = index_of().find(rows);
  if (found == index_of().end()) throw std::logic_error("only_in_preset: not a gpubench registration");
  registration_list()[found->second].own_preset = true;
  return rows;
}

Benchmark* noise_class(Benchmark* rows, const std::string& measurement_class, const std::string& quantity) {
  // analysis/cards/noise.py's CLASSES: a class it does not know would judge nothing.
  static const char* const kClasses[] = {
      "sm_clocks",      "sm_time",        "sm_placement", "memory_latency", "capacity_edge", "cache_bandwidth",
      "dram_bandwidth", "link_bandwidth", "launch_time",  "short_launch",   "host"};
  if (std::find(std::begin(kClasses), std::end(kClasses), measurement_class) == std::end(kClasses))
    throw std::invalid_argument("noise_class: '" + measurement_class +
                                "' is not a class of analysis/cards/noise.py (dram_bandwidth, sm_clocks, ...)");
  const auto found = index_of().find(rows);
  if (found == index_of().end()) throw std::logic_error("noise_class: not a gpubench registration");
  registration_list()[found->second].noise_classes[quantity] = measurement_class;
  return rows;
}

bool runs_in_own_preset(const std::string& instance_name) {
  const Registration* registration = registration_of(instance_name);
  return registration != nullptr && registration->own_preset;
}

namespace {
double g_preset_duration = kDefaultDurationSeconds;
}  // namespace

void set_preset_duration(double seconds) { g_preset_duration = seconds; }
double preset_duration() { return g_preset_duration; }

Preset preset_named(const std::string& name) {
  if (name == "full") return Preset::kFull;
  if (name == "check") return Preset::kCheck;
  if (name == "burn") return Preset::kBurn;
  if (name == "memtest") return Preset::kMemtest;
  if (name == "quick") return Preset::kQuick;
  throw std::invalid_argument("no preset '" + name + "'");
}

namespace {
std::map<std::string, RowSeries>& series_by_row() {
  static std::map<std::string, RowSeries> series;
  return series;
}
}  // namespace

void report_series(const std::string& name, std::vector<double> values) {
  const detail::RunningCase* running = detail::running_case();
  if (running == nullptr) return;  // outside a registered row (a test calling the body): nowhere to write
  if (!describe_counter(name)) throw std::logic_error("series " + name + " not described: add it to GPUBENCH_COUNTERS");
  RowSeries& row = series_by_row()[running->report_key];
  const auto found = std::find_if(row.begin(), row.end(), [&](const auto& item) { return item.first == name; });
  if (found != row.end()) {
    found->second = std::move(values);  // a later trial of the case replaces an earlier one's
  } else {
    row.emplace_back(name, std::move(values));
  }
}

RowSeries row_series(const std::string& function_name, const std::string& args) {
  const auto found = series_by_row().find(function_name + "|" + args);
  return found == series_by_row().end() ? RowSeries{} : found->second;
}

namespace {
std::vector<std::string>& wrong_result_list() {
  static std::vector<std::string> list;
  return list;
}
}  // namespace

void report_wrong_result(const std::string& what) {
  std::vector<std::string>& list = wrong_result_list();
  if (std::find(list.begin(), list.end(), what) == list.end()) list.push_back(what);  // trials repeat a case
}
const std::vector<std::string>& wrong_results() { return wrong_result_list(); }

std::vector<std::pair<std::string, std::string>> named_args(const std::string& args) {
  std::vector<std::pair<std::string, std::string>> named;
  std::size_t start = 0;
  while (start < args.size()) {
    std::size_t end = args.find('/', start);
    if (end == std::string::npos) end = args.size();
    const std::string item = args.substr(start, end - start);
    const std::size_t colon = item.find(':');
    if (colon != std::string::npos) named.emplace_back(item.substr(0, colon), item.substr(colon + 1));
    start = end + 1;
  }
  return named;
}

namespace {
bool point_in_check(const Registration& registration, const std::string& instance_name) {
  if (registration.in_check) return true;
  if (registration.check_points.empty()) return false;
  // Google Benchmark names an instance <name>/<axis>:<value>/...[/min_time:...][/manual_time].
  const auto named = named_args(instance_name.substr(std::min(instance_name.size(), registration.name.size() + 1)));
  std::vector<std::int64_t> values;
  for (const std::string& axis : registration.arg_names) {
    const auto value = std::find_if(named.begin(), named.end(), [&](const auto& item) { return item.first == axis; });
    if (value == named.end()) return false;
    try {
      values.push_back(std::stoll(value->second));
    } catch (const std::exception&) {
      return false;
    }
  }
  return std::find(registration.check_points.begin(), registration.check_points.end(), values) !=
         registration.check_points.end();
}
}  // namespace

bool runs_in_check(const std::string& instance_name) {
  const Registration* best = registration_of(instance_name);
  if (best == nullptr) return false;
  // A name registered more than once (a family's rows registered peer by peer) is in the check where any of its
  // registrations puts it.
  for (const Registration& registration : registration_list())
    if (registration.name == best->name && registration.device == best->device &&
        point_in_check(registration, instance_name))
      return true;
  return false;
}

Benchmark* string_axis(Benchmark* rows, const std::string& axis, const std::string& value) {
  const auto found = index_of().find(rows);
  if (found == index_of().end()) throw std::logic_error("string_axis: not a gpubench registration");
  registration_list()[found->second].string_axes.emplace_back(axis, value);
  return rows;
}

std::vector<Point> product(const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& axes) {
  std::vector<Point> points{{}};
  for (auto axis = axes.rbegin(); axis != axes.rend(); ++axis) {  // the first axis ends up fastest
    std::vector<Point> grown;
    for (const Point& rest : points)
      for (std::int64_t value : axis->second) {
        Point point{{axis->first, value}};
        point.insert(point.end(), rest.begin(), rest.end());
        grown.push_back(std::move(point));
      }
    points = std::move(grown);
  }
  return points;
}

namespace {
std::vector<int>& peers_storage() {
  static std::vector<int> peers;
  return peers;
}
}  // namespace

namespace {
bool g_running_as_node = false;
}  // namespace

void set_running_as_node(bool node) { g_running_as_node = node; }
bool running_as_node() { return g_running_as_node; }

void set_node_peers(std::vector<int> peers) { peers_storage() = std::move(peers); }
const std::vector<int>& node_peers() { return peers_storage(); }

void set_planned_chip(const ChipShape* chip) {
  if (chip)
    g_planned_chip = *chip;
  else
    g_planned_chip.reset();
}

Benchmark* register_cpu_benchmark(const std::string& name, const std::vector<std::string>& arg_names,
                                  BenchmarkBody body, const std::string& family) {
  return register_benchmark(name, arg_names, std::move(body), family, false, -1, {});
}

const std::vector<Registration>& registrations() { return registration_list(); }

const Registration* registration_of(const std::string& instance_name) {
  const Registration* best = nullptr;
  for (const Registration& r : registration_list()) {
    const bool prefixes =
        instance_name == r.name || (instance_name.rfind(r.name, 0) == 0 && instance_name[r.name.size()] == '/');
    if (prefixes && (best == nullptr || r.name.size() > best->name.size())) best = &r;
  }
  return best;
}

Benchmark* Family::min_time(Benchmark* rows, double seconds) {
  if (detail::stopping_rule() == nullptr) rows->MinTime(seconds);
  return rows;
}

int failed_benchmarks() { return g_failed.load(); }

std::int64_t arg(const benchmark::State& state, const std::string& name) {
  const detail::RunningCase* running = detail::running_case();
  if (running != nullptr && running->arg_names != nullptr) {
    const std::vector<std::string>& names = *running->arg_names;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return state.range(static_cast<int>(i));
  }
  std::string known;
  if (running != nullptr && running->arg_names != nullptr)
    for (const std::string& n : *running->arg_names) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("this row has no argument '" + name + "' (it has: " + (known.empty() ? "none" : known) +
                              ")");
}

std::vector<std::string> register_families(Preset preset, const std::vector<int>& devices, double short_launch_min_time,
                                           const ChipShape* planned) {
  std::vector<std::string> names;
  std::set<std::string> host_families;  // registered no GPU row for the first GPU
  const bool several = devices.size() > 1;
  for (std::size_t pass = 0; pass < devices.size(); ++pass) {
    const ChipShape chip = planned ? *planned : chip_shape(devices[pass]);
    // Families whose rows use other GPUs run after the GPU's own rows: a node run then has its GPU free of them
    // before it takes turns on its links (link_turn.h). Those whose rows share the host run first: a node's
    // children start their rows together, so every GPU copies to the host at about the same time.
    std::vector<detail::FamilyEntry> ordered = detail::families();
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.place < b.place; });
    for (const detail::FamilyEntry& entry : ordered) {
      if (pass > 0 && host_families.count(entry.name)) continue;
      const std::size_t first = registration_list().size();
      entry.registration(Family(entry.name, preset, devices[pass], several, chip, short_launch_min_time));
      bool gpu_rows = false, host_rows = false;
      for (std::size_t i = first; i < registration_list().size(); ++i) {
        (registration_list()[i].needs_gpu ? gpu_rows : host_rows) = true;
        registration_list()[i].users_family = entry.users;
      }
      if (pass == 0 && !gpu_rows) host_families.insert(entry.name);
      if (pass > 0 && host_rows)
        throw std::logic_error(std::string("family ") + entry.name +
                               " registers host and GPU rows; host rows would repeat for every GPU");
      if (pass == 0) names.emplace_back(entry.name);
    }
  }
  return names;
}

}  // namespace gpubench
