//! Asynchronous copies into shared memory. Latency, pinned to SM 0 like the load-to-use chases: a
//! chase whose every step is one TMA tile load (cp.async.bulk.tensor through a tensor map, or the 1-D
//! cp.async.bulk) completing on an mbarrier, then the shared load of the next tile's index; the same
//! step with nothing copied (mbarrier arrive, wait, shared load); plain ld.global.cg of the same lines
//! (indexed, and load-to-use); cp.async of 4/8/16 bytes (.ca, .cg) beside a load and store through
//! registers. From L2 (set warmed from SM 0) and DRAM (1 GiB). Bandwidth: TMA tiles by size and
//! stages in flight per SM (one block per SM), cp.async against loads and stores.
//! docs/experiments/async_copy.md.
#include "bench/memory/bandwidth.h"
#include "bench/memory/chase/device_chain.cuh"
#include "bench/memory/chase/pinned.h"
#include "bench/memory/tensor_map.h"
#include "bench/one_block_per_sm.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/chip_shape.h"
#include "common/counter_catalog.h"
#include "common/dispatch.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/memory/async_copy.cuh"
#include "kernels/memory/pointer_chase.cuh"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {
namespace {

using kernels::CopyVia;
using kernels::TmaStep;

constexpr std::uint32_t kTmaSteps = 1024;  // a TMA step costs several hundred cycles
constexpr std::uint32_t kTmaWarmup = 256;
constexpr std::uint32_t kCopySteps = 4096;
constexpr std::uint32_t kCopyWarmup = 1024;
constexpr std::int64_t kLine = kernels::kTmaRowBytes;
constexpr std::int64_t KiB = 1024, MiB = KiB * KiB, GiB = KiB * MiB;
constexpr std::int64_t kDramSet = GiB;
constexpr int kCopyThreads = 256;

bool fits_in_free_memory(benchmark::State& state, std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUBENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes + (64u << 20) <= free_bytes) return true;
  skip_benchmark(state, "a set of " + std::to_string(bytes >> 20) + " MiB does not fit the " +
                            std::to_string(free_bytes >> 20) + " MiB of free device memory");
  return false;
}

// Sets L2 holds whole: walked once from SM 0 when built, and again before the counters' launch.
bool warmed(std::size_t bytes) { return bytes <= device().l2_bytes / 2; }

// The latency rows' chains, several kept at once (the TMA, bulk and plain-load rows walk the same
// ones), a DRAM-sized one at most: the next one replaces it.
class ChainShelf {
 public:
  DeviceChain& get(std::size_t bytes, std::size_t stride, std::size_t index_bytes) {
    const std::vector<std::size_t> key{bytes, stride, index_bytes};
    auto found = chains_.find(key);
    if (found != chains_.end()) return *found->second;
    if (bytes > device().l2_bytes)
      for (auto it = chains_.begin(); it != chains_.end();)
        it = it->first[0] > device().l2_bytes ? chains_.erase(it) : std::next(it);
    auto made = std::make_unique<DeviceChain>(bytes, stride, index_bytes, 1, stream());
    return *chains_.emplace(key, std::move(made)).first->second;
  }

 private:
  std::map<std::vector<std::size_t>, std::unique_ptr<DeviceChain>> chains_;
};

ChainShelf& chains() {
  static ArgCache<ChainShelf> shelf;  // released with the session
  return shelf.get({0}, [] { return ChainShelf(); });
}

// Times `launch(stream, clocks, position, warmup, steps)` pinned to SM 0, walking on from the chain's
// position; a set L2 holds is walked whole first (and before the counters' launch). Then a walk of
// its own from place 0 must end where the host says (no check when the chain is nullptr).
using ChaseLaunch = std::function<void(cudaStream_t, Clocks, std::uint32_t*, std::uint32_t, std::uint32_t)>;

