#include "common/pcie_link.h"

#include "common/detail/nvml_device.h"

#include <cuda_runtime_api.h>
#include <sched.h>

#include <cctype>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#if GPUBENCH_HAVE_NVML
#include <nvml.h>
#endif

namespace gpubench {
namespace {

std::mutex g_mutex;
std::map<int, PcieLink>& under_load_by_device() {
  static std::map<int, PcieLink> readings;
  return readings;
}

// "00000000:18:00.0" -> "0000:18:00.0", as sysfs names a PCI device.
std::string sysfs_bus_id(int cuda_index) {
  char bus_id[64] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_index) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  std::string text(bus_id);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colon = text.find(':');
  if (colon != std::string::npos && colon > 4) text = text.substr(colon - 4);
  return text;
}

}  // namespace

double pcie_gbs(int gen, int width) {
  // GT/s per lane and line coding: 8b/10b up to Gen2, 128b/130b from Gen3; Gen6's FLITs carry 242 of 256 bytes.
  static const std::map<int, double> per_lane = {{1, 2.5 * 0.8 / 8},        {2, 5.0 * 0.8 / 8},
                                                 {3, 8.0 * 128 / 130 / 8},  {4, 16.0 * 128 / 130 / 8},
                                                 {5, 32.0 * 128 / 130 / 8}, {6, 64.0 * 242 / 256 / 8}};
  const auto found = per_lane.find(gen);
  return found == per_lane.end() ? 0.0 : found->second * width;
}

PcieLink pcie_link_now(int cuda_index, bool under_load) {
  PcieLink link;
#if GPUBENCH_HAVE_NVML
  if (nvmlInit_v2() != NVML_SUCCESS) {
    link.unavailable = "NVML did not start";
    return link;
  }
  if (auto device = static_cast<nvmlDevice_t>(nvml_handle_of(cuda_index, &link.unavailable))) {
    unsigned int value = 0, gpu_max = 0;
    if (nvmlDeviceGetCurrPcieLinkGeneration(device, &value) == NVML_SUCCESS) link.gen = static_cast<int>(value);
    if (nvmlDeviceGetCurrPcieLinkWidth(device, &value) == NVML_SUCCESS) link.width = static_cast<int>(value);
    if (nvmlDeviceGetMaxPcieLinkGeneration(device, &value) == NVML_SUCCESS) link.max_gen = static_cast<int>(value);
    if (nvmlDeviceGetGpuMaxPcieLinkGeneration(device, &gpu_max) == NVML_SUCCESS && gpu_max > 0 &&
        (link.max_gen == 0 || static_cast<int>(gpu_max) < link.max_gen))
      link.max_gen = static_cast<int>(gpu_max);
    if (nvmlDeviceGetMaxPcieLinkWidth(device, &value) == NVML_SUCCESS) link.max_width = static_cast<int>(value);
  }
  nvmlShutdown();
#else
  link.unavailable = "this build has no NVML";
#endif
  if (under_load && link.gen > 0) {
    std::lock_guard<std::mutex> lock(g_mutex);
    under_load_by_device()[cuda_index] = link;
  }
  return link;
}

PcieLink pcie_link_under_load(int cuda_index) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto found = under_load_by_device().find(cuda_index);
  return found == under_load_by_device().end() ? PcieLink{} : found->second;
}

int numa_node_of(int cuda_index) {
  const std::string bus = sysfs_bus_id(cuda_index);
  if (bus.empty()) return -1;
  std::ifstream file("/sys/bus/pci/devices/" + bus + "/numa_node");
  int node = -1;
  return file >> node ? node : -1;
}

std::string pcie_path_of(int cuda_index) {
  const std::string bus = sysfs_bus_id(cuda_index);
  if (bus.empty()) return "";
  std::error_code failed;
  const std::string path =
      std::filesystem::canonical("/sys/bus/pci/devices/" + bus, failed).string();  // /sys/devices/pci0000:00/...
  const std::string devices = "/sys/devices/";
  return failed || path.rfind(devices, 0) != 0 ? "" : path.substr(devices.size());
}

void on_numa_node(int node, const std::function<void()>& work) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  bool any = false;
  if (node >= 0) {
    std::ifstream file("/sys/devices/system/node/node" + std::to_string(node) + "/cpulist");
    std::string list;
    std::getline(file, list);
    std::istringstream ranges(list);
    for (std::string range; std::getline(ranges, range, ',');) {
      int first = -1, last = -1;
      const char dash = '-';
      std::istringstream in(range);
      if (!(in >> first)) continue;
      last = first;
      if (in.peek() == dash) in.ignore() >> last;
      for (int cpu = first; cpu <= last && cpu < CPU_SETSIZE; ++cpu) {
        CPU_SET(cpu, &cpus);
        any = true;
      }
    }
  }
  std::exception_ptr failed;
  std::thread bound([&] {
    if (any) sched_setaffinity(0, sizeof cpus, &cpus);  // this thread only; a refusal leaves it anywhere
    try {
      work();
    } catch (...) {
      failed = std::current_exception();
    }
  });
  bound.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace gpubench
