#include "app/gpu_processes.h"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace gpubench::app {

std::string other_gpu_processes(int device) {
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess) return "unknown (no PCI bus id)";
  // nvidia-smi rather than NVML: no header or library to build against, and it is wherever a driver is.
  const std::string command =
      std::string("nvidia-smi --query-compute-apps=pid --format=csv,noheader -i ") + bus_id + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "unknown (nvidia-smi did not start)";
  std::vector<long> others;
  char line[128];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    const long pid = std::strtol(line, nullptr, 10);
    if (pid > 0 && pid != static_cast<long>(getpid())) others.push_back(pid);
  }
  if (pclose(pipe) != 0) return "unknown (nvidia-smi failed)";
  if (others.empty()) return "none";
  std::string text = std::to_string(others.size()) + " (pid";
  for (std::size_t i = 0; i < others.size(); ++i) text += (i ? ", " : " ") + std::to_string(others[i]);
  return text + ")";
}

}  // namespace gpubench::app
