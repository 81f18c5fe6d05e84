// HostLink: the GPU's PCIe link to its host. Copies from pinned host memory on the GPU's own NUMA node to the GPU and
// back, against the link's theoretical rate at the generation and width it can train at; the generation and width it
// did train at are read while a copy runs (an idle link drops its generation), and kept for the health verdict
// (docs/experiments/host_link.md).
#include "common/arg_cache.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/pcie_link.h"
#include "common/registry.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <utility>

namespace gpubench {
namespace {

constexpr std::int64_t kMiB = 256;  // 4-5 ms a copy at Gen5 x16: long beside a launch's microseconds
constexpr std::int64_t kToGpu = 0, kToHost = 1;

// Pinned host memory placed on the GPU's NUMA node (allocated and first touched by a thread bound there).
class NodeLocalPinned {
 public:
  NodeLocalPinned(std::size_t bytes, int device_index, int node) : bytes_(bytes) {
    on_numa_node(node, [&] {
      GPUBENCH_CUDA(cudaSetDevice(device_index));
      GPUBENCH_CUDA(cudaHostAlloc(&data_, bytes, cudaHostAllocPortable));
      std::memset(data_, 0x5A, bytes);
    });
  }
  ~NodeLocalPinned() {
    if (data_) GPUBENCH_CUDA_NOEXCEPT(cudaFreeHost(data_));
  }
  NodeLocalPinned(NodeLocalPinned&& other) noexcept
      : bytes_(other.bytes_), data_(std::exchange(other.data_, nullptr)) {}
  NodeLocalPinned& operator=(NodeLocalPinned&&) = delete;
  NodeLocalPinned(const NodeLocalPinned&) = delete;
  NodeLocalPinned& operator=(const NodeLocalPinned&) = delete;
  void* data() const { return data_; }

 private:
  std::size_t bytes_;
  void* data_ = nullptr;
};

struct HostLinkBuffers {
  HostLinkBuffers(std::size_t bytes, int device_index)
      : node(numa_node_of(device_index)), host(bytes, device_index, node), on_gpu(bytes) {
    on_gpu.fill_bytes(0x3C);
  }
  int node;
  NodeLocalPinned host;
  DeviceBuffer<char> on_gpu;
};

// Eight copies each way queued on `s` (about 80 ms at Gen5 x16): load on the link.
void queue_load(cudaStream_t s, HostLinkBuffers& b, std::size_t bytes) {
  for (int i = 0; i < 8; ++i) {
    GPUBENCH_CUDA(cudaMemcpyAsync(b.on_gpu.data(), b.host.data(), bytes, cudaMemcpyHostToDevice, s));
    GPUBENCH_CUDA(cudaMemcpyAsync(b.host.data(), b.on_gpu.data(), bytes, cudaMemcpyDeviceToHost, s));
  }
}

void warm_the_link(cudaStream_t s, HostLinkBuffers& b, std::size_t bytes) {
  queue_load(s, b, bytes);
  GPUBENCH_CUDA(cudaStreamSynchronize(s));
}

// The link's generation and width while copies keep it busy.
PcieLink read_under_load(cudaStream_t s, HostLinkBuffers& b, std::size_t bytes) {
  queue_load(s, b, bytes);
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  const PcieLink link = pcie_link_now(device().index, /*under_load=*/true);
  GPUBENCH_CUDA(cudaStreamSynchronize(s));
  return link;
}

void copy_rows(benchmark::State& state) {
  static ArgCache<HostLinkBuffers> buffers;
  const std::int64_t mib = arg(state, "MiB");
  const bool to_gpu = arg(state, "direction") == kToGpu;
  const std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  HostLinkBuffers& b = buffers.get({mib}, [&] { return HostLinkBuffers(bytes, device().index); });
  // An idle link sits at a low generation and retrains when traffic comes: copies first, so the timed ones find it
  // trained (the first row of an H100 check read 39.3 against 55.1 GB/s without them, h1i).
  warm_the_link(stream(), b, bytes);
  RunOptions options;
  options.stamps_cycles = false;
  options.cold_l2 = false;  // the copy's bytes cross the link whatever L2 holds: no scrub between copies
  run(
      state,
      [&](cudaStream_t s, Clocks) {
        if (to_gpu)
          GPUBENCH_CUDA(cudaMemcpyAsync(b.on_gpu.data(), b.host.data(), bytes, cudaMemcpyHostToDevice, s));
        else
          GPUBENCH_CUDA(cudaMemcpyAsync(b.host.data(), b.on_gpu.data(), bytes, cudaMemcpyDeviceToHost, s));
      },
      options);
  const double moved = static_cast<double>(bytes) * static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(moved));
  const PcieLink link = read_under_load(stream(), b, bytes);
  state.counters["numa_node"] = b.node;
  state.counters["pcie_gen"] = link.gen;
  state.counters["pcie_width"] = link.width;
  state.counters["pcie_gen_max"] = link.max_gen;
  state.counters["pcie_width_max"] = link.max_width;
  if (const double gbs = pcie_gbs(link.max_gen, link.max_width); gbs > 0)
    state.counters["fraction_of_pcie"] = benchmark::Counter(moved / (gbs * 1e9), benchmark::Counter::kIsRate);
}

GPUBENCH_FAMILY_FIRST(HostLink) {
  Benchmark* rows = in_check(family.gpu("HostLink/copy", {"direction", "MiB"}, copy_rows));
  for (std::int64_t direction : {kToGpu, kToHost}) add_point(rows, {{"direction", direction}, {"MiB", kMiB}});
}

GPUBENCH_COUNTERS(HostLink,
                  {"fraction_of_pcie", "fraction", CounterKind::kMeasured,
                   "bytes_per_second over the PCIe link's one-way rate at its most generation and width",
                   Better::kHigher},
                  {"pcie_gen", "generation", CounterKind::kMeasured,
                   "the PCIe generation the link trained at, read (NVML) while copies ran"},
                  {"pcie_width", "lanes", CounterKind::kMeasured,
                   "the PCIe lanes the link trained at, read (NVML) while copies ran"},
                  {"pcie_gen_max", "generation", CounterKind::kFixed,
                   "the most generation the GPU and its slot allow together (NVML)"},
                  {"pcie_width_max", "lanes", CounterKind::kFixed, "the most lanes of the link (NVML)"},
                  {"numa_node", "node", CounterKind::kFixed,
                   "the host NUMA node of the GPU (sysfs), where the pinned host memory was placed (-1: none)"});

}  // namespace
}  // namespace gpubench