void time_chase(benchmark::State& state, DeviceChain* chain, std::size_t bytes, const ChaseLaunch& launch,
                std::uint32_t warmup, std::uint32_t steps, const std::string& unit) {
  static ArgCache<DeviceBuffer<std::uint32_t>> spare;  // the position of a chase with no chain
  std::uint32_t* position =
      chain ? chain->position() : spare.get({0}, [] { return DeviceBuffer<std::uint32_t>(2); }).data();
  RunOptions options{{"l2_hit_rate", "dram_read_bytes"}};
  options.profile_warm = true;
  if (chain && warmed(bytes)) {
    const auto nodes = static_cast<std::uint32_t>(chain->host().nodes);
    options.rewarm = [&, nodes](cudaStream_t s) { launch(s, Clocks{}, position, nodes, 0); };
    options.rewarm(stream());
    finish_launched(stream());
  }
  const RunResult result = run(
      state, [&](cudaStream_t s, Clocks c) { launch(s, c, position, warmup, steps); }, options);
  report_per(state, result, unit, steps);
  if (chain == nullptr) return;
  DeviceBuffer<std::uint32_t> check = chain->position_at(0);
  launch(stream(), Clocks{}, check.data(), warmup, steps);
  finish_launched(stream());
  chain->expect_walked(check, 0, warmup + steps);
  state.counters["sm"] = static_cast<double>(check.download(stream())[1]) - 1.0;  // the SM asked for, read back
}

// The bandwidth rows' source: one buffer, whatever the row (its contents do not matter to the timing).
DeviceBuffer<char>& stream_source(std::size_t bytes) {
  static ArgCache<DeviceBuffer<char>> sources;
  return sources.get({static_cast<std::int64_t>(bytes)}, [&] {
    DeviceBuffer<char> made(bytes);
    made.fill_bytes(1, stream());
    return made;
  });
}

// --- TMA ---------------------------------------------------------------------------------------

std::uint32_t checked_tile(std::int64_t tile) {
  if (tile < kLine || tile % kLine != 0 || tile > 256 * kLine)
    throw std::invalid_argument("a tile is 1 to 256 rows of 128 bytes; " + std::to_string(tile) + " bytes is not");
  return static_cast<std::uint32_t>(tile);
}

template <TmaStep Step>
void tma_latency(benchmark::State& state) {
  constexpr bool kCopies = Step != TmaStep::kBarrierOnly;
  const std::size_t bytes = kCopies ? static_cast<std::size_t>(arg(state, "bytes")) : 4 * KiB;
  const std::uint32_t tile = kCopies ? checked_tile(arg(state, "tile")) : kLine;
  if (!fits_in_free_memory(state, bytes)) return;
  DeviceChain& chain = chains().get(bytes, tile, tile);  // node-indexed: a node's word is the next tile
  const CUtensorMap map = row_tile_map(chain.words(), bytes / kLine, tile / kLine);
  const auto base = reinterpret_cast<const char*>(chain.words());
  unsigned long long* claim = chase_claim();
  const ChaseLaunch launch = [&, tile](cudaStream_t s, Clocks c, std::uint32_t* position, std::uint32_t warmup,
                                       std::uint32_t steps) {
    kernels::tma_chase<Step><<<pinned_blocks(), 1, tile + 128, s>>>(map, base, tile, tile / kLine, position, warmup,
                                                                    steps, c, 0, claim, next_launch_id());
  };
  time_chase(state, kCopies ? &chain : nullptr, bytes, launch, kTmaWarmup, kTmaSteps, "load");
}

// The plain load of the same lines: ld.global.cg (L2, as the TMA), one 128-byte node per step.
void load_latency(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  if (!fits_in_free_memory(state, bytes)) return;
  DeviceChain& chain = chains().get(bytes, kLine, kLine);
  unsigned long long* claim = chase_claim();
  const ChaseLaunch launch = [&](cudaStream_t s, Clocks c, std::uint32_t* position, std::uint32_t warmup,
                                 std::uint32_t steps) {
    kernels::pointer_chase<kernels::LoadPath::kL2Only, kLine>
        <<<pinned_blocks(), 1, 0, s>>>(chain.words(), position, warmup, steps, c, 0, claim, next_launch_id());
  };
  time_chase(state, &chain, bytes, launch, kCopyWarmup, kCopySteps, "load");
}

