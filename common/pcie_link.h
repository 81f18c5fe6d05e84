// A GPU's PCIe link to its host: the generation and width it trained at (NVML, read while a copy runs: an idle link
// drops its generation to save power), the most it can train at, its theoretical rate, and the host's NUMA node the
// GPU hangs off (sysfs), so host memory for its copies is placed there.
#pragma once

#include <functional>
#include <string>

namespace gpubench {

struct PcieLink {
  int gen = 0, width = 0;          // as trained now
  int max_gen = 0, max_width = 0;  // the most the GPU and its slot allow together
  std::string unavailable;         // why NVML read nothing ("" when it did)
};

// GB/s one way of a link of `gen` and `width` lanes (after line coding), 0 for an unknown generation.
double pcie_gbs(int gen, int width);

// The link of CUDA device `cuda_index` now. Kept as the device's reading under load when `under_load` (see below).
PcieLink pcie_link_now(int cuda_index, bool under_load = false);

// The last reading taken under load on `cuda_index` in this process (gen 0 when none was): the health record's.
PcieLink pcie_link_under_load(int cuda_index);

// The host NUMA node of CUDA device `cuda_index` (sysfs), -1 where the host has none or says nothing.
int numa_node_of(int cuda_index);

// The PCIe path from the host's root to CUDA device `cuda_index`, as sysfs places it ("pci0000:00/0000:00:07.0":
// root, bridges and switch ports, the GPU), "" where unreadable. Two GPUs' paths part where their links part: what
// they share of it (a switch, a root port) is what their copies to the host share.
std::string pcie_path_of(int cuda_index);

// Runs `work` on a thread bound to the CPUs of NUMA node `node` (any CPU where -1 or unreadable), so that memory it
// allocates and touches first is that node's (a new thread: its CUDA device is the default until it sets one). What
// `work` throws is thrown here.
void on_numa_node(int node, const std::function<void()>& work);

}  // namespace gpubench
