#include "bench/multigpu/peer_memory.h"

#include "common/cuda_check.h"
#include "common/link_turn.h"
#include "common/spawn.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

namespace gpubench {

ScopedDevice::ScopedDevice(int device) {
  GPUBENCH_CUDA(cudaGetDevice(&previous_));
  GPUBENCH_CUDA(cudaSetDevice(device));
}

ScopedDevice::~ScopedDevice() { GPUBENCH_CUDA_NOEXCEPT(cudaSetDevice(previous_)); }

ImportedMemory::ImportedMemory(const std::string& hex) {
  cudaIpcMemHandle_t handle;
  if (!from_hex(hex, &handle, sizeof handle)) return;
  if (cudaIpcOpenMemHandle(&data_, handle, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
    cudaGetLastError();
    data_ = nullptr;
  }
}

ImportedMemory::~ImportedMemory() {
  if (data_) GPUBENCH_CUDA_NOEXCEPT(cudaIpcCloseMemHandle(data_));
}

SharedEvent::SharedEvent() {
  GPUBENCH_CUDA(cudaEventCreateWithFlags(&event_, cudaEventInterprocess | cudaEventDisableTiming));
}

SharedEvent::SharedEvent(const std::string& hex) {
  cudaIpcEventHandle_t handle;
  if (!from_hex(hex, &handle, sizeof handle)) return;
  if (cudaIpcOpenEventHandle(&event_, handle) != cudaSuccess) {
    cudaGetLastError();
    event_ = nullptr;
  }
}

SharedEvent::~SharedEvent() {
  if (event_) GPUBENCH_CUDA_NOEXCEPT(cudaEventDestroy(event_));
}

std::string SharedEvent::handle() const {
  cudaIpcEventHandle_t handle;
  GPUBENCH_CUDA(cudaIpcGetEventHandle(&handle, event_));
  return to_hex(&handle, sizeof handle);
}

std::string memory_handle(const void* memory) {
  cudaIpcMemHandle_t handle;
  GPUBENCH_CUDA(cudaIpcGetMemHandle(&handle, const_cast<void*>(memory)));
  return to_hex(&handle, sizeof handle);
}

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

std::map<int, NvlinkStatus> parse_nvlink_status(const std::string& text) {
  std::map<int, NvlinkStatus> found;
  const std::regex gpu(R"(^GPU\s+(\d+):)");
  const std::regex link(R"(Link\s+\d+:\s+([0-9.]+)\s*GB/s)");
  int current = -1;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, gpu)) {
      current = std::stoi(match[1].str());
      found[current];
    } else if (current >= 0 && std::regex_search(line, match, link)) {
      ++found[current].links;
      found[current].gbs_per_direction += std::stod(match[1].str());
    }
  }
  return found;
}

NvlinkStatus nvlink_status(int device) {
  static std::once_flag read;
  static std::map<int, NvlinkStatus> of_gpu;
  // One call for the host: each starts NVML over every GPU (a tenth of a second or more), and every process of a node
  // run would otherwise make one per GPU.
  std::call_once(read, [] {
    std::string text;
    run_capturing({"nvidia-smi", "nvlink", "--status"}, &text, /*quiet_stderr=*/true);
    of_gpu = parse_nvlink_status(text);
  });
  const auto found = of_gpu.find(device);
  return found == of_gpu.end() ? NvlinkStatus{} : found->second;
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