// Load-to-use (`p = *p`, ld.global.cg): the same cycle order and stride laid out as addresses, so a
// step is the load alone, without the index-to-address arithmetic the indexed chase above pays.
void load_to_use_latency(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  if (!fits_in_free_memory(state, bytes)) return;
  static ArgCache<DirectChain> direct_chains;
  DirectChain& chain = direct_chains.get({arg(state, "bytes")}, [&] { return DirectChain(bytes, kLine, stream()); });
  constexpr auto kernel = kernels::pointer_chase_direct<kernels::LoadPath::kL2Only>;
  const auto walk = [&](cudaStream_t s, std::uint64_t* position, std::uint32_t warmup, std::uint32_t steps, Clocks c) {
    kernel<<<pinned_blocks(), 1, 0, s>>>(position, warmup, steps, c, 0, next_launch_id());
  };
  RunOptions options{{"l2_hit_rate", "dram_read_bytes"}};
  options.profile_warm = true;
  if (warmed(bytes)) {
    const auto nodes = static_cast<std::uint32_t>(chain.host().nodes);
    options.rewarm = [&, nodes](cudaStream_t s) { walk(s, chain.position(), nodes, 0, Clocks{}); };
    options.rewarm(stream());
    finish_launched(stream());
  }
  const RunResult result = run(
      state, [&](cudaStream_t s, Clocks c) { walk(s, chain.position(), kCopyWarmup, kCopySteps, c); }, options);
  report_per(state, result, "load", kCopySteps);
  DeviceBuffer<std::uint64_t> check = chain.position_at(0);
  walk(stream(), check.data(), kCopyWarmup, kCopySteps, Clocks{});
  finish_launched(stream());
  chain.expect_walked(check, 0, kCopyWarmup + kCopySteps);
  state.counters["sm"] = static_cast<double>(check.download(stream())[2]) - 1.0;
}

void tma_bandwidth(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  const std::uint32_t tile = checked_tile(arg(state, "tile"));
  const auto stages = static_cast<std::uint32_t>(arg(state, "stages"));
  if (stages < 1 || stages > static_cast<std::uint32_t>(kernels::kMaxTmaStages))
    throw std::invalid_argument("stages: 1 to " + std::to_string(kernels::kMaxTmaStages));
  const int shared_needed = static_cast<int>(stages * tile + 128);
  if (static_cast<std::size_t>(shared_needed) > device().shared_memory_per_block_optin_bytes) {
    skip_benchmark(state, std::to_string(stages) + " stages of " + std::to_string(tile >> 10) +
                              " KiB exceed a block's shared memory here");
    return;
  }
  if (!fits_in_free_memory(state, bytes)) return;
  DeviceBuffer<char>& source = stream_source(bytes);
  const CUtensorMap map = row_tile_map(source.data(), bytes / kLine, tile / kLine);
  const auto tiles = static_cast<std::uint32_t>(bytes / tile);
  const int shared_bytes = one_block_per_sm(kernels::tma_stream, 32, shared_needed);
  const int blocks = device().sm_count;
  // About a millisecond per launch: DRAM-sized sets once, L2-sized ones many times.
  const std::uint32_t passes =
      warmed(bytes) ? static_cast<std::uint32_t>(std::max<std::size_t>(1, (8 * GiB) / bytes / 8)) : 1;
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) {
    kernels::tma_stream<<<blocks, 32, shared_bytes, s>>>(map, tiles, tile / kLine, stages, passes, nullptr, c);
  });
  report_bandwidth(state, result, static_cast<double>(tiles) * tile * passes, !warmed(bytes));
  state.counters["bytes_in_flight"] = static_cast<double>(stages) * tile;  // per SM
  state.counters["reps"] = passes;
}

// --- cp.async ----------------------------------------------------------------------------------

template <CopyVia Via, int Width>
void copy_latency_row(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  if (!fits_in_free_memory(state, bytes)) return;
  DeviceChain& chain = chains().get(bytes, kLine, 4);  // word-indexed
  unsigned long long* claim = chase_claim();
  const ChaseLaunch launch = [&](cudaStream_t s, Clocks c, std::uint32_t* position, std::uint32_t warmup,
                                 std::uint32_t steps) {
    kernels::copy_chase<Via, Width>
        <<<pinned_blocks(), 1, 0, s>>>(chain.words(), position, warmup, steps, c, 0, claim, next_launch_id());
  };
  time_chase(state, &chain, bytes, launch, kCopyWarmup, kCopySteps, "copy");
}

