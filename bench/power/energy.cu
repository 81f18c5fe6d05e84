//! Energy per unit of work: FP16x2, FP32 and FP64 FMA and FP16 tensor-core mma (pJ per FLOP); reads from L1,
//! L2 and DRAM, a DRAM copy and the seed's normalisation (pJ per bit), each with zero and random data. A row
//! is timed as any row, then its launch runs back to back in windows of about a second (NVML's energy
//! counter is coarse), three times after a settling window; the GPU's active-idle power (every SM
//! resident, asleep) is subtracted. Full preset only (each row takes seconds). docs/experiments/energy.md.
#include "bench/compute/tensor_operands.h"
#include "bench/one_block_per_sm.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/dispatch.h"
#include "common/energy.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/apps/normalize.cuh"
#include "kernels/compute/mma_sync.cuh"
#include "kernels/compute/wgmma.cuh"
#include "kernels/memory/cache_bandwidth.cuh"
#include "kernels/memory/stream.cuh"
#include "kernels/power/energy_work.cuh"

#include <algorithm>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace gpubench {
namespace {

constexpr double kWindowSeconds = 1.0;
constexpr double kSettleSeconds = 0.5;
constexpr int kRepeats = 3;
constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;

// Times the launch, then measures its energy per unit (`unit`: "flop" or "bit") over kRepeats windows.
void energy_row(benchmark::State& state, const Launch& launch, double units_per_launch, const std::string& unit,
                const std::vector<std::string>& counters = {}) {
  const std::optional<EnergyBaseline> baseline = energy_baseline();
  if (!baseline) {
    skip_benchmark(state, "no energy readings: NVML is missing from this build or reads no energy on this GPU");
    return;
  }
  const RunResult result = run(state, launch, RunOptions{counters});
  const double launch_seconds = std::max(result.ns * 1e-9, 1e-6);
  // [pJ of each window..., mean power]
  const std::vector<double> measured = once_per_case([&] {
    // The counter trails the board: a first window read up to 20% high after a row that drew more
    // power (H100), so the launch runs a settling window first, not counted.
    (void)energy_of(launch, launch_seconds, kSettleSeconds);
    std::vector<EnergyWindow> windows;
    for (int r = 0; r < kRepeats; ++r)
      if (const auto window = energy_of(launch, launch_seconds, kWindowSeconds)) windows.push_back(*window);
    std::vector<double> values = picojoules_per_unit(windows, units_per_launch, baseline->active_idle_w);
    double watts = 0;
    for (const EnergyWindow& w : windows) watts += w.watts() / static_cast<double>(windows.size());
    values.push_back(watts);
    return values;
  });
  if (measured.size() < 2) throw std::runtime_error("NVML read no energy over the windows");
  std::vector<double> picojoules(measured.begin(), measured.end() - 1);
  std::sort(picojoules.begin(), picojoules.end());
  const double* low = &picojoules.front();
  const double* high = &picojoules.back();
  const std::size_t middle = picojoules.size() / 2;
  state.counters["pj_per_" + unit] =
      picojoules.size() % 2 == 1 ? picojoules[middle] : 0.5 * (picojoules[middle - 1] + picojoules[middle]);
  state.counters["pj_min"] = *low;
  state.counters["pj_max"] = *high;
  state.counters["energy_power_w"] = measured.back();
  state.counters["idle_power_w"] = baseline->idle_w;
  state.counters["active_idle_power_w"] = baseline->active_idle_w;
}

template <class T>
void fma_row(benchmark::State& state) {
  const bool random = arg(state, "operands") != 0;
  const int blocks = device().sm_count * kBlocksPerSm;
  const std::uint32_t reps = sizeof(T) == 8 ? 512 : 2048;  // about a millisecond per launch on an H100
  static ArgCache<DeviceBuffer<T>> outs;
  DeviceBuffer<T>& out =
      outs.get({blocks}, [&] { return DeviceBuffer<T>(static_cast<std::size_t>(blocks) * kThreads); });
  const double fmas = static_cast<double>(blocks) * kThreads * kernels::kEnergyChains * kernels::kEnergyUnroll * reps;
  const double lanes = sizeof(T) == 4 && !std::is_same_v<T, float> ? 2.0 : 1.0;  // HFMA2: two FMAs
  energy_row(
      state,
      [&](cudaStream_t s, Clocks c) { kernels::fma_work<T><<<blocks, kThreads, 0, s>>>(out.data(), reps, random, c); },
      2.0 * lanes * fmas, "flop");
}

// Words of `bytes`, random or zero, that the read, copy and normalisation rows read; as_floats: random
// floats in (-1, 1) (the normalisation computes on them; random words would be NaNs and infinities).
DeviceBuffer<std::uint32_t>& energy_words(std::size_t bytes, bool random, bool as_floats = false) {
  static ArgCache<DeviceBuffer<std::uint32_t>> buffers;
  return buffers.get({static_cast<std::int64_t>(bytes), random, as_floats}, [&] {
    DeviceBuffer<std::uint32_t> made(bytes / 4);
    kernels::fill_energy_words<<<1024, 256, 0, stream()>>>(made.data(), bytes / 4, random, as_floats);
    GPUBENCH_CUDA_LAUNCHED();
    GPUBENCH_CUDA(cudaStreamSynchronize(stream()));
    return made;
  });
}

// Where the copy and normalisation rows write: a cache of its own (an ArgCache holds one entry, so the
// source and the destination cannot share one).
DeviceBuffer<std::uint32_t>& destination_words(std::size_t bytes) {
  static ArgCache<DeviceBuffer<std::uint32_t>> buffers;
  return buffers.get({static_cast<std::int64_t>(bytes)}, [&] {
    DeviceBuffer<std::uint32_t> made(bytes / 4);
    made.fill_bytes(0, stream());
    return made;
  });
}

DeviceBuffer<std::uint32_t>& thread_outputs(int threads) {
  static ArgCache<DeviceBuffer<std::uint32_t>> outs;
  return outs.get({threads}, [&] { return DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(threads)); });
}

