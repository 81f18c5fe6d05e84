//! The per-SM map of the node check (--gpubench_preset=check): every SM at once runs one block that times its
//! own work (FP32 FMA chains, shared-memory loads, mma.sync FP16 tiles, an L2 pointer chase) and leaves an
//! answer the host verifies. Each row reports the median SM, the worst SM against it, and every SM's value as
//! a series; a wrong answer is named with its SM. SmMap/gpc groups the SMs by GPC from where the hardware
//! places clusters. docs/experiments/sm_map.md.
#include "bench/compute/sm_map_check.h"
#include "bench/memory/cluster_launch.h"
#include "bench/one_block_per_sm.h"
#include "bench/planted.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/compute/sm_map.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {
namespace {

using kernels::SmRecord;

constexpr int kFmaIterations = 4096;     // 8 chains x 256 threads x 4096 = 8.4 M FMAs per SM: ~65k cycles
constexpr int kSharedIterations = 2048;  // 16 K loads of 16 bytes per thread
constexpr int kMmaIterations = 2048;
constexpr int kChaseThreads = 32;
constexpr int kChaseSteps = 1024;
constexpr std::uint32_t kMaxChaseNodes = 32768;  // 4 MiB of 128-byte lines; fewer where L2 is under 16 MiB

// A fault planted on purpose (GPUBENCH_PLANT, for calibrating the check: docs/verdicts.md): "busy_sm:N" keeps
// SM N busy from another stream while the map runs; "flip_bit" flips one bit of one block's FMA answer; either
// followed by "@G" plants it on GPU G only.
struct Plant {
  std::optional<int> busy_sm;
  bool flip_bit = false;
};
std::invalid_argument bad_sm_plant() {
  return plant_error("GPUBENCH_PLANT", "not busy_sm:N or flip_bit, @GPU optional");
}
// `sm_count`: the SM must exist (at start no GPU is open yet: the form only).
Plant parse_sm_plant(const std::string& spec, std::optional<int> sm_count) {
  Plant plant;
  const std::string sm = spec.rfind("busy_sm:", 0) == 0 ? spec.substr(8) : std::string();
  if (!sm.empty() && sm.find_first_not_of("0123456789") == std::string::npos && sm.size() < 6) {
    if (sm_count && std::stoi(sm) >= *sm_count)
      throw std::invalid_argument("GPUBENCH_PLANT=" + spec + ": busy_sm takes an SM below " +
                                  std::to_string(*sm_count));
    plant.busy_sm = std::stoi(sm);
  } else if (spec == "flip_bit") {
    plant.flip_bit = true;
  } else {
    throw bad_sm_plant();
  }
  return plant;
}
[[maybe_unused]] const bool kSmPlantForm =
    register_plant("GPUBENCH_PLANT", bad_sm_plant, [](const std::string& spec) { parse_sm_plant(spec, std::nullopt); });

Plant planted() {
  const std::optional<std::string> spec = plant_for_this_gpu("GPUBENCH_PLANT", bad_sm_plant);
  return spec ? parse_sm_plant(*spec, device().sm_count) : Plant{};
}

// Another stream's block that keeps one SM's FMA pipes busy until released: the planted slow SM.
__global__ void occupy_sm(unsigned target, const volatile int* release, int* claimed) {
  __shared__ int mine;
  // One block only: more would fill the SM's thread slots and keep the map's block off it altogether.
  if (threadIdx.x == 0) mine = sm_id() == target && atomicAdd(claimed, 1) == 0;
  __syncthreads();
  if (!mine) return;
  // Eight chains per thread keep the FMA pipes full; the host's flag is read every ~16k cycles only (a read over
  // PCIe stalls the warp for microseconds: polled often, the block would mostly wait).
  float x[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) x[c] = static_cast<float>(threadIdx.x + c);
  while (*release == 0)
    for (int i = 0; i < 4096; ++i)
#pragma unroll
      for (int c = 0; c < 8; ++c) asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x[c]) : "f"(0.5f));
  if (x[0] + x[7] == 12345.0f) asm volatile("trap;");  // keeps the chains alive
}

