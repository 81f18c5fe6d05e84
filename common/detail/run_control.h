// What a long run needs besides measuring: stopping cleanly on Ctrl-C / SIGTERM, and progress on
// stderr that never mixes with the console, JSON or CSV results on stdout.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::detail {

// First SIGINT/SIGTERM: the benchmark in flight ends, the rest are skipped as "interrupted", Google
// Benchmark still writes its whole report. A second one ends the process at once.
void install_interrupt_handlers();
bool interrupted();
int interrupt_signal();              // the signal received, or 0
void request_interrupt(int signal);  // what the handler does (tests call it directly)

// The selected rows, family by family in run order (name, rows), for "family i of n" lines.
void set_progress_plan(std::vector<std::pair<std::string, int>> families);
// A benchmark case (registration + arguments) starts; repeated calls for the same case (Google
// Benchmark's trials and repetitions) count once.
void note_case_started(const std::string& family, const std::string& case_key);
// The rows started so far: (seconds since the progress plan was set, case key), in run order. Safe to call from
// another thread (the process sampler names the rows another process overlapped).
std::vector<std::pair<double, std::string>> rows_started_by_time();
// The closing lines: rows run and elapsed time, then where the time went ("time by family: PointerChase
// 33.0 s, TensorCore 19.5 s, ...", longest first; a family's time runs from its first case to the next
// family's, setup, counters and checks included).
void finish_progress();
// "A 2.0 s, B 1.0 s": families by the seconds they took, longest first.
std::string time_by_family(const std::map<std::string, double>& seconds);

// Where a run's time goes inside its rows (what #38 had to find before cutting points): host seconds spent in
// `part` ("L2 scrubs", "counter passes", "NVML reads", "per-case sweeps", "timed launches"), summed over the run
// and printed in the closing lines. `gpu_seconds` adds the GPU time of timed launches.
void add_time(const char* part, double seconds);
void add_gpu_time(double seconds);
// Counts the launches Google Benchmark asked of a case's trials (`final_trial` false for all but the last call
// of a case, which is not known until the next case starts: the ledger settles it then).
void add_trial(const std::string& case_key, long long iterations);
// "timed launches 46.7 s (GPU 40.1 s), L2 scrubs 20.3 s, ..., everything else 30.2 s; 2.4 trials a case, 11% of
// launches before the final trial" (everything else: `run_seconds` less the parts), or empty when nothing was
// recorded.
std::string time_by_part(double run_seconds);

// Times its scope into add_time(part); a part inside another counts once, as itself (a scrub inside a counter
// pass is a scrub).
class TimedPart {
 public:
  explicit TimedPart(const char* part);
  ~TimedPart();
  TimedPart(const TimedPart&) = delete;
  TimedPart& operator=(const TimedPart&) = delete;

 private:
  const char* part_;
  long long start_ns_;
  long long inner_ns_ = 0;
  TimedPart* outer_;
};

}  // namespace gpubench::detail