// `bytes` read `passes` times per launch in words of `width` bytes (ld.global.cg: L2, or DRAM when the
// set is larger than L2). Widths 4, 8 and 16 move the same bits in 4x, 2x and 1x the load instructions:
// the card's least-squares fit splits the energy per instruction from the energy per bit.
void read_row(benchmark::State& state, std::size_t bytes, std::uint32_t passes) {
  const bool random = arg(state, "operands") != 0;
  const std::int64_t width = arg(state, "width");
  const std::uint32_t* data = energy_words(bytes, random).data();
  const int blocks = device().sm_count * kBlocksPerSm;
  std::uint32_t* out = thread_outputs(blocks * kThreads).data();
  const Launch launch = dispatch<4, 8, 16>(width, [&](auto w) -> Launch {
    using V = std::conditional_t<decltype(w)::value == 4, unsigned,
                                 std::conditional_t<decltype(w)::value == 8, uint2, uint4>>;
    const std::size_t words = bytes / sizeof(V);
    return [=](cudaStream_t s, Clocks c) {
      kernels::read_work<V><<<blocks, kThreads, 0, s>>>(reinterpret_cast<const V*>(data), words, passes, out, c);
    };
  });
  energy_row(state, launch, 8.0 * static_cast<double>(bytes) * passes, "bit");
}

// L1: every block re-reads its own 32 KiB (two blocks of 1024 threads per SM: 64 KiB, inside any
// Volta-or-later L1), CacheBandwidth's kernel.
void l1_read_row(benchmark::State& state) {
  constexpr std::size_t kSliceBytes = 32 << 10;
  constexpr int kReps = 4096;
  const bool random = arg(state, "operands") != 0;
  const int blocks = device().sm_count * 2;
  const std::size_t bytes = kSliceBytes * static_cast<std::size_t>(blocks);
  const auto* data = reinterpret_cast<const float4*>(energy_words(bytes, random).data());
  static ArgCache<DeviceBuffer<float>> partials;
  float* partial =
      partials
          .get({blocks},
               [&] { return DeviceBuffer<float>(static_cast<std::size_t>(blocks) * kernels::kCacheReadThreads); })
          .data();
  const auto slice_vectors = static_cast<unsigned>(kSliceBytes / sizeof(float4));
  energy_row(state,
             [=](cudaStream_t s, Clocks c) {
               kernels::cache_read<false>
                   <<<blocks, kernels::kCacheReadThreads, 0, s>>>(data, slice_vectors, kReps, partial, c);
             },
             8.0 * static_cast<double>(bytes) * kReps, "bit", {"l1_hit_rate"});
}

// DRAM copy (Stream's grid-stride copy of 16-byte elements): bits read plus bits written.
void copy_row(benchmark::State& state) {
  constexpr std::size_t kBytes = std::size_t{1} << 30;
  const bool random = arg(state, "operands") != 0;
  kernels::StreamArrays<float4> arrays{reinterpret_cast<const float4*>(energy_words(kBytes, random).data()), nullptr,
                                       reinterpret_cast<float4*>(destination_words(kBytes).data()), nullptr};
  const int blocks = device().sm_count * kBlocksPerSm;
  energy_row(
      state,
      [=](cudaStream_t s, Clocks c) {
        kernels::stream<kernels::StreamOp::kCopy, float4><<<blocks, kThreads, 0, s>>>(arrays, kBytes / 16, 0.0f, c);
      },
      2.0 * 8.0 * static_cast<double>(kBytes), "bit");
}

