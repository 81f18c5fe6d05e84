// What the harness knows about the GPU: queried properties, derived peaks, and the key/value
// context printed before results and stored in the JSON's "context".
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string uuid;        // GPU-xxxxxxxx-...: which board a run came from (machines of one SKU told apart)
  std::string pci_bus_id;  // 0000:18:00.0: where an operator finds the board in a node
  int major = 0;
  int minor = 0;
  int sm_count = 0;
  int max_sm_clock_mhz = 0;  // the part's rated peak, not what it runs at
  int memory_clock_mhz = 0;
  int memory_bus_width_bits = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t shared_memory_per_sm_bytes = 0;
  std::size_t shared_memory_per_block_optin_bytes = 0;
  int registers_per_sm = 0;
  int max_threads_per_sm = 0;
  int driver_version = 0;  // e.g. 13000
  int runtime_version = 0;

  // Double data rate over the full bus.
  double theoretical_dram_gbs() const;
  std::string compute_capability() const { return std::to_string(major) + "." + std::to_string(minor); }
};

DeviceInfo query_device(int index);

// "13000" -> "13.0".
std::string format_cuda_version(int version);

// Context rows in display order; measured_sm_mhz is the calibrated clock the peaks are computed at.
std::vector<std::pair<std::string, std::string>> device_context(const DeviceInfo& info, double measured_sm_mhz);

}  // namespace gpubench
