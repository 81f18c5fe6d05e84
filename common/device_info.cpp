#include "common/device_info.h"

#include "common/arch_table.h"
#include "common/cuda_check.h"

#include <cuda_runtime_api.h>

#include <cstdio>

namespace gpubench {
namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace

double DeviceInfo::theoretical_dram_gbs() const {
  return 2.0 * memory_clock_mhz * 1e6 * (memory_bus_width_bits / 8.0) / 1e9;
}

// nvidia-smi's spelling: GPU-8-4-4-4-12 hex digits.
static std::string uuid_text(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    text += hex;
  }
  return text;
}

DeviceInfo query_device(int index) {
  cudaDeviceProp prop{};
  GPUBENCH_CUDA(cudaGetDeviceProperties(&prop, index));
  DeviceInfo info;
  info.index = index;
  info.name = prop.name;
  info.uuid = uuid_text(prop.uuid);
  char bus_id[32] = {};
  std::snprintf(bus_id, sizeof bus_id, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  info.pci_bus_id = bus_id;
  info.major = prop.major;
  info.minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain (kHz).
  info.max_sm_clock_mhz = attribute(cudaDevAttrClockRate, index) / 1000;
  info.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, index) / 1000;
  info.memory_bus_width_bits = prop.memoryBusWidth;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.global_memory_bytes = prop.totalGlobalMem;
  info.shared_memory_per_sm_bytes = prop.sharedMemPerMultiprocessor;
  info.shared_memory_per_block_optin_bytes = prop.sharedMemPerBlockOptin;
  info.registers_per_sm = prop.regsPerMultiprocessor;
  info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  GPUBENCH_CUDA(cudaDriverGetVersion(&info.driver_version));
  GPUBENCH_CUDA(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

std::string format_cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::vector<std::pair<std::string, std::string>> device_context(const DeviceInfo& info, double measured_sm_mhz) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"gpu_index", std::to_string(info.index)},
      {"gpu_name", info.name},
      {"gpu_compute_capability", info.compute_capability()},
      {"gpu_sm_count", std::to_string(info.sm_count)},
      {"gpu_sm_clock_mhz_measured", fixed(measured_sm_mhz, 0)},
      {"gpu_sm_clock_mhz_max", std::to_string(info.max_sm_clock_mhz)},
      {"gpu_l2_bytes", std::to_string(info.l2_bytes)},
      {"gpu_global_memory_bytes", std::to_string(info.global_memory_bytes)},
      {"gpu_shared_memory_per_sm_bytes", std::to_string(info.shared_memory_per_sm_bytes)},
      {"gpu_shared_memory_per_block_optin_bytes", std::to_string(info.shared_memory_per_block_optin_bytes)},
      {"gpu_registers_per_sm", std::to_string(info.registers_per_sm)},
      {"gpu_max_threads_per_sm", std::to_string(info.max_threads_per_sm)},
      {"gpu_memory_bus_width_bits", std::to_string(info.memory_bus_width_bits)},
      {"gpu_memory_clock_mhz", std::to_string(info.memory_clock_mhz)},
      {"gpu_dram_bandwidth_theoretical_gbs", fixed(info.theoretical_dram_gbs(), 1)},
  };
  if (!info.uuid.empty()) rows.emplace_back("gpu_uuid", info.uuid);
  if (!info.pci_bus_id.empty()) rows.emplace_back("gpu_pci_bus_id", info.pci_bus_id);
  if (const auto throughput = arch_throughput(info.major, info.minor)) {
    rows.emplace_back("gpu_fp32_peak_tflops_at_measured_clock",
                      fixed(peak_tflops(throughput->fp32_fma_per_sm_per_clock, info.sm_count, measured_sm_mhz), 1));
    rows.emplace_back("gpu_fp64_peak_tflops_at_measured_clock",
                      fixed(peak_tflops(throughput->fp64_fma_per_sm_per_clock, info.sm_count, measured_sm_mhz), 1));
  } else {
    rows.emplace_back("gpu_fp32_peak_tflops_at_measured_clock",
                      "unknown for sm_" + std::to_string(info.major) + std::to_string(info.minor));
  }
  rows.emplace_back("cuda_driver_version", format_cuda_version(info.driver_version));
  rows.emplace_back("cuda_runtime_version", format_cuda_version(info.runtime_version));
  return rows;
}

}  // namespace gpubench
