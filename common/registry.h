// How experiments join the gpubench binary: through Google Benchmark's public RegisterBenchmark
// only. A family is a function that registers its benchmarks; GPUBENCH_FAMILY adds it to the list
// the gpubench main registers once the command line is parsed (presets are known by then).
#pragma once

#include "common/chip_shape.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpubench {

// Google Benchmark's handle for a registered benchmark (benchmark::internal::Benchmark up to 1.8,
// benchmark::Benchmark from 1.9), named through the public API's return type.
using Benchmark =
    std::remove_pointer_t<decltype(benchmark::RegisterBenchmark("", std::declval<void (*)(benchmark::State&)>()))>;

using BenchmarkBody = std::function<void(benchmark::State&)>;

// What a chip must have to run a row (an instruction or unit its architecture lacks), decided from the
// chip's facts alone, before the body runs, so a plan for a chip (--gpubench_plan) gives the same reason a
// run on it would. `rule` says it as data, written into every row of the JSON ("requirement"): clauses
// joined by ",", each "sm>=N", "sm==N" or "major!=N" (all must hold), which the chip-plan test reads.
struct Requirement {
  std::string rule;
  std::function<std::optional<std::string>(const ChipShape&)> why_not;  // the reason, or nothing when it runs
  explicit operator bool() const { return static_cast<bool>(why_not); }
  std::optional<std::string> operator()(const ChipShape& chip) const { return why_not(chip); }
};
// "<what> needs sm_<sm> or newer; this GPU is sm_<its>"; rule "sm>=<sm>".
Requirement needs_sm(int sm, std::string what);
// "<what> is sm_<sm>'s only; this GPU is sm_<its>" (architecture-specific instructions: wgmma is sm_90a's);
// rule "sm==<sm>".
Requirement only_on_sm(int sm, std::string what);
// `why` on a chip of compute capability <major>.x; rule "major!=<major>".
Requirement not_on_major(int major, std::string why);
// Both must hold (the first's reason first); rule "<a>,<b>".
Requirement both(Requirement a, Requirement b);
// Whether `rule` admits `chip` (what the JSON's "requirement" says, evaluated as the chip-plan test does).
bool rule_admits(const std::string& rule, const ChipShape& chip);

// Plan mode (--gpubench_plan): rows run on nothing; each says why `chip` could not run it, or that it
// would. nullptr: a real run.
void set_planned_chip(const ChipShape* chip);

// A node run's child measures its Peer rows with these GPUs only (--gpubench_peers=N,M); empty: every other GPU.
void set_node_peers(std::vector<int> peers);
const std::vector<int>& node_peers();

// A node run (several GPUs, a process each, at once): set in its parent and in each child before registration, so
// that both register the rows only a node has (HostLink's copies with every GPU at once).
void set_running_as_node(bool node);
bool running_as_node();

// A GPU benchmark: manual (CUDA event) time, and any exception becomes this row's error, so one
// failure never ends the run. arg_names also tell run() which arguments identify the case. After an
// interrupt (Ctrl-C) the body no longer runs: the row is skipped as "interrupted". `device` >= 0:
// the row runs on that GPU (the session moves there first); -1: on the GPU the session has.
Benchmark* register_gpu_benchmark(const std::string& name, const std::vector<std::string>& arg_names,
                                  BenchmarkBody body, const std::string& family = {}, int device = -1,
                                  Requirement requirement = {});
// A host benchmark (no GPU): wall or CPU time as Google Benchmark measures it, errors as above.
Benchmark* register_cpu_benchmark(const std::string& name, const std::vector<std::string>& arg_names,
                                  BenchmarkBody body, const std::string& family = {});

// What was registered: the name given (Google Benchmark appends arguments and /manual_time), its
// family, and whether it runs without a GPU.
struct Registration {
  std::string name;
  std::string family;
  bool needs_gpu = false;
  int device = -1;  // the GPU the row runs on; -1: the session's
  std::vector<std::string> arg_names;
  Requirement requirement;                                       // empty: every GPU runs it
  std::vector<std::pair<std::string, std::string>> string_axes;  // string_axis()
  bool in_check = false;                                         // the check preset runs all its rows
  std::vector<std::vector<std::int64_t>> check_points;           // or these (add_point's Check::kToo)
  bool own_preset = false;  // only_in_preset: the rows of a preset of their own (burn, memtest), and only its
  std::map<std::string, std::string> noise_classes;  // noise_class(): result quantity ("" every one) -> class
  bool users_family = false;  // a family of a user's own (registered outside gpubench's source): no card rules
};
const std::vector<Registration>& registrations();
// The registration a benchmark instance's full name belongs to (longest name that prefixes it at a
// '/' boundary), or nullptr.
const Registration* registration_of(const std::string& instance_name);

