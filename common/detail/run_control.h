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
// The closing lines: rows run and elapsed time, then where the time went ("time by family: PointerChase
// 33.0 s, TensorCore 19.5 s, ...", longest first; a family's time runs from its first case to the next
// family's, setup, counters and checks included).
void finish_progress();
// "A 2.0 s, B 1.0 s": families by the seconds they took, longest first.
std::string time_by_family(const std::map<std::string, double>& seconds);

}  // namespace gpubench::detail