template <CopyVia Via, int Width>
void copy_bandwidth_row(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  if (!fits_in_free_memory(state, bytes)) return;
  DeviceBuffer<char>& source = stream_source(bytes);
  const auto kernel = kernels::copy_stream<Via, Width>;
  const int shared_bytes = kernels::kCopyStages * kCopyThreads * Width;
  int blocks_per_sm = 0;
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kCopyThreads, shared_bytes));
  const int blocks = device().sm_count * std::max(1, blocks_per_sm);
  const std::uint32_t passes =
      warmed(bytes) ? static_cast<std::uint32_t>(std::max<std::size_t>(1, (8 * GiB) / bytes / 8)) : 1;
  const std::size_t moved = bytes / (kCopyThreads * Width) * (kCopyThreads * Width) * passes;
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) {
    kernel<<<blocks, kCopyThreads, shared_bytes, s>>>(source.data(), bytes, passes, nullptr, c);
  });
  report_bandwidth(state, result, static_cast<double>(moved), !warmed(bytes));
  state.counters["blocks"] = blocks;
  state.counters["reps"] = passes;
}

using Points = std::vector<Point>;

// The rows' axes by name.
Point bytes_width(std::int64_t bytes, std::int64_t width) { return {{"bytes", bytes}, {"width", width}}; }
Point bytes_tile(std::int64_t bytes, std::int64_t tile) { return {{"bytes", bytes}, {"tile", tile}}; }
Point bytes_tile_stages(std::int64_t bytes, std::int64_t tile, std::int64_t stages) {
  return {{"bytes", bytes}, {"tile", tile}, {"stages", stages}};
}

// Rows of one copy path: bytes and width, for the widths it has.
template <CopyVia Via, int... Widths>
void copy_rows(const Family& family, const std::string& path, const Points& latency, const Points& bandwidth) {
  const bool cp_async = Via == CopyVia::kCpAsyncCa || Via == CopyVia::kCpAsyncCg;
  const Requirement requirement = cp_async ? needs_sm(80, "cp.async") : Requirement{};
  const auto by_width = [](auto row) {
    return [row](benchmark::State& state) {
      dispatch<Widths...>(static_cast<int>(arg(state, "width")), [&](auto width) { row(state, width); });
    };
  };
  auto* l = family.gpu("AsyncCopy/copy_latency_" + path, {"bytes", "width"},
                       by_width([](benchmark::State& s, auto w) { copy_latency_row<Via, decltype(w)::value>(s); }),
                       requirement);
  for (const Point& point : latency) add_point(l, point);
  auto* b = family.gpu("AsyncCopy/copy_bandwidth_" + path, {"bytes", "width"},
                       by_width([](benchmark::State& s, auto w) { copy_bandwidth_row<Via, decltype(w)::value>(s); }),
                       requirement);
  for (const Point& point : bandwidth) add_point(b, point);
}