// One point of a sweep, its axes by name: {{"bytes", 16384}, {"stride", 128}} (nvbench's named axes).
using Point = std::vector<std::pair<std::string, std::int64_t>>;
// Adds `point` as a row of `rows` (what Family::gpu / Family::cpu returned), its values in the order the
// registration named its axes. Throws std::logic_error naming the axis when the point misses one of the rows'
// axes or names one they do not have. Returns `rows`, for chaining. `Check::kToo`: the point is also one of the
// check preset's rows (--gpubench_preset=check, the node check), which runs such points only.
enum class Check { kNo, kToo };
Benchmark* add_point(Benchmark* rows, const Point& point, Check check = Check::kNo);
// Rows without axes that the check preset runs too.
Benchmark* in_check(Benchmark* rows);
// The class of measurement of the rows' results (compare.py's noise classes, analysis/cards/noise.py: dram_bandwidth,
// cache_bandwidth, sm_clocks, sm_time, memory_latency, link_bandwidth, ...), written into each row's JSON
// ("noise_class"): compare and the card's stated precision judge a family gpubench has no rules for (a kernel of one's
// own) by it; `quantity` names one result ("fma_per_second": a rate that moves with the SM clock is sm_time's), the
// default every result. gpubench's own families declare theirs in analysis/cards/families/. Throws on an unknown class.
Benchmark* noise_class(Benchmark* rows, const std::string& measurement_class, const std::string& quantity = {});
// Rows that are a long preset's own (registered only when the family is registered for that preset): the burn and
// memtest presets run only such rows.
Benchmark* only_in_preset(Benchmark* rows);
// A string axis of every row of `rows` (a precision, an operation): written into each row's arguments in the
// JSON ("args": {"precision": "f16_f32"}), so that readers take it as data, never out of the name.
Benchmark* string_axis(Benchmark* rows, const std::string& axis, const std::string& value);
// Every point of the product of `axes` ({"chains", {1, 4, 8}}, {"warps", {8, 32}}), the first axis fastest
// (as Google Benchmark's ArgsProduct orders them).
std::vector<Point> product(const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& axes);

// Values of the running row over something it swept inside one case (every SM), written into its JSON entry as
// "series": {name: [...]}. `name` is a counter the catalog describes (its unit holds for each element); a later
// call of the same name in the same case replaces the values (Google Benchmark's trials).
void report_series(const std::string& name, std::vector<double> values);
using RowSeries = std::vector<std::pair<std::string, std::vector<double>>>;
// The series of the row Google Benchmark names `function_name` with `args` ("axis:value/..."), in call order.
RowSeries row_series(const std::string& function_name, const std::string& args);

// Google Benchmark's "axis:value/axis:value" (its instance names after the registered name, and a run's args) as
// (axis, value) pairs, in order; items without a ':' are left out.
std::vector<std::pair<std::string, std::string>> named_args(const std::string& args);

// Whether the check preset runs this row (a Google Benchmark instance name): its registration was marked with
// in_check, or its arguments are a point added with Check::kToo.
bool runs_in_check(const std::string& instance_name);
// Whether this row is one of the preset's own (only_in_preset): the burn and memtest presets run those and no other.
bool runs_in_own_preset(const std::string& instance_name);

// How long each row of the burn and memtest presets runs (--gpubench_duration; default kDefaultDurationSeconds).
inline constexpr double kDefaultDurationSeconds = 120.0;
void set_preset_duration(double seconds);
double preset_duration();

// A row whose result was verified and found wrong ("wrong result from SM 17 in the FP32 FMA map"): said at the end
// of the run, and gpubench exits 8 (a wrong answer is a fault of its own, apart from slow or failed).
void report_wrong_result(const std::string& what);
const std::vector<std::string>& wrong_results();

// Benchmarks that ended in an error in this process (gpubench's exit status).
int failed_benchmarks();

// The running row's argument registered as `name` (args.get("MiB") of nvbench's axes): experiments
// read their arguments by name, never by position. Throws std::invalid_argument naming the argument
// and the ones the row has when it has no such argument.
std::int64_t arg(const benchmark::State& state, const std::string& name);

// kCheck: the rows the families mark for the node check (add_point's Check::kToo, in_check), at their quick points.
// kBurn and kMemtest: an administrator's long presets (every GPU under load, the memory test repeated), their rows
// registered for them alone (only_in_preset) and run for preset_duration().
enum class Preset { kQuick, kFull, kCheck, kBurn, kMemtest };
// The preset of a --gpubench_preset word (quick, full, check, burn, memtest).
Preset preset_named(const std::string& name);

