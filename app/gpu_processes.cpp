#include "app/gpu_processes.h"

#include "common/detail/process_sampler.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace gpubench::app {
namespace {

long parent_of(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');  // the command may hold spaces and parentheses
  if (close == std::string::npos) return -1;
  std::istringstream rest(text.substr(close + 1));
  std::string state;
  long ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

}  // namespace

// This process, and in a node run the parent and every child of it.
bool ours(long pid) {
  if (pid == static_cast<long>(getpid())) return true;
  const char* node = std::getenv(kNodePidVariable);
  if (node == nullptr || *node == '\0') return false;
  const long node_pid = std::strtol(node, nullptr, 10);
  return pid == node_pid || parent_of(pid) == node_pid;
}

std::string other_gpu_processes(int device) {
  std::string why;
  const auto found = detail::processes_now(device, ours, &why);
  if (!found) return "unknown (" + why + ")";
  if (found->empty()) return "none";
  std::string text = std::to_string(found->size()) + " (";
  for (std::size_t i = 0; i < found->size(); ++i) {
    const detail::SeenProcess& p = (*found)[i];
    text += (i ? "; " : "") + ("pid " + std::to_string(p.pid)) + (p.name.empty() ? "" : " " + p.name) +
            (p.most_memory_mib ? " " + std::to_string(p.most_memory_mib) + " MiB" : "");
  }
  return text + ")";
}

}  // namespace gpubench::app