class BusySm {
 public:
  explicit BusySm(int sm) {
    GPUBENCH_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&release_), sizeof(int), cudaHostAllocMapped));
    *release_ = 0;
    int* device_release = nullptr;
    GPUBENCH_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_release), release_, 0));
    GPUBENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    // The map's shared-memory split, so the SM need not drain (and lose this block) to host the map's block.
    GPUBENCH_CUDA(cudaFuncSetAttribute(occupy_sm, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    claimed_.fill_bytes(0, stream_);
    occupy_sm<<<device().sm_count * 2, 256, 0, stream_>>>(static_cast<unsigned>(sm), device_release, claimed_.data());
    GPUBENCH_CUDA_LAUNCHED();
  }
  ~BusySm() {
    *reinterpret_cast<volatile int*>(release_) = 1;
    GPUBENCH_CUDA_NOEXCEPT(cudaStreamSynchronize(stream_));
    GPUBENCH_CUDA_NOEXCEPT(cudaStreamDestroy(stream_));
    GPUBENCH_CUDA_NOEXCEPT(cudaFreeHost(release_));
  }
  BusySm(const BusySm&) = delete;
  BusySm& operator=(const BusySm&) = delete;

 private:
  int* release_ = nullptr;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer<int> claimed_{1};
};

// The planted busy SM for the length of a map row, or nothing.
std::unique_ptr<BusySm> busy_if_planted() {
  const std::optional<int> sm = planted().busy_sm;
  return sm ? std::make_unique<BusySm>(*sm) : nullptr;
}

// The map's kernels re-read what they wrote; the chase's chain stays in L2 between launches.
RunOptions warm() {
  RunOptions options;
  options.cold_l2 = false;
  return options;
}

// What one map row measures: its kernel's launch, each SM's value from a record, and the answers to verify.
struct MapRun {
  std::vector<SmRecord> records;
  std::vector<int> wrong;  // per block
};

// Reports the map: counters, every SM's value as a series, the wrong answers on the label. `value_of` turns a
// block's cycles into the row's quantity.
template <class ValueOf>
void report_map(benchmark::State& state, const MapRun& run, bool lower_is_better, const std::string& what,
                const std::string& series, ValueOf value_of) {
  std::vector<sm_map::SmReading> readings;
  for (std::size_t block = 0; block < run.records.size(); ++block)
    readings.push_back({run.records[block].sm, value_of(static_cast<double>(run.records[block].cycles)),
                        run.wrong.empty() ? 0 : run.wrong[block]});
  const sm_map::Map map = sm_map::make_map(readings, lower_is_better, what, device().sm_count);
  state.counters[lower_is_better ? "latency_median" : "rate_median"] = map.median;
  state.counters["worst_vs_median"] = map.worst_vs_median;
  state.counters["worst_sm"] = map.worst_sm;
  state.counters["sms_measured"] = static_cast<double>(map.readings.size());
  state.counters["wrong_results"] = map.wrong_sms;
  std::vector<double> sms, values;
  for (const sm_map::SmReading& reading : map.readings) {
    sms.push_back(reading.sm);
    values.push_back(reading.value);
  }
  report_series("sms", sms);
  report_series(series, values);
  std::string label = map.wrong_text;
  if (!map.missing.empty()) {  // a block per SM at once, and one SM had none: something else held it
    std::string sms;
    for (std::uint32_t sm : map.missing) sms += (sms.empty() ? "" : ", ") + std::to_string(sm);
    label += (label.empty() ? "" : "; ") + std::string("not measured: SM ") + sms + " (no block of the map ran there)";
  }
  if (!label.empty()) state.SetLabel(label);
  if (!map.wrong_text.empty()) {
    report_wrong_result(map.wrong_text);
  }
}

