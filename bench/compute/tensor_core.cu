//! Tensor cores. mma.sync per precision: latency of one warp's dependent accumulator chain and
//! throughput of independent accumulators over warps per SM. wgmma (sm_90a) per precision and N, A
//! from shared memory or registers: latency (wait for each) and throughput over warpgroups per SM.
//! Zero or random operands. One block on every SM; rates in ops/clk/SM, TOPS and fraction of the
//! architecture table's peak at the measured clock. docs/experiments/tensor_core.md.
#include "bench/block_fit.h"
#include "bench/compute/tensor_operands.h"
#include "bench/one_block_per_sm.h"
#include "common/arch_table.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/dispatch.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/compute/mma_sync.cuh"
#include "kernels/compute/wgmma.cuh"

#include <algorithm>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {
namespace {

std::string sm_name(int major, int minor) { return "sm_" + std::to_string(major * 10 + minor); }

std::optional<TensorRate> peak_rate(TensorInput input, int major, int minor) {
  const auto peaks = tensor_peaks(major, minor);
  if (!peaks) return std::nullopt;
  TensorRate rate{};
  switch (input) {
    case TensorInput::kF16: rate = peaks->f16; break;
    case TensorInput::kBF16: rate = peaks->bf16; break;
    case TensorInput::kTF32: rate = peaks->tf32; break;
    case TensorInput::kE4M3:
    case TensorInput::kE5M2: rate = peaks->fp8; break;
    case TensorInput::kS8: rate = peaks->int8; break;
    case TensorInput::kF64: rate = peaks->fp64; break;
  }
  if (rate.fma_per_sm_per_clock == 0) return std::nullopt;
  return rate;
}

std::vector<std::string> tensor_counters(TensorInput input) {
  const char* ops = "tensor_ops_f16";
  switch (input) {
    case TensorInput::kF16: ops = "tensor_ops_f16"; break;
    case TensorInput::kBF16: ops = "tensor_ops_bf16"; break;
    case TensorInput::kTF32: ops = "tensor_ops_tf32"; break;
    case TensorInput::kE4M3:
    case TensorInput::kE5M2: ops = "tensor_ops_fp8"; break;
    case TensorInput::kS8: ops = "tensor_ops_s8"; break;
    case TensorInput::kF64: ops = "tensor_ops_f64"; break;
  }
  return {"tensor_inst_executed", "tensor_pipe_utilization", ops};
}

// An instruction PTX accepts but the GPU runs as something else: timing it would not be the tensor core's.
std::optional<std::string> emulated_reason(const TensorShape& shape, int major) {
  const bool fp8 = shape.input == TensorInput::kE4M3 || shape.input == TensorInput::kE5M2;
  if (fp8 && major == 9)
    return std::string(
               "Hopper has no FP8 mma.sync: ptxas converts the operands to FP16 (F2FP) and issues two "
               "HMMA.16816 per mma (docs/experiments/tensor_core.md); Hopper's FP8 is wgmma, TensorCore/wgmma_") +
           shape.name + "_ss";
  return std::nullopt;
}

std::string not_compiled(const char* what, const DeviceInfo& gpu) {
  return std::string(what) + ": this build has no code for it on " + sm_name(gpu.major, gpu.minor) +
         " (configure with CMAKE_CUDA_ARCHITECTURES for this GPU" + (gpu.major == 9 ? ", 90a-real" : "") + ")";
}

// Multiply-adds x 2 per clock per SM (block 0's clock span; one block per SM), over the GPU, and as a
// fraction of the architecture's dense peak for the input precision at the measured clock.
void report_rate(benchmark::State& state, const RunResult& result, double ops_per_sm, TensorInput input) {
  const DeviceInfo& gpu = device();
  const double per_clock = ops_per_sm / result.cycles;
  state.counters["tensor_ops_per_clock_per_sm"] = per_clock;
  state.counters["tensor_tops"] = per_clock * gpu.sm_count * result.sm_mhz * 1e6 / 1e12;
  if (const auto rate = peak_rate(input, gpu.major, gpu.minor))
    state.counters["fraction_of_peak"] = per_clock / (2.0 * rate->fma_per_sm_per_clock);
}

Fill fill_of(benchmark::State& state) { return arg(state, "operands") != 0 ? Fill::kRandom : Fill::kZero; }

DeviceBuffer<std::uint32_t> upload(const std::vector<std::uint32_t>& words) { return upload_words(words, stream()); }

// --- mma.sync ------------------------------------------------------------------------------------

struct MmaBuffers {
  MmaBuffers(const TensorShape& shape, Fill fill, std::size_t out_words) : out(out_words) {
    std::mt19937 rng(5);
    const Matrix a = make_matrix(shape.m, shape.k, shape.input, fill, rng);
    const Matrix b = make_matrix(shape.k, shape.n, shape.input, fill, rng);
    a_frags = upload(mma_a_fragments(shape, a));
    b_frags = upload(mma_b_fragments(shape, b));
    c_frags = upload(mma_c_fragments(shape, Matrix(shape.m, shape.n)));
  }
  DeviceBuffer<std::uint32_t> a_frags, b_frags, c_frags;
  DeviceBuffer<std::uint32_t> out;
};

template <class Mma>
void mma_sync_row(benchmark::State& state) {
  const TensorShape shape = Mma::info;
  const int chains = static_cast<int>(arg(state, "chains"));
  const int warps = static_cast<int>(arg(state, "warps"));
  const Fill fill = fill_of(state);
  const DeviceInfo& gpu = device();
  if (!compiled_here(reinterpret_cast<const void*>(kernels::mma_compiled<Mma>), stream())) {
    skip_benchmark(state, not_compiled("mma.sync", gpu));
    return;
  }
  const int blocks = gpu.sm_count;  // one block per SM
  const int threads = warps * kWarpSize;
  // About a millisecond per launch: fewer steps where more mma are in flight.
  const int reps = std::max(128, 8192 / std::max(1, warps * chains / 4));
  static ArgCache<MmaBuffers> buffers;
  const std::size_t out_words = static_cast<std::size_t>(blocks) * threads * chains * Mma::acc_regs *
                                sizeof(typename Mma::Acc) / sizeof(std::uint32_t);
  MmaBuffers& b =
      buffers.get({chains, warps, static_cast<int>(fill)}, [&] { return MmaBuffers(shape, fill, out_words); });
  using Reg = typename Mma::Reg;
  using Acc = typename Mma::Acc;
  const std::optional<RunResult> result =
      dispatch<1, 2, 4, 8>(chains, [&](auto chain_count) -> std::optional<RunResult> {
        const auto kernel = kernels::mma_sync_loop<Mma, decltype(chain_count)::value>;
        if (const auto why = does_not_fit(kernel, threads,
                                          std::to_string(warps) + " warps of " + std::to_string(chains) + " chains")) {
          skip_benchmark(state, *why);
          return std::nullopt;
        }
        const int shared_bytes = one_block_per_sm(kernel, threads);
        return run(
            state,
            [&](cudaStream_t s, Clocks c) {
              kernel<<<blocks, threads, shared_bytes, s>>>(
                  reinterpret_cast<const Reg*>(b.a_frags.data()), reinterpret_cast<const Reg*>(b.b_frags.data()),
                  reinterpret_cast<const Acc*>(b.c_frags.data()), reinterpret_cast<Acc*>(b.out.data()), reps, c);
            },
            tensor_counters(shape.input));
      });
  if (!result) return;
  const double steps = static_cast<double>(reps) * kernels::kMmaUnroll;
  // One warp's one chain is the latency row: its fastest launch. Rows of more mma in flight are rates: the mean.
  const RunResult reported = chains == 1 && warps == 1 ? fastest_launch(*result) : *result;
  report_per(state, reported, "mma", steps);  // per step of one chain: the latency when chains = 1
  report_rate(state, reported, steps * chains * warps * shape.flops(), shape.input);
}

// --- wgmma ---------------------------------------------------------------------------------------

struct WgmmaBuffers {
  WgmmaBuffers(const TensorShape& shape, int n, Fill fill, std::size_t out_words) : out(out_words) {
    std::mt19937 rng(5);
    const Matrix a = make_matrix(kernels::kWgmmaM, shape.k, shape.input, fill, rng);
    const Matrix b = make_matrix(shape.k, n, shape.input, fill, rng);
    a_tile = upload(wgmma_a_tile(shape.input, a));
    b_tile = upload(wgmma_b_tile(shape.input, b));
    // A from registers exists for 16-bit inputs only here; other rows never read these.
    a_frags = upload(kernels::input_bytes(shape.input) == 2 ? wgmma_a_fragments(shape, a)
                                                            : std::vector<std::uint32_t>(4 * kernels::kWgmmaThreads));
    c_frags = upload(wgmma_c_fragments(shape.accumulator, Matrix(kernels::kWgmmaM, n)));
  }
  DeviceBuffer<std::uint32_t> a_tile, b_tile, a_frags, c_frags;
  DeviceBuffer<std::uint32_t> out;
};

template <class Op, bool RegisterA, int... Ns>
void wgmma_row(benchmark::State& state, bool latency) {
  const TensorShape op = Op::info;
  const int n = static_cast<int>(arg(state, "n"));
  const int warpgroups = latency ? 1 : static_cast<int>(arg(state, "warpgroups"));
  const Fill fill = latency ? Fill::kRandom : fill_of(state);
  const DeviceInfo& gpu = device();
  if (!compiled_here(reinterpret_cast<const void*>(kernels::wgmma_compiled<Op>), stream())) {
    skip_benchmark(state, not_compiled("wgmma", gpu));
    return;
  }
  const int blocks = gpu.sm_count;
  const int threads = warpgroups * kernels::kWgmmaThreads;
  // About a millisecond per launch at the peak (64 x N x K per instruction; small N run below it).
  const int groups = latency ? 4096 : std::clamp((1 << 24) / (warpgroups * n * op.k), 64, 16384);
  const int per_group = latency ? 1 : kernels::kWgmmaPerGroup;
  using Acc = typename Op::Acc;
  dispatch<Ns...>(n, [&](auto n_constant) {
    constexpr int N = decltype(n_constant)::value;
    const auto kernel =
        latency ? kernels::wgmma_loop<Op, N, RegisterA, true> : kernels::wgmma_loop<Op, N, RegisterA, false>;
    if (const auto why =
            does_not_fit(kernel, threads, std::to_string(warpgroups) + " warpgroups at N = " + std::to_string(N))) {
      skip_benchmark(state, *why);
      return;
    }
    const int shared_bytes = one_block_per_sm(kernel, threads);
    static ArgCache<WgmmaBuffers> buffers;
    const std::size_t out_words = static_cast<std::size_t>(blocks) * threads * (N / 2);
    WgmmaBuffers& b =
        buffers.get({N, warpgroups, static_cast<int>(fill)}, [&] { return WgmmaBuffers(op, N, fill, out_words); });
    const RunResult result = run(
        state,
        [&](cudaStream_t s, Clocks c) {
          kernel<<<blocks, threads, shared_bytes, s>>>(reinterpret_cast<const uint4*>(b.a_tile.data()),
                                                       reinterpret_cast<const uint4*>(b.b_tile.data()),
                                                       b.a_frags.data(), reinterpret_cast<const Acc*>(b.c_frags.data()),
                                                       reinterpret_cast<Acc*>(b.out.data()), groups, c);
        },
        tensor_counters(op.input));
    const double instructions = static_cast<double>(groups) * per_group;
    // Per instruction of one warpgroup; a latency row's from its fastest launch.
    const RunResult reported = latency ? fastest_launch(result) : result;
    report_per(state, reported, "wgmma", instructions);
    report_rate(state, reported, instructions * warpgroups * 2.0 * kernels::kWgmmaM * N * op.k, op.input);
  });
}

using Points = std::vector<Point>;

// The two families of rows, their axes by name.
Point mma_point(std::int64_t chains, std::int64_t warps, std::int64_t operands) {
  return {{"chains", chains}, {"warps", warps}, {"operands", operands}};
}
Point wgmma_point(std::int64_t n, std::int64_t warpgroups, std::int64_t operands) {
  return {{"n", n}, {"warpgroups", warpgroups}, {"operands", operands}};
}

// mma.sync of a shape: the architecture has it, and runs it on the tensor cores.
Requirement mma_requirement(const TensorShape& shape) {
  Requirement has = needs_sm(shape.min_sm, std::string("mma.sync ") + shape.name);
  if (const std::optional<std::string> emulated = emulated_reason(shape, 9))
    return both(has, not_on_major(9, *emulated));
  return has;
}

GPUBENCH_FAMILY(TensorCore) {
  // mma.sync: {chains, warps per SM, operands (1 random, 0 zero)}. The latency row is one warp's chain.
  const Points mma_full = [] {
    Points rows{mma_point(1, 1, 1)};
    for (std::int64_t chains : {1, 2, 4, 8})
      for (std::int64_t warps : {4, 8, 16, 32}) rows.push_back(mma_point(chains, warps, 1));
    return rows;
  }();
  kernels::MmaInstructions::for_each([&](auto instruction) {
    using Mma = decltype(instruction);
    // Quick: the latency row and 4 chains x 8 warps (within 0.5% of the best full-sweep cell of every
    // precision on an H100); FP16 also with zero operands.
    Points rows = family.pick<Points>({mma_point(1, 1, 1), mma_point(4, 8, 1)}, mma_full);
    if (std::string(Mma::info.name) == "f16_f32") rows.push_back(mma_point(4, 8, 0));
    auto* registered = family.gpu(std::string("TensorCore/mma_sync_") + Mma::info.name, {"chains", "warps", "operands"},
                                  mma_sync_row<Mma>, mma_requirement(Mma::info));
    string_axis(registered, "precision", Mma::info.name);
    // The node check: FP16 at the quick throughput point.
    const bool checked = std::string(Mma::info.name) == "f16_f32";
    for (const Point& row : rows)
      add_point(registered, row, checked && row == mma_point(4, 8, 1) ? Check::kToo : Check::kNo);
  });

  // wgmma: latency rows {n}; throughput rows {n, warpgroups per SM, operands}. Hopper's only (sm_90a).
  const Requirement hopper = only_on_sm(90, "wgmma (sm_90a)");
  const auto wgmma = [&](const std::string& label, auto row, const std::vector<std::int64_t>& all_n,
                         const std::vector<std::int64_t>& quick_latency_n, const Points& quick_rows, bool zeros_too) {
    auto* latency = family.gpu(
        "TensorCore/wgmma_latency_" + label, {"n"}, [row](benchmark::State& state) { row(state, true); }, hopper);
    // "f16_f32_ss": f16 inputs, f32 accumulators, A from shared memory ("rs": from registers).
    const std::string precision = label.substr(0, label.size() - 3);
    const std::string a_from = label.substr(label.size() - 2) == "rs" ? "registers" : "shared memory";
    string_axis(string_axis(latency, "precision", precision), "a_from", a_from);
    for (std::int64_t n : family.pick(quick_latency_n, all_n)) add_point(latency, {{"n", n}});
    Points full;
    for (std::int64_t n : all_n)
      for (std::int64_t warpgroups : {1, 2, 4})
        for (std::int64_t operands : {1, 0})
          if (operands == 1 || zeros_too) full.push_back(wgmma_point(n, warpgroups, operands));
    auto* throughput = family.gpu(
        "TensorCore/wgmma_" + label, {"n", "warpgroups", "operands"},
        [row](benchmark::State& state) { row(state, false); }, hopper);
    string_axis(string_axis(throughput, "precision", precision), "a_from", a_from);
    for (const Point& point : family.pick(quick_rows, full))  // the node check: FP16 at N=256
      add_point(throughput, point, label == "f16_f32_ss" && point == wgmma_point(256, 2, 1) ? Check::kToo : Check::kNo);
  };
  using namespace kernels;
  const auto row_of = [](auto op, auto register_a, auto... ns) {
    return [](benchmark::State& state, bool latency) {
      wgmma_row<decltype(op), decltype(register_a)::value, decltype(ns)::value...>(state, latency);
    };
  };
  using std::integral_constant;
  using False = std::false_type;
  using True = std::true_type;
  wgmma("f16_f32_ss",
        row_of(WgmmaF16F32{}, False{}, integral_constant<int, 8>{}, integral_constant<int, 16>{},
               integral_constant<int, 32>{}, integral_constant<int, 64>{}, integral_constant<int, 128>{},
               integral_constant<int, 256>{}),
        {8, 16, 32, 64, 128, 256}, {8, 16, 32, 64, 128, 256},
        {wgmma_point(8, 2, 1), wgmma_point(16, 2, 1), wgmma_point(32, 2, 1), wgmma_point(64, 2, 1),
         wgmma_point(128, 2, 1), wgmma_point(256, 2, 1), wgmma_point(256, 2, 0)},
        true);
  wgmma("f16_f32_rs",
        row_of(WgmmaF16F32{}, True{}, integral_constant<int, 64>{}, integral_constant<int, 128>{},
               integral_constant<int, 256>{}),
        {64, 128, 256}, {256}, {wgmma_point(256, 2, 1)}, false);
  const auto two = [&](const std::string& label, auto op, bool zeros_too) {
    Points quick{wgmma_point(256, 2, 1)};
    if (zeros_too) quick.push_back(wgmma_point(256, 2, 0));
    wgmma(label, row_of(op, False{}, integral_constant<int, 64>{}, integral_constant<int, 256>{}), {64, 256}, {256},
          quick, zeros_too);
  };
  two("bf16_f32_ss", WgmmaBf16F32{}, false);
  two("tf32_f32_ss", WgmmaTf32F32{}, false);
  two("e4m3_f32_ss", WgmmaE4m3F32{}, true);
  two("e5m2_f32_ss", WgmmaE5m2F32{}, false);
  two("s8_s32_ss", WgmmaS8S32{}, false);
}

GPUBENCH_COUNTERS(TensorCore,
                  {"tensor_ops_per_clock_per_sm", "ops/clk/SM", CounterKind::kMeasured,
                   "multiply-adds x 2 per SM clock per SM (FLOPs; integer ops for INT8), block 0's clock span",
                   Better::kHigher},
                  {"tensor_tops", "T ops/s", CounterKind::kMeasured,
                   "tensor_ops_per_clock_per_sm over every SM at the measured clock, in 1e12 (TFLOP/s, TOP/s for INT8)",
                   Better::kHigher});

}  // namespace
}  // namespace gpubench
