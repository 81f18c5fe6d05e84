#include "common/spawn.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

extern char** environ;

namespace gpubench {
namespace {

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

int spawn_process(const SpawnRequest& request, pid_t* pid) {
  if (request.argv.empty()) return EINVAL;
  std::vector<std::string> argv = request.argv;
  std::vector<std::string> environment = request.environment ? *request.environment : std::vector<std::string>{};
  std::vector<char*> args = pointers(argv), envp = pointers(environment);

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, request.stdin_path.c_str(), O_RDONLY, 0);
  if (!request.output_path.empty()) {
    posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, request.output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  } else if (request.output_fd >= 0) {
    posix_spawn_file_actions_adddup2(&files, request.output_fd, STDOUT_FILENO);
    if (request.quiet_stderr) {
      posix_spawn_file_actions_addopen(&files, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    } else {
      posix_spawn_file_actions_adddup2(&files, request.output_fd, STDERR_FILENO);
    }
  }
  // dup2 leaves the copy open across exec, whatever the original's close-on-exec.
  for (const auto& [from, to] : request.moves) posix_spawn_file_actions_adddup2(&files, from, to);

  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (request.own_session) flags |= POSIX_SPAWN_SETSID;
  posix_spawnattr_setflags(&attributes, flags);
  const int error =
      posix_spawnp(pid, args[0], &files, &attributes, args.data(), request.environment ? envp.data() : environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&files);
  return error;
}

int run_capturing(const std::vector<std::string>& argv, std::string* output, bool quiet_stderr) {
  int pipe_ends[2];
  if (pipe2(pipe_ends, O_CLOEXEC) != 0) return 127;
  SpawnRequest request;
  request.argv = argv;
  request.output_fd = pipe_ends[1];
  request.quiet_stderr = quiet_stderr;
  pid_t child = -1;
  const int error = spawn_process(request, &child);
  close(pipe_ends[1]);
  if (error != 0) {
    close(pipe_ends[0]);
    return 127;
  }
  char buffer[4096];
  ssize_t got = 0;
  while ((got = read(pipe_ends[0], buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR))
    if (got > 0 && output != nullptr) output->append(buffer, static_cast<std::size_t>(got));
  close(pipe_ends[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace gpubench