// The seed's normalisation (32 floats per vector, 8 lanes each, unrolled by 2: its fastest form on an
// H100) over 1 GiB of random floats: bits read plus bits written.
void normalize_row(benchmark::State& state) {
  constexpr std::size_t kBytes = std::size_t{1} << 30;
  constexpr int kLength = 32;
  const float* in = reinterpret_cast<const float*>(energy_words(kBytes, true, true).data());
  float* out = reinterpret_cast<float*>(destination_words(kBytes).data());
  const std::size_t vectors = kBytes / sizeof(float) / kLength;
  const int blocks = device().sm_count * kBlocksPerSm;
  energy_row(
      state,
      [=](cudaStream_t s, Clocks c) {
        kernels::normalize_grouped<kLength, 8, 2><<<blocks, kThreads, 0, s>>>(in, out, vectors, c);
      },
      2.0 * 8.0 * static_cast<double>(kBytes), "bit");
}

std::string sm_name() { return "sm_" + std::to_string(device().major * 10 + device().minor); }

// Tensor cores, FP16 inputs and FP32 accumulators: mma.sync m16n8k16 (4 chains x 8 warps per SM, as
// TensorCore's quick row) and on Hopper wgmma m64n256k16 from shared memory (2 warpgroups per SM).
// A and B are the same every step (random or zero), the accumulators change.
void mma_row(benchmark::State& state) {
  using Mma = kernels::MmaF16F32;
  constexpr int kChains = 4, kWarps = 8, kReps = 8192;
  const TensorShape shape = Mma::info;
  if (!compiled_here(reinterpret_cast<const void*>(kernels::mma_compiled<Mma>), stream())) {
    skip_benchmark(state, "this build has no mma.sync code for " + sm_name());
    return;
  }
  const Fill fill = arg(state, "operands") != 0 ? Fill::kRandom : Fill::kZero;
  const int blocks = device().sm_count, threads = kWarps * kWarpSize;
  struct Buffers {
    DeviceBuffer<std::uint32_t> a, b, c, out;
  };
  static ArgCache<Buffers> buffers;
  Buffers& b = buffers.get({static_cast<int>(fill), blocks}, [&] {
    std::mt19937 rng(5);
    return Buffers{
        upload_words(mma_a_fragments(shape, make_matrix(shape.m, shape.k, shape.input, fill, rng)), stream()),
        upload_words(mma_b_fragments(shape, make_matrix(shape.k, shape.n, shape.input, fill, rng)), stream()),
        upload_words(mma_c_fragments(shape, Matrix(shape.m, shape.n)), stream()),
        DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(blocks) * threads * kChains * Mma::acc_regs)};
  });
  const auto kernel = kernels::mma_sync_loop<Mma, kChains>;
  const int shared_bytes = one_block_per_sm(kernel, threads);
  using Reg = Mma::Reg;
  using Acc = Mma::Acc;
  const double mmas = static_cast<double>(blocks) * kWarps * kChains * kReps * kernels::kMmaUnroll;
  energy_row(
      state,
      [&](cudaStream_t s, Clocks c) {
        kernel<<<blocks, threads, shared_bytes, s>>>(
            reinterpret_cast<const Reg*>(b.a.data()), reinterpret_cast<const Reg*>(b.b.data()),
            reinterpret_cast<const Acc*>(b.c.data()), reinterpret_cast<Acc*>(b.out.data()), kReps, c);
      },
      mmas * shape.flops(), "flop");
}