// Handed to each family's registration function, once per GPU of the run. With several GPUs every
// GPU row's name (and family) ends in /gpu:N; a family of host rows only registers once, unsuffixed.
class Family {
 public:
  Family(std::string name, Preset preset, int device = 0, bool several_devices = false,
         ChipShape chip = default_chip_shape(), double short_launch_min_time = 0.0)
      : name_(std::move(name)),
        preset_(preset),
        device_(device),
        suffix_(several_devices ? device_suffix(device) : std::string()),
        chip_(chip),
        short_launch_min_time_(short_launch_min_time) {}
  const std::string& name() const { return name_; }
  Preset preset() const { return preset_; }
  // The GPU these registrations are for (peers are the others).
  int device() const { return device_; }
  // The GPU's SM count and cache sizes, for points that must straddle its edges (H100 SXM's
  // without a GPU: see default_chip_shape()).
  const ChipShape& chip() const { return chip_; }
  static std::string device_suffix(int device) { return "/gpu:" + std::to_string(device); }
  // The full sweep, or the few points that carry the family's answer in the quick (and check) preset.
  template <class T>
  T pick(T quick, T full) const {
    return preset_ == Preset::kFull ? std::move(full) : std::move(quick);
  }
  // `requirement`: what the chip must have (needs_sm); a chip without it skips the rows with the reason.
  Benchmark* gpu(const std::string& name, const std::vector<std::string>& arg_names, BenchmarkBody body,
                 Requirement requirement = {}) const {
    // Pinned to its GPU only in a run over several; otherwise it runs on the session's.
    return register_gpu_benchmark(name + suffix_, arg_names, std::move(body), name_ + suffix_,
                                  suffix_.empty() ? -1 : device_, std::move(requirement));
  }
  // Rows of launches that take microseconds. In the quick preset (unless --benchmark_min_time was
  // given) they stop after less GPU time than others: each launch costs tens of times its GPU time
  // on the host (an L2 scrub, a synchronisation), and a few thousand launches already fix the mean.
  // Only with fixed effort (--benchmark_min_time): under a stopping rule every row samples to its precision.
  Benchmark* short_launches(Benchmark* rows) const {
    if (short_launch_min_time_ > 0.0) min_time(rows, short_launch_min_time_);
    return rows;
  }
  // A min time of the rows' own, with fixed effort only (a stopping rule sets the effort otherwise).
  static Benchmark* min_time(Benchmark* rows, double seconds);
  // Host rows run once per process: a family of them is registered for the first GPU only.
  Benchmark* cpu(const std::string& name, const std::vector<std::string>& arg_names, BenchmarkBody body) const {
    return register_cpu_benchmark(name, arg_names, std::move(body), name_);
  }

 private:
  std::string name_;
  Preset preset_;
  int device_;
  std::string suffix_;  // /gpu:N in a run over several GPUs
  ChipShape chip_;
  double short_launch_min_time_;  // 0: the run's min time for every row
};

using FamilyRegistration = void (*)(const Family&);

namespace detail {
// Where a family's rows stand in a run: first (they share the host with the node's other GPUs), among the others,
// or after them (they use other GPUs).
enum class FamilyPlace { kFirst, kAmongOthers, kAfterOthers };
bool add_family(const char* name, FamilyRegistration registration, FamilyPlace place, bool users);
}  // namespace detail

// Registers every family's benchmarks for the preset, in link order, GPU after GPU (`devices` in
// order; one GPU: unsuffixed names). A non-zero `short_launch_min_time` is Family::short_launches'
// min time. Returns the family names.
// `chip`: registers for these facts instead of the devices' (plan mode).
std::vector<std::string> register_families(Preset preset, const std::vector<int>& devices = {0},
                                           double short_launch_min_time = 0.0, const ChipShape* chip = nullptr);

}  // namespace gpubench

// GPUBENCH_FAMILY(Divergence) { add_point(family.gpu("Divergence/Paths", {"paths"}, body), {{"paths", 2}}); }
#define GPUBENCH_FAMILY(Name) GPUBENCH_FAMILY_REGISTERED(Name, kAmongOthers)
// A family whose rows use other GPUs (their links): registered after every other, so its rows run last.
#define GPUBENCH_FAMILY_AFTER_OTHERS(Name) GPUBENCH_FAMILY_REGISTERED(Name, kAfterOthers)
// A family whose rows use what the node's GPUs share (the host's links): its rows run first, every GPU's together.
#define GPUBENCH_FAMILY_FIRST(Name) GPUBENCH_FAMILY_REGISTERED(Name, kFirst)
// gpubench's own families are compiled with GPUBENCH_IN_TREE; a family without it is a user's (the card and compare
// have no rules of gpubench's for it).
#if defined(GPUBENCH_IN_TREE)
#define GPUBENCH_USERS_FAMILY false
#else
#define GPUBENCH_USERS_FAMILY true
#endif
#define GPUBENCH_FAMILY_REGISTERED(Name, place)                                                         \
  static void gpubench_register_##Name(const ::gpubench::Family& family);                               \
  [[maybe_unused]] static const bool gpubench_family_##Name = ::gpubench::detail::add_family(           \
      #Name, &gpubench_register_##Name, ::gpubench::detail::FamilyPlace::place, GPUBENCH_USERS_FAMILY); \
  static void gpubench_register_##Name(const ::gpubench::Family& family)
