#include "bench/multigpu/peer_memory.h"

#include "common/cuda_check.h"

#include <cstdio>
#include <regex>
#include <set>
#include <utility>

namespace gpubench {

ScopedDevice::ScopedDevice(int device) {
  GPUBENCH_CUDA(cudaGetDevice(&previous_));
  GPUBENCH_CUDA(cudaSetDevice(device));
}

ScopedDevice::~ScopedDevice() { GPUBENCH_CUDA_NOEXCEPT(cudaSetDevice(previous_)); }

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

bool enable_peer_access(int device, int peer) {
  // Enabled once per pair: a second cudaDeviceEnablePeerAccess fails (compute-sanitizer reports it).
  static std::set<std::pair<int, int>> enabled;
  if (enabled.count({device, peer}) != 0) return true;
  int can = 0;
  GPUBENCH_CUDA(cudaDeviceCanAccessPeer(&can, device, peer));
  if (!can) return false;
  ScopedDevice on(device);
  GPUBENCH_CUDA(cudaDeviceEnablePeerAccess(peer, 0));
  enabled.insert({device, peer});
  return true;
}

NvlinkStatus nvlink_status(int device) {
  NvlinkStatus status;
  const std::string command = "nvidia-smi nvlink --status -i " + std::to_string(device) + " 2>/dev/null";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return status;
  // "	 Link 0: 26.562 GB/s" per active link; inactive links say so instead.
  const std::regex link(R"(Link\s+\d+:\s+([0-9.]+)\s*GB/s)");
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::cmatch match;
    if (std::regex_search(line, match, link)) {
      ++status.links;
      status.gbs_per_direction += std::stod(match[1].str());
    }
  }
  pclose(pipe);
  return status;
}

std::string peer_topology() {
  const int count = cuda_device_count();
  if (count < 2) return std::to_string(count) + " GPU(s): no pairs";
  std::string text;
  for (int a = 0; a < count; ++a) {
    for (int b = 0; b < count; ++b) {
      if (a == b) continue;
      int access = 0, rank = 0;
      cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, a, b);
      cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b);
      cudaGetLastError();
      text += (text.empty() ? "" : "; ") + std::to_string(a) + "->" + std::to_string(b) + ": peer access " +
              (access ? "yes" : "no") + ", rank " + std::to_string(rank);
    }
  }
  for (int d = 0; d < count; ++d) {
    const NvlinkStatus links = nvlink_status(d);
    char part[96];
    std::snprintf(part, sizeof part, "; GPU %d: %d NVLink links, %.1f GB/s per direction", d, links.links,
                  links.gbs_per_direction);
    text += part;
  }
  return text;
}

}  // namespace gpubench
