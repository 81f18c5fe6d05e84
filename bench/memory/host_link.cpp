// HostLink: the GPU's PCIe link to its host. Copies from pinned host memory on the GPU's own NUMA node to the GPU and
// back, against the link's theoretical rate at the generation and width it can train at; the generation and width it
// did train at are read while a copy runs (an idle link drops its generation), and kept for the health verdict. In a
// node run every GPU first copies at once (the host's shared side), then each alone in its turn on the host
// (docs/experiments/host_link.md).
#include "bench/planted.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/link_turn.h"
#include "common/pcie_link.h"
#include "common/registry.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
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

HostLinkBuffers& buffers_of(std::int64_t mib, bool* made_now = nullptr) {
  static ArgCache<HostLinkBuffers> buffers;  // one pair for the node run's rows together and alone
  bool made = false;
  HostLinkBuffers& b = buffers.get({mib}, [&] {
    made = true;
    return HostLinkBuffers(static_cast<std::size_t>(mib) << 20, device().index);
  });
  if (made_now != nullptr) *made_now = made;
  return b;
}

void copy_once(cudaStream_t s, HostLinkBuffers& b, std::size_t bytes, bool to_gpu) {
  if (to_gpu)
    GPUBENCH_CUDA(cudaMemcpyAsync(b.on_gpu.data(), b.host.data(), bytes, cudaMemcpyHostToDevice, s));
  else
    GPUBENCH_CUDA(cudaMemcpyAsync(b.host.data(), b.on_gpu.data(), bytes, cudaMemcpyDeviceToHost, s));
}

// `pairs` copies each way queued on `s` and waited for: an idle link sits at a low generation and retrains when
// traffic comes, so the timed copies find it trained.
void warm_the_link(cudaStream_t s, HostLinkBuffers& b, std::size_t bytes, int pairs) {
  for (int i = 0; i < pairs; ++i) {
    copy_once(s, b, bytes, true);
    copy_once(s, b, bytes, false);
  }
  GPUBENCH_CUDA(cudaStreamSynchronize(s));
}

// Copies one way kept queued on a stream, two ahead, topped up while the row waits: its link stays loaded.
class KeptLoad {
 public:
  KeptLoad(cudaStream_t s, HostLinkBuffers& b, std::size_t bytes, bool to_gpu)
      : stream_(s), buffers_(b), bytes_(bytes), to_gpu_(to_gpu) {}
  ~KeptLoad() { GPUBENCH_CUDA_NOEXCEPT(cudaStreamSynchronize(stream_)); }
  KeptLoad(const KeptLoad&) = delete;
  KeptLoad& operator=(const KeptLoad&) = delete;

  void top_up() {
    while (!queued_.empty()) {
      const cudaError_t state = cudaEventQuery(queued_.front()->get());
      if (state == cudaErrorNotReady) break;
      GPUBENCH_CUDA(state);
      queued_.pop_front();
    }
    while (queued_.size() < 2) {
      copy_once(stream_, buffers_, bytes_, to_gpu_);
      queued_.push_back(std::make_unique<Event>());
      GPUBENCH_CUDA(cudaEventRecord(queued_.back()->get(), stream_));
    }
  }

 private:
  cudaStream_t stream_;
  HostLinkBuffers& buffers_;
  std::size_t bytes_;
  bool to_gpu_;
  std::deque<std::unique_ptr<Event>> queued_;
};

// The link's generation and width while copies keep it busy.
PcieLink read_under_load(KeptLoad& load) {
  load.top_up();
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  return pcie_link_now(device().index, /*under_load=*/true);
}

// A slow host link planted on purpose (GPUBENCH_PLANT_HOSTLINK="EXTRA", "@G" for GPU G only): each timed copy moves
// EXTRA more of its bytes that the row does not count, so the link really carries them and reads 1 / (1 + EXTRA) of
// its rate.
std::invalid_argument bad_hostlink_plant() {
  return plant_error("GPUBENCH_PLANT_HOSTLINK",
                     "not EXTRA[@G] (EXTRA a fraction of each copy's bytes above 0, at most 4)");
}
double parse_extra(const std::string& spec) {
  char* end = nullptr;
  const double extra = std::strtod(spec.c_str(), &end);
  if (end == spec.c_str() || *end != '\0' || !(extra > 0 && extra <= 4)) throw bad_hostlink_plant();
  return extra;
}
[[maybe_unused]] const bool kHostLinkPlantForm =
    register_plant("GPUBENCH_PLANT_HOSTLINK", bad_hostlink_plant, parse_extra);

std::optional<double> planted_extra() {
  const std::optional<std::string> spec = plant_for_this_gpu("GPUBENCH_PLANT_HOSTLINK", bad_hostlink_plant);
  if (!spec) return std::nullopt;
  return parse_extra(*spec);
}