// One launch of `kernel` on every SM (one block each) outside the timed loop, whose records and answers the map
// reads: the timed launches only time.
template <class Answer, class... Params, class... Args>
MapRun map_launch(void (*kernel)(Params...), int threads, int shared_bytes, DeviceBuffer<SmRecord>& records,
                  DeviceBuffer<Answer>& answers, const std::vector<Answer>& reference, Args... args) {
  const int blocks = device().sm_count;
  kernel<<<blocks, threads, static_cast<std::size_t>(shared_bytes), stream()>>>(args..., Clocks{});
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream()));
  MapRun run;
  run.records = records.download(static_cast<std::size_t>(blocks), stream());
  std::vector<Answer> got = answers.download(answers.size(), stream());
  if (planted().flip_bit && got.size() > 17u * static_cast<std::size_t>(threads)) {
    // Bit 0 of one answer of block 17: the map must call it a wrong result from that block's SM.
    Answer& victim = got[17u * static_cast<std::size_t>(threads) + 5u];
    std::uint32_t bits;
    std::memcpy(&bits, &victim, sizeof bits);
    bits ^= 1u;
    std::memcpy(&victim, &bits, sizeof bits);
  }
  run.wrong = sm_map::wrong_per_block(got, reference);
  return run;
}

struct Buffers {
  DeviceBuffer<SmRecord> records{static_cast<std::size_t>(device().sm_count)};
  DeviceBuffer<float> floats{static_cast<std::size_t>(device().sm_count) * kernels::kSmMapThreads};
  DeviceBuffer<std::uint32_t> words{static_cast<std::size_t>(device().sm_count) * kernels::kSmMapThreads};
};
Buffers& buffers() {
  static ArgCache<Buffers> cache;
  return cache.get({device().sm_count}, [] { return Buffers(); });
}

// One map row: `kernel` on every SM at once, timed; then one more launch whose answers are verified against
// `reference` and whose blocks' spans give each SM's rate: `work` (FLOPs or bytes per block) per clock.
template <class Answer>
void map_row(benchmark::State& state, void (*kernel)(SmRecord*, Answer*, int, Clocks), DeviceBuffer<Answer>& answers,
             const std::vector<Answer>& reference, int iterations, int shared_at_least, double work,
             const std::string& what, const std::string& series) {
  Buffers& b = buffers();
  const int shared = one_block_per_sm(kernel, kernels::kSmMapThreads, shared_at_least);
  const auto busy = busy_if_planted();
  const Launch launch = [&](cudaStream_t s, Clocks clocks) {
    kernel<<<device().sm_count, kernels::kSmMapThreads, static_cast<std::size_t>(shared), s>>>(
        b.records.data(), answers.data(), iterations, clocks);
  };
  run(state, launch, warm());
  const MapRun map = map_launch(kernel, kernels::kSmMapThreads, shared, b.records, answers, reference, b.records.data(),
                                answers.data(), iterations);
  report_map(state, map, false, what, series, [&](double cycles) { return work / cycles; });
}

void fma_row(benchmark::State& state) {
  static const std::vector<float> reference = sm_map::fma_reference(kernels::kSmMapThreads, kFmaIterations);
  const double flops = 2.0 * kernels::kSmMapThreads * kernels::kSmMapChains * kFmaIterations;
  map_row(state, kernels::sm_map_fma, buffers().floats, reference, kFmaIterations, 0, flops, "the FP32 FMA map",
          "flops_per_clock");
}

void shared_row(benchmark::State& state) {
  static const std::vector<std::uint32_t> reference =
      sm_map::shared_reference(kernels::kSmMapThreads, kSharedIterations);
  const double bytes = 16.0 * kernels::kSmMapThreads * kernels::kSmMapLoadsPerStep * kSharedIterations;
  map_row(state, kernels::sm_map_shared, buffers().words, reference, kSharedIterations,
          kernels::kSmMapSharedWords * static_cast<int>(sizeof(uint4)), bytes, "the shared-memory map",
          "bytes_per_clock");
}

void mma_row(benchmark::State& state) {
  static const std::vector<float> reference = sm_map::mma_reference(kernels::kSmMapThreads, kMmaIterations);
  const double flops = 2.0 * 16 * 8 * 16 * (kernels::kSmMapThreads / 32) * kernels::kSmMapMmaChains * kMmaIterations;
  map_row(state, kernels::sm_map_mma, buffers().floats, reference, kMmaIterations, 0, flops, "the mma.sync FP16 map",
          "flops_per_clock");
}

