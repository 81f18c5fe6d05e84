#include "app/gpu_processes.h"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

namespace {

std::string trim(std::string text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  const auto last = text.find_last_not_of(" \t\r\n");
  return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

}  // namespace

std::string other_gpu_processes(int device) {
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess) return "unknown (no PCI bus id)";
  // nvidia-smi rather than NVML: no header or library to build against, and it is wherever a driver is.
  const std::string command = std::string(
                                  "nvidia-smi --query-compute-apps=pid,used_memory,process_name "
                                  "--format=csv,noheader,nounits -i ") +
                              bus_id + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "unknown (nvidia-smi did not start)";
  std::vector<std::string> others;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::istringstream fields(line);
    std::string pid_text, memory, name;
    std::getline(fields, pid_text, ',');
    std::getline(fields, memory, ',');
    std::getline(fields, name);
    const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
    if (pid <= 0 || ours(pid)) continue;
    name = trim(name);
    const auto slash = name.rfind('/');
    if (slash != std::string::npos) name = name.substr(slash + 1);
    memory = trim(memory);
    others.push_back("pid " + std::to_string(pid) + (name.empty() ? "" : " " + name) +
                     (memory.empty() || memory == "[N/A]" ? "" : " " + memory + " MiB"));
  }
  if (pclose(pipe) != 0) return "unknown (nvidia-smi failed)";
  if (others.empty()) return "none";
  std::string text = std::to_string(others.size()) + " (";
  for (std::size_t i = 0; i < others.size(); ++i) text += (i ? "; " : "") + others[i];
  return text + ")";
}

}  // namespace gpubench::app
