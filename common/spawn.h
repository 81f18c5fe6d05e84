// Starting another process, the one way gpubench does: posix_spawn runs nothing of ours in the child before exec, so
// it is safe from a process with threads (CUDA's, the deadline's, the process sampler's), where fork then a heap
// allocation is not.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace gpubench {

struct SpawnRequest {
  std::vector<std::string> argv;                          // argv[0] is looked up on PATH
  const std::vector<std::string>* environment = nullptr;  // null: this process's
  std::string stdin_path = "/dev/null";
  std::string output_path;    // stdout and stderr into this file (made anew); "" and output_fd < 0: inherited
  int output_fd = -1;         // or into this descriptor
  bool quiet_stderr = false;  // with output_fd: stderr to /dev/null instead
  std::vector<std::pair<int, int>> moves;  // (from, to): the child's descriptor `to` is this one's `from`
  bool own_session = false;                // a session of its own: a signal to this one's process group misses it
};

// Starts the process: 0 with its pid in `pid`, else the errno that stopped it (the child's signal mask empty, SIGINT
// and SIGTERM at their defaults).
int spawn_process(const SpawnRequest& request, pid_t* pid);

// Runs `argv` to its end, its stdout (and, unless `quiet_stderr`, its stderr) into `output`; its exit status, 127
// where it could not start, 128 where a signal ended it.
int run_capturing(const std::vector<std::string>& argv, std::string* output, bool quiet_stderr = false);

}  // namespace gpubench