// The chase's lines: a quarter of L2 at most (the chain must stay in L2 with every SM chasing), 4 MiB where L2 is
// 16 MiB or more (H100, H200: the map's calibration), at least 1024 lines.
std::uint32_t chase_nodes() {
  std::uint32_t nodes = kMaxChaseNodes;
  while (nodes > 1024 && static_cast<std::size_t>(nodes) * 128 * 4 > device().l2_bytes) nodes /= 2;
  return nodes;
}

// A random cycle through `nodes` lines (one node per 128 bytes) as word indices, on the host and on the GPU.
struct Chain {
  std::vector<std::uint32_t> next;
  DeviceBuffer<std::uint32_t> on_gpu;
};
Chain make_chain(std::uint32_t nodes) {
  std::vector<std::uint32_t> order(nodes);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937 random(1234);
  std::shuffle(order.begin(), order.end(), random);
  Chain chain{std::vector<std::uint32_t>(static_cast<std::size_t>(nodes) * kernels::kSmMapNodeWords, 0u),
              DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(nodes) * kernels::kSmMapNodeWords)};
  for (std::size_t i = 0; i < order.size(); ++i)
    chain.next[order[i] * kernels::kSmMapNodeWords] = order[(i + 1) % order.size()] * kernels::kSmMapNodeWords;
  chain.on_gpu.upload(chain.next, stream());
  return chain;
}

void l2_latency_row(benchmark::State& state) {
  Buffers& b = buffers();
  const std::uint32_t nodes = chase_nodes();
  static ArgCache<Chain> chains;
  const Chain& chain = chains.get({nodes}, [&] { return make_chain(nodes); });
  const int shared = one_block_per_sm(kernels::sm_map_l2_chase, kChaseThreads);
  const auto busy = busy_if_planted();
  const Launch launch = [&](cudaStream_t s, Clocks clocks) {
    kernels::sm_map_l2_chase<<<device().sm_count, kChaseThreads, static_cast<std::size_t>(shared), s>>>(
        b.records.data(), chain.on_gpu.data(), nodes, kChaseSteps, b.words.data(), clocks);
  };
  run(state, launch, warm());  // the chain stays in L2 between launches
  const int blocks = device().sm_count;
  launch(stream(), Clocks{});  // the map's launch: its ends are verified, its spans read
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream()));
  MapRun map;
  map.records = b.records.download(static_cast<std::size_t>(blocks), stream());
  const std::vector<std::uint32_t> ends = b.words.download(static_cast<std::size_t>(blocks), stream());
  for (int block = 0; block < blocks; ++block) {
    const std::uint32_t start = kernels::sm_map_chase_start(map.records[static_cast<std::size_t>(block)].sm, nodes);
    map.wrong.push_back(ends[static_cast<std::size_t>(block)] != sm_map::chase_end(chain.next, start, kChaseSteps));
  }
  report_map(state, map, true, "the L2 latency map", "cycles_per_load",
             [&](double cycles) { return cycles / kChaseSteps; });
}

