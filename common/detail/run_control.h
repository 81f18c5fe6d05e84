// What a long run needs besides measuring: stopping cleanly on Ctrl-C / SIGTERM, and progress on
// stderr that never mixes with the console, JSON or CSV results on stdout.
#pragma once

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
// One closing line: rows run, elapsed time.
void finish_progress();

}  // namespace gpubench::detail