// Times the copies of a row under the stopping rule, the planted extra bytes (if any) inside each.
void time_copies(benchmark::State& state, HostLinkBuffers& b, std::size_t bytes, bool to_gpu) {
  const std::optional<double> extra = planted_extra();
  const std::size_t unseen =
      extra ? static_cast<std::size_t>(*extra * static_cast<double>(bytes)) & ~std::size_t{255} : 0;
  RunOptions options;
  options.stamps_cycles = false;
  options.cold_l2 = false;  // the copy's bytes cross the link whatever L2 holds: no scrub between copies
  run(
      state,
      [&](cudaStream_t s, Clocks) {
        copy_once(s, b, bytes, to_gpu);
        if (unseen > 0) copy_once(s, b, unseen, to_gpu);
      },
      options);
  if (extra) state.SetLabel("planted: GPUBENCH_PLANT_HOSTLINK=" + std::string(std::getenv("GPUBENCH_PLANT_HOSTLINK")));
}

void report(benchmark::State& state, const HostLinkBuffers& b, std::size_t bytes, const PcieLink& link) {
  const double moved = static_cast<double>(bytes) * static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(moved));
  state.counters["numa_node"] = b.node;
  state.counters["pcie_gen"] = link.gen;
  state.counters["pcie_width"] = link.width;
  state.counters["pcie_gen_max"] = link.max_gen;
  state.counters["pcie_width_max"] = link.max_width;
  if (const double gbs = pcie_gbs(link.max_gen, link.max_width); gbs > 0)
    state.counters["fraction_of_pcie"] = benchmark::Counter(moved / (gbs * 1e9), benchmark::Counter::kIsRate);
}

// The link alone: outside a node run the host is this GPU's; in one, the row waits for its turn on the host.
void copy_rows(benchmark::State& state) {
  const std::int64_t mib = arg(state, "MiB");
  const bool to_gpu = arg(state, "direction") == kToGpu;
  const std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  const HostTurn turn;
  if (!turn.granted()) {
    skip_benchmark(state, turn.why_not());
    return;
  }
  bool made_now = false;
  HostLinkBuffers& b = buffers_of(mib, &made_now);
  // Eight copies each way before a process's first (the first row of an H100 check read 39.3 against 55.1 GB/s
  // without them, h1i); two where the node's copies at once have just used these buffers.
  warm_the_link(stream(), b, bytes, made_now || !in_node_run() ? 8 : 2);
  time_copies(state, b, bytes, to_gpu);
  KeptLoad load(stream(), b, bytes, to_gpu);
  report(state, b, bytes, read_under_load(load));
}

// Seconds a GPU waits for the node's others at a step they take at once: their buffers, made first, take a tenth
// of a second; a GPU that is gone is said by the parent at once.
constexpr double kTogetherWait = 30.0;

// Every GPU of the node at once: each times its copies only once every GPU's load is on its link, and keeps its load
// up until every GPU's timed copies are done, so every timed copy shares the host with all the others.
void together_rows(benchmark::State& state) {
  const std::int64_t mib = arg(state, "MiB");
  const std::int64_t direction = arg(state, "direction");
  const bool to_gpu = direction == kToGpu;
  const std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  static std::map<std::int64_t, int> passes;  // a repetition is a step of its own, the same on every GPU
  const std::string step =
      "HostLink/together/direction:" + std::to_string(direction) + "#" + std::to_string(++passes[direction]);
  std::string why;
  HostLinkBuffers* b = nullptr;
  try {
    b = &buffers_of(mib);
    warm_the_link(stream(), *b, bytes, 8);
  } catch (...) {  // the others' copies go on without this GPU's
    node_together(step + " start", nullptr, kTogetherWait, why);
    node_together(step + " end", nullptr, kTogetherWait, why);
    throw;
  }
  KeptLoad load(stream(), *b, bytes, to_gpu);
  const auto keep_loaded = [&] { load.top_up(); };
  // A row that throws (an interrupt, a CUDA error while it waits or times) still says its copies are over, waiting
  // for no one: the others' go on at once instead of at their wait's end.
  struct EndSaid {
    const std::string& step;
    bool said = false;
    ~EndSaid() {
      std::string ignored;
      if (!said) node_together(step + " end", nullptr, 0.0, ignored);
    }
  } end{step};
  if (!node_together(step + " start", keep_loaded, kTogetherWait, why)) throw std::runtime_error(why);
  time_copies(state, *b, bytes, to_gpu);
  const PcieLink link = read_under_load(load);
  end.said = true;
  if (!node_together(step + " end", keep_loaded, kTogetherWait, why))
    throw std::runtime_error("the copies may not have overlapped every GPU's: " + why);
  report(state, *b, bytes, link);
  // Where this GPU's path to the host parts from the others' says which of them share what (the card's reading).
  const std::string path = pcie_path_of(device().index);
  const char* planted = std::getenv("GPUBENCH_PLANT_HOSTLINK");
  state.SetLabel("pcie path " + (path.empty() ? std::string("unknown") : path) +
                 (planted_extra() ? "; planted: GPUBENCH_PLANT_HOSTLINK=" + std::string(planted) : ""));
}

// A node run's copies at once come first: its children start their rows together (the registry places this family
// first). Then each GPU's alone, in its turn on the host.
GPUBENCH_FAMILY_FIRST(HostLink) {
  if (running_as_node()) {
    Benchmark* together = in_check(family.gpu("HostLink/together", {"direction", "MiB"}, together_rows));
    for (std::int64_t direction : {kToGpu, kToHost}) add_point(together, {{"direction", direction}, {"MiB", kMiB}});
  }
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