// SMs that a cluster placed together share a GPC: clusters of every size from 16 blocks (one per SM) to 2, each
// launched twice, grouped (sm_map::gpc_groups).
void gpc_row(benchmark::State& state) {
  const int shared = one_block_per_sm(kernels::sm_map_cluster_sms, 32);
  const int sm_count = device().sm_count;
  // Every size from 16 down: sizes that do not divide a GPC's SMs leave different SMs out, which joins the
  // leftovers (a GPC of 18 SMs) to their GPC.
  std::vector<unsigned> sizes;
  for (unsigned size = 16; size >= 2; --size)
    if (resident_clusters(kernels::sm_map_cluster_sms, size, 32, shared) > 0) sizes.push_back(size);
  if (sizes.empty()) return skip_benchmark(state, "no cluster of 2 or more blocks, one per SM, fits this GPU");
  const unsigned largest = sizes.front();
  const int largest_count = resident_clusters(kernels::sm_map_cluster_sms, largest, 32, shared);
  DeviceBuffer<std::uint32_t> sms(static_cast<std::size_t>(sm_count));
  const Launch launch = [&](cudaStream_t s, Clocks clocks) {
    launch_clusters(kernels::sm_map_cluster_sms, largest * static_cast<unsigned>(largest_count), 32, shared, largest, s,
                    sms.data(), clocks);
  };
  run(state, launch, warm());
  const std::vector<double> groups = once_per_case([&] {
    std::vector<std::vector<std::uint32_t>> clusters;
    for (unsigned size : sizes) {
      const int count = resident_clusters(kernels::sm_map_cluster_sms, size, 32, shared);
      const unsigned blocks = size * static_cast<unsigned>(count);
      for (int repeat = 0; repeat < 2; ++repeat) {
        launch_clusters(kernels::sm_map_cluster_sms, blocks, 32, shared, size, stream(), sms.data(), Clocks{});
        GPUBENCH_CUDA(cudaStreamSynchronize(stream()));
        const std::vector<std::uint32_t> seen = sms.download(blocks, stream());
        for (unsigned first = 0; first < blocks; first += size)
          clusters.emplace_back(seen.begin() + first, seen.begin() + first + size);
      }
    }
    const std::vector<int> group = sm_map::gpc_groups(clusters, sm_count);
    return std::vector<double>(group.begin(), group.end());
  });
  std::vector<double> sm_ids(static_cast<std::size_t>(sm_count));
  std::iota(sm_ids.begin(), sm_ids.end(), 0.0);
  report_series("sms", sm_ids);
  report_series("gpc", groups);
  state.counters["gpcs"] = *std::max_element(groups.begin(), groups.end()) + 1;
  state.counters["largest_cluster"] = largest;
}

GPUBENCH_FAMILY(SmMap) {
  in_check(family.gpu("SmMap/fma", {}, fma_row));
  in_check(family.gpu("SmMap/shared", {}, shared_row));
  in_check(family.gpu("SmMap/mma", {}, mma_row, needs_sm(80, "mma.sync m16n8k16 FP16")));
  in_check(family.gpu("SmMap/l2_latency", {}, l2_latency_row));
  in_check(family.gpu("SmMap/gpc", {}, gpc_row, needs_sm(90, "thread-block clusters")));
}

GPUBENCH_COUNTERS(
    SmMap,
    {"rate_median", "per clock", CounterKind::kMeasured,
     "the median SM's rate, every SM busy at once (FLOPs or bytes per SM clock: the row's series says which)",
     Better::kHigher, false},
    {"latency_median", "cycles", CounterKind::kMeasured,
     "the median SM's L2 load-to-use latency, every SM chasing at once", Better::kLower, false},
    {"worst_vs_median", "ratio", CounterKind::kMeasured,
     "the worst SM against the median (a rate's lowest / median; a latency's median / highest): 1 is even",
     Better::kHigher, false},
    {"worst_sm", "SM index", CounterKind::kMeasured, "the SM of worst_vs_median (%smid)"},
    {"sms_measured", "SMs", CounterKind::kFixed, "SMs the map measured (a block on each, at once)"},
    {"wrong_results", "SMs", CounterKind::kFixed,
     "SMs whose block gave a wrong answer (verified against the host's): 0 on a sound GPU"},
    {"sms", "SM index", CounterKind::kMeasured, "series: the SM (%smid) of each element of the row's other series"},
    {"flops_per_clock", "FLOP/clk", CounterKind::kMeasured, "series: each SM's FLOPs per SM clock"},
    {"bytes_per_clock", "B/clk", CounterKind::kMeasured, "series: each SM's shared-memory bytes per SM clock"},
    {"cycles_per_load", "cycles", CounterKind::kMeasured, "series: each SM's L2 load-to-use latency"},
    {"gpc", "group", CounterKind::kMeasured,
     "series: each SM's GPC group (SMs seen in one cluster share a GPC; numbered from the lowest SM; -1 unseen)"},
    {"gpcs", "groups", CounterKind::kMeasured, "GPC groups found (the GPU's GPCs, where clusters reached them all)"},
    {"largest_cluster", "blocks", CounterKind::kFixed, "the largest cluster (one block per SM) this GPU holds"});

}  // namespace
}  // namespace gpubench