void wgmma_row(benchmark::State& state) {
  using Op = kernels::WgmmaF16F32;
  constexpr int kN = 256, kWarpgroups = 2, kGroups = 4096;
  if (!compiled_here(reinterpret_cast<const void*>(kernels::wgmma_compiled<Op>), stream())) {
    skip_benchmark(state, "this build has no wgmma code for sm_90a (configure with 90a-real)");
    return;
  }
  const TensorShape op = Op::info;
  const Fill fill = arg(state, "operands") != 0 ? Fill::kRandom : Fill::kZero;
  const int blocks = device().sm_count, threads = kWarpgroups * kernels::kWgmmaThreads;
  struct Buffers {
    DeviceBuffer<std::uint32_t> a_tile, b_tile, a_frags, c_frags, out;
  };
  static ArgCache<Buffers> buffers;
  Buffers& b = buffers.get({static_cast<int>(fill), blocks}, [&] {
    std::mt19937 rng(5);
    return Buffers{
        upload_words(wgmma_a_tile(op.input, make_matrix(kernels::kWgmmaM, op.k, op.input, fill, rng)), stream()),
        upload_words(wgmma_b_tile(op.input, make_matrix(op.k, kN, op.input, fill, rng)), stream()),
        upload_words(std::vector<std::uint32_t>(4 * kernels::kWgmmaThreads), stream()),
        upload_words(wgmma_c_fragments(op.accumulator, Matrix(kernels::kWgmmaM, kN)), stream()),
        DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(blocks) * threads * (kN / 2))};
  });
  const auto kernel = kernels::wgmma_loop<Op, kN, false, false>;
  const int shared_bytes = one_block_per_sm(kernel, threads);
  using Acc = Op::Acc;
  const double instructions = static_cast<double>(blocks) * kWarpgroups * kGroups * kernels::kWgmmaPerGroup;
  energy_row(
      state,
      [&](cudaStream_t s, Clocks c) {
        kernel<<<blocks, threads, shared_bytes, s>>>(reinterpret_cast<const uint4*>(b.a_tile.data()),
                                                     reinterpret_cast<const uint4*>(b.b_tile.data()), b.a_frags.data(),
                                                     reinterpret_cast<const Acc*>(b.c_frags.data()),
                                                     reinterpret_cast<Acc*>(b.out.data()), kGroups, c);
      },
      instructions * 2.0 * kernels::kWgmmaM * kN * op.k, "flop");
}

GPUBENCH_FAMILY(Energy) {
  if (family.preset() != Preset::kFull) return;  // seconds per row: `--gpubench_preset=full --benchmark_filter=Energy`
  const auto rows = [&](const std::string& name, BenchmarkBody body, Requirement requirement = {}) {
    auto* registered = family.gpu("Energy/" + name, {"operands"}, std::move(body), std::move(requirement));
    for (std::int64_t operands : {0, 1}) add_point(registered, {{"operands", operands}});  // 0: zeros, 1: random
    registered->Iterations(20);
  };
  rows("hfma2", fma_row<__half2>);
  rows("ffma", fma_row<float>);
  rows("dfma", fma_row<double>);
  rows("mma_sync_f16", mma_row, needs_sm(kernels::MmaF16F32::info.min_sm, "mma.sync f16"));
  rows("wgmma_f16", wgmma_row, only_on_sm(90, "wgmma (sm_90a)"));
  rows("l1_read", l1_read_row);
  rows("dram_copy", copy_row);
  add_point(family.gpu("Energy/normalize", {"operands"}, normalize_row), {{"operands", 1}})->Iterations(20);
  // Reads {operands, width}: both contents at 16 bytes, random data at 4 and 8 for the least-squares split.
  const std::size_t l2_set = std::max<std::size_t>(family.chip().l2_bytes / 4, 1 << 20);
  const auto reads = [&](const std::string& name, BenchmarkBody body) {
    auto* registered = family.gpu("Energy/" + name, {"operands", "width"}, std::move(body));
    for (const Point& point : std::vector<Point>{{{"operands", 0}, {"width", 16}},
                                                 {{"operands", 1}, {"width", 16}},
                                                 {{"operands", 1}, {"width", 8}},
                                                 {{"operands", 1}, {"width", 4}}})
      add_point(registered, point);
    registered->Iterations(20);
  };
  reads("l2_read", [l2_set](benchmark::State& state) { read_row(state, l2_set, 64); });
  reads("dram_read", [](benchmark::State& state) { read_row(state, std::size_t{2} << 30, 1); });
}

GPUBENCH_COUNTERS(
    Energy,
    {"pj_per_flop", "pJ", CounterKind::kMeasured,
     "energy per floating-point operation (an FMA is 2) above the active-idle power, median of the windows",
     Better::kLower, false},
    {"pj_per_bit", "pJ", CounterKind::kMeasured,
     "energy per bit moved (read, or read plus written for copies) above the active-idle power, median of the windows",
     Better::kLower, false},
    {"pj_min", "pJ", CounterKind::kMeasured, "the lowest window's pJ per unit"},
    {"pj_max", "pJ", CounterKind::kMeasured, "the highest window's pJ per unit"},
    {"energy_power_w", "W", CounterKind::kMeasured,
     "board power over the energy windows (the launch back to back, about 1 s each)"},
    {"idle_power_w", "W", CounterKind::kMeasured, "board power with nothing launched (1 s)"},
    {"active_idle_power_w", "W", CounterKind::kMeasured,
     "board power with a block asleep on every SM (1 s): the baseline subtracted"});

}  // namespace
}  // namespace gpubench