GPUBENCH_FAMILY(AsyncCopy) {
  const ChipShape& chip = family.chip();
  // An L2 set inside the near partition (as PointerChase/direct_l2's), an L1 set, DRAM, and an L2
  // set for bandwidth that spreads over every slice yet stays in L2.
  const std::int64_t near_l2 = std::min<std::int64_t>(2 * MiB, static_cast<std::int64_t>(chip.l2_bytes) / 4);
  const std::int64_t l1_set = 16 * KiB;
  const std::int64_t l2_stream = static_cast<std::int64_t>(chip.l2_bytes) / 2 / MiB * MiB;

  auto* load = family.gpu("AsyncCopy/load_latency", {"bytes"}, load_latency);
  for (std::int64_t bytes : {near_l2, kDramSet}) add_point(load, {{"bytes", bytes}});
  auto* load_to_use = family.gpu("AsyncCopy/load_to_use_latency", {"bytes"}, load_to_use_latency);
  for (std::int64_t bytes : {near_l2, kDramSet}) add_point(load_to_use, {{"bytes", bytes}});
  const Requirement needs_tma = needs_sm(90, "the tensor memory accelerator (cp.async.bulk, mbarrier transactions)");
  family.gpu("AsyncCopy/mbarrier_latency", {}, tma_latency<TmaStep::kBarrierOnly>, needs_tma);
  // Quick: a line from L2 and from DRAM, and 1, 8 and 32 KiB tiles from L2 (the cost per byte).
  const Points tma_quick{bytes_tile(near_l2, 128), bytes_tile(kDramSet, 128), bytes_tile(near_l2, 1024),
                         bytes_tile(near_l2, 8192), bytes_tile(near_l2, 32768)};
  Points tma_full;
  for (std::int64_t bytes : {near_l2, kDramSet})
    for (std::int64_t tile = 128; tile <= 32768; tile *= 2) tma_full.push_back(bytes_tile(bytes, tile));
  auto* tma = family.gpu("AsyncCopy/tma_latency", {"bytes", "tile"}, tma_latency<TmaStep::kTensor>, needs_tma);
  for (const Point& point : family.pick(tma_quick, tma_full)) add_point(tma, point);
  auto* bulk = family.gpu("AsyncCopy/bulk_latency", {"bytes", "tile"}, tma_latency<TmaStep::kBulk>, needs_tma);
  for (const Point& point : family.pick(Points{bytes_tile(near_l2, 128), bytes_tile(kDramSet, 128)}, tma_full))
    add_point(bulk, point);

  // Bytes in flight per SM = tile x stages (one block per SM).
  const Points stream_quick{bytes_tile_stages(kDramSet, 1024, 4), bytes_tile_stages(kDramSet, 8192, 4),
                            bytes_tile_stages(kDramSet, 32768, 4), bytes_tile_stages(l2_stream, 8192, 4)};
  Points stream_full;
  for (std::int64_t bytes : {l2_stream, kDramSet})
    for (std::int64_t tile : {1024, 4096, 8192, 16384, 32768})
      for (std::int64_t stages : {1, 2, 4, 6}) stream_full.push_back(bytes_tile_stages(bytes, tile, stages));
  auto* tma_stream = family.gpu("AsyncCopy/tma_bandwidth", {"bytes", "tile", "stages"}, tma_bandwidth, needs_tma);
  for (const Point& point : family.pick(stream_quick, stream_full)) add_point(tma_stream, point);

  // cp.async and the load/store it replaces: {bytes, width}. Quick: 16 bytes from L1 (.ca) and L2,
  // 4 bytes from L2 (.ca), bandwidth of 16 bytes from DRAM; full: every width from L1, L2 and DRAM.
  const auto sets = [&](std::vector<std::int64_t> widths, std::vector<std::int64_t> from) {
    Points rows;
    for (std::int64_t bytes : from)
      for (std::int64_t width : widths) rows.push_back(bytes_width(bytes, width));
    return rows;
  };
  const std::vector<std::int64_t> widths{4, 8, 16};
  const Points ca_latency =
      family.pick(Points{bytes_width(l1_set, 16), bytes_width(near_l2, 4), bytes_width(near_l2, 16)},
                  sets(widths, {l1_set, near_l2, kDramSet}));
  const Points ca_bandwidth = family.pick(Points{bytes_width(kDramSet, 16)}, sets(widths, {l2_stream, kDramSet}));
  const Points cg_latency = family.pick(Points{bytes_width(near_l2, 16)}, sets({16}, {l1_set, near_l2, kDramSet}));
  const Points cg_bandwidth = family.pick(Points{bytes_width(kDramSet, 16)}, sets({16}, {l2_stream, kDramSet}));
  copy_rows<CopyVia::kLoadStoreCa, 4, 8, 16>(family, "ld_st_ca", ca_latency, ca_bandwidth);
  copy_rows<CopyVia::kCpAsyncCa, 4, 8, 16>(family, "cp_async_ca", ca_latency, ca_bandwidth);
  copy_rows<CopyVia::kLoadStoreCg, 4, 8, 16>(family, "ld_st_cg", cg_latency, cg_bandwidth);
  copy_rows<CopyVia::kCpAsyncCg, 16>(family, "cp_async_cg", cg_latency, cg_bandwidth);
}

}  // namespace
}  // namespace gpubench
