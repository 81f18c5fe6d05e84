#include "common/detail/run_control.h"

#include <time.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace gpubench::detail {
namespace {

std::atomic<int> g_signal{0};
std::atomic<long long> g_first_signal_ns{0};
// `timeout` and some shells deliver one interrupt twice (to the process and to its group): a second
// signal this soon after the first is the same request.
constexpr long long kRepeatWindowNs = 1'000'000'000;

long long monotonic_ns() {  // clock_gettime is async-signal-safe
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

extern "C" void on_signal(int signal) {
  const long long now = monotonic_ns();
  if (g_signal.exchange(signal) == 0) {
    g_first_signal_ns.store(now);
  } else if (now - g_first_signal_ns.load() > kRepeatWindowNs) {
    std::signal(signal, SIG_DFL);  // a second, deliberate signal: stop now
    std::raise(signal);
  }
}

using Clock = std::chrono::steady_clock;

struct Progress {
  std::vector<std::pair<std::string, int>> families;
  int rows = 0;
  int rows_started = 0;
  int family_index = -1;
  std::string family;
  std::string last_case;
  std::set<std::string> started;
  Clock::time_point start = Clock::now();
  Clock::time_point last_line = Clock::now();
  Clock::time_point family_start = Clock::now();
  std::map<std::string, double> spent;  // seconds per family, for the run's closing line
  bool active = false;
};

std::mutex g_timeline_mutex;
std::vector<std::pair<double, std::string>> g_timeline;  // guarded by g_timeline_mutex

Progress& progress() {
  static Progress p;
  return p;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupted() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }
void request_interrupt(int signal) { g_signal.store(signal); }

std::vector<std::pair<double, std::string>> rows_started_by_time() {
  const std::lock_guard<std::mutex> lock(g_timeline_mutex);
  return g_timeline;
}

void set_progress_plan(std::vector<std::pair<std::string, int>> families) {
  Progress& p = progress();
  p = Progress();
  {
    const std::lock_guard<std::mutex> lock(g_timeline_mutex);
    g_timeline.clear();
  }
  for (const auto& family : families) p.rows += family.second;
  p.families = std::move(families);
  p.active = true;
}

void note_case_started(const std::string& family, const std::string& case_key) {
  Progress& p = progress();
  if (!p.active || case_key == p.last_case || interrupted()) return;
  p.last_case = case_key;
  if (!p.started.insert(case_key).second) return;  // a repetition of a case already counted
  ++p.rows_started;
  {
    const std::lock_guard<std::mutex> lock(g_timeline_mutex);
    g_timeline.emplace_back(seconds_since(p.start), case_key);
  }
  if (family != p.family) {
    if (!p.family.empty()) p.spent[p.family] += seconds_since(p.family_start);
    p.family_start = Clock::now();
    p.family = family;
    int index = 0;
    for (std::size_t i = 0; i < p.families.size(); ++i)
      if (p.families[i].first == family) index = static_cast<int>(i);
    p.family_index = index;
    const int family_rows = p.families.empty() ? 0 : p.families[static_cast<std::size_t>(index)].second;
    std::fprintf(stderr, "gpubench: family %d/%zu %s (%d rows), row %d of %d, %.0f s elapsed\n", index + 1,
                 p.families.size(), family.c_str(), family_rows, p.rows_started, p.rows, seconds_since(p.start));
    p.last_line = Clock::now();
  } else if (seconds_since(p.last_line) > 30.0) {  // long families say they are alive
    std::fprintf(stderr, "gpubench:   %s: row %d of %d, %.0f s elapsed\n", family.c_str(), p.rows_started, p.rows,
                 seconds_since(p.start));
    p.last_line = Clock::now();
  }
}

namespace {
// (name, seconds) pairs, longest first (ties keep their order).
std::vector<std::pair<std::string, double>> longest_first(std::vector<std::pair<std::string, double>> order) {
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return order;
}

std::string seconds_item(bool first, const std::string& name, double seconds) {
  char item[160];
  std::snprintf(item, sizeof item, "%s%s %.1f s", first ? "" : ", ", name.c_str(), seconds);
  return item;
}
}  // namespace

std::string time_by_family(const std::map<std::string, double>& seconds) {
  std::string text;
  for (const auto& [family, spent] : longest_first({seconds.begin(), seconds.end()}))
    text += seconds_item(text.empty(), family, spent);
  return text;
}

namespace {
struct Ledger {
  std::map<std::string, double> host_seconds;
  std::map<std::string, long long> host_calls;  // how many times each part ran: its cost per call
  double gpu_seconds = 0.0;
  std::map<std::string, std::vector<long long>> trials;  // per case: the iterations of each call
};
Ledger& ledger() {
  static Ledger l;
  return l;
}
}  // namespace

void add_time(const char* part, double seconds) {
  ledger().host_seconds[part] += seconds;
  ++ledger().host_calls[part];
}
void add_gpu_time(double seconds) { ledger().gpu_seconds += seconds; }
void add_trial(const std::string& case_key, long long iterations) { ledger().trials[case_key].push_back(iterations); }

std::string time_by_part(double run_seconds) {
  const Ledger& l = ledger();
  if (l.host_seconds.empty()) return {};
  std::vector<std::pair<std::string, double>> parts(l.host_seconds.begin(), l.host_seconds.end());
  double counted = 0.0;
  for (const auto& part : parts) counted += part.second;
  if (run_seconds > counted) parts.emplace_back("everything else", run_seconds - counted);
  std::string text;
  for (const auto& [part, seconds] : longest_first(parts)) {
    char item[160];
    text += seconds_item(text.empty(), part, seconds);
    if (part == "timed launches") {
      std::snprintf(item, sizeof item, " (GPU %.1f s)", l.gpu_seconds);
      text += item;
    } else if (const auto calls = l.host_calls.find(part); calls != l.host_calls.end()) {
      std::snprintf(item, sizeof item, " in %lld calls", calls->second);
      text += item;
    }
  }
  long long before_final = 0, all = 0, calls = 0;
  for (const auto& [key, iterations] : l.trials) {
    for (std::size_t i = 0; i < iterations.size(); ++i) {
      all += iterations[i];
      if (i + 1 < iterations.size()) before_final += iterations[i];
    }
    calls += static_cast<long long>(iterations.size());
  }
  if (!l.trials.empty() && all > 0) {
    char item[160];
    std::snprintf(item, sizeof item, "; %.1f trials a case, %.0f%% of launches before the final trial",
                  static_cast<double>(calls) / static_cast<double>(l.trials.size()),
                  100.0 * static_cast<double>(before_final) / static_cast<double>(all));
    text += item;
  }
  return text;
}

namespace {
thread_local TimedPart* g_innermost_part = nullptr;
}  // namespace

TimedPart::TimedPart(const char* part) : part_(part), start_ns_(monotonic_ns()), outer_(g_innermost_part) {
  g_innermost_part = this;
}
TimedPart::~TimedPart() {
  const long long elapsed = monotonic_ns() - start_ns_;
  add_time(part_, static_cast<double>(elapsed - inner_ns_) * 1e-9);
  if (outer_ != nullptr) outer_->inner_ns_ += elapsed;
  g_innermost_part = outer_;
}

void finish_progress() {
  Progress& p = progress();
  if (!p.active) return;
  if (!p.family.empty()) p.spent[p.family] += seconds_since(p.family_start);
  std::fprintf(stderr, "gpubench: %d of %d rows run in %.1f s%s\n", p.rows_started, p.rows, seconds_since(p.start),
               interrupted() ? " (interrupted)" : "");
  if (!p.spent.empty()) std::fprintf(stderr, "gpubench: time by family: %s\n", time_by_family(p.spent).c_str());
  if (const std::string parts = time_by_part(seconds_since(p.start)); !parts.empty())
    std::fprintf(stderr, "gpubench: time inside the rows: %s\n", parts.c_str());
  p.active = false;
}

}  // namespace gpubench::detail
