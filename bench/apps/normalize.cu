//! Normalize (the seed course homework): subtract each short vector's mean. A thread per vector, or a
//! group of G lanes per vector summed by shuffles, unrolled by U vectors, over a warps-per-block sweep
//! with one block per SM. Instructions per element, L2 traffic against the ideal, and how busy the
//! FP32 pipe, instruction issue, L2 and DRAM were (CUPTI) say why each version is as fast as it is.
#include "bench/block_fit.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/dispatch.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/apps/normalize.cuh"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace gpubench {
namespace {

struct Vectors {
  explicit Vectors(std::size_t floats) : in(floats), out(floats) {
    std::vector<float> values(floats);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& v : values) v = uniform(rng);
    in.upload(values, stream());
    out.fill_bytes(0, stream());
  }
  DeviceBuffer<float> in;
  DeviceBuffer<float> out;
};

// A kernel's launch, and why a block of it with the threads asked cannot run (its registers), if it cannot.
struct NormalizeLaunch {
  Launch launch;
  std::optional<std::string> does_not_fit;
};

std::string warps_text(unsigned threads) { return std::to_string(threads / kWarpSize) + " warps of this kernel"; }

// The launch for (dl, g, u); g = 0 is the thread-per-vector base kernel.
NormalizeLaunch normalize_launch(int dl, int g, int u, unsigned blocks, unsigned threads, const Vectors& v,
                                 std::size_t n) {
  return dispatch<4, 8, 16, 32>(dl, [&](auto d) -> NormalizeLaunch {
    constexpr int DL = decltype(d)::value;
    if (g == 0)
      return {[&v, n, blocks, threads](cudaStream_t s, Clocks c) {
                kernels::normalize_base<DL><<<blocks, threads, 0, s>>>(v.in.data(), v.out.data(), n, c);
              },
              does_not_fit(kernels::normalize_base<DL>, static_cast<int>(threads), warps_text(threads))};
    return dispatch<1, 2, 4, 8, 16, 32>(g, [&](auto group) -> NormalizeLaunch {
      constexpr int G = decltype(group)::value;
      constexpr int kLength = decltype(d)::value;  // (a lambda cannot use the enclosing one's constexpr)
      if constexpr (G > kLength) {
        throw std::invalid_argument("group size above the vector length");
      } else {
        return dispatch<1, 2, 4>(u, [&](auto unroll) -> NormalizeLaunch {
          constexpr int U = decltype(unroll)::value;
          const auto kernel = kernels::normalize_grouped<kLength, G, U>;
          return {[&v, n, blocks, threads, kernel](cudaStream_t s, Clocks c) {
                    kernel<<<blocks, threads, 0, s>>>(v.in.data(), v.out.data(), n, c);
                  },
                  does_not_fit(kernel, static_cast<int>(threads), warps_text(threads))};
        });
      }
    });
  });
}

// args: dl, g (0: base), u, warps per block, input as a percentage of L2.
void normalize(benchmark::State& state, bool grouped) {
  static ArgCache<Vectors> vectors;
  const int dl = static_cast<int>(arg(state, "dl"));
  const int g = grouped ? static_cast<int>(arg(state, "g")) : 0;
  const int u = grouped ? static_cast<int>(arg(state, "u")) : 1;
  const int warps = static_cast<int>(arg(state, "warps"));
  const std::int64_t l2_percent = arg(state, "l2_pct");
  const std::size_t n = device().l2_bytes * static_cast<std::size_t>(l2_percent) / 100 / (sizeof(float) * dl);
  const std::size_t floats = n * static_cast<std::size_t>(dl);
  Vectors& v = vectors.get({static_cast<std::int64_t>(floats)}, [&] { return Vectors(floats); });
  const unsigned blocks = static_cast<unsigned>(device().sm_count);  // one block per SM, as the homework
  const unsigned threads = static_cast<unsigned>(warps * kWarpSize);

  RunOptions options{{"thread_inst_executed", "l2_read_bytes", "l2_write_bytes", "dram_read_bytes", "dram_write_bytes",
                      "fp32_pipe_utilization", "issue_utilization", "l2_utilization", "dram_utilization"}};
  const double bytes = static_cast<double>(floats) * sizeof(float);
  options.ideal_traffic = IdealTraffic{static_cast<double>(floats), bytes, bytes};
  const NormalizeLaunch launch = normalize_launch(dl, g, u, blocks, threads, v, n);
  if (launch.does_not_fit) return skip_benchmark(state, *launch.does_not_fit);
  const RunResult result = run(state, launch.launch, options);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * bytes));
  const auto per_second = [&](const char* a, const char* b) {
    const auto x = result.counter(a), y = result.counter(b);
    return benchmark::Counter((x.value_or(0) + y.value_or(0)) * static_cast<double>(state.iterations()),
                              benchmark::Counter::kIsRate);
  };
  if (result.counter("l2_read_bytes"))
    state.counters["l2_bytes_per_second"] = per_second("l2_read_bytes", "l2_write_bytes");
  if (result.counter("dram_read_bytes"))
    state.counters["dram_bytes_per_second"] = per_second("dram_read_bytes", "dram_write_bytes");
  state.counters["vectors"] = static_cast<double>(n);
}

GPUBENCH_FAMILY(Normalize) {
  using Points = std::vector<std::int64_t>;
  const bool quick = family.preset() != Preset::kFull;
  const Points warps = {1, 2, 4, 8, 16, 32};
  const Points sizes = family.pick<Points>({25}, {25, 400});  // a quarter of L2 (in and out fit), and 4x L2
  auto* base =
      family.gpu("Normalize/base", {"dl", "warps", "l2_pct"}, [](benchmark::State& state) { normalize(state, false); });
  auto* grouped = family.gpu("Normalize/grouped", {"dl", "g", "u", "warps", "l2_pct"},
                             [](benchmark::State& state) { normalize(state, true); });
  for (std::int64_t dl : family.pick<Points>({8}, {4, 8, 16, 32})) {
    for (std::int64_t size : sizes) {
      for (std::int64_t w : warps) add_point(base, {{"dl", dl}, {"warps", w}, {"l2_pct", size}});
      for (std::int64_t g : quick ? Points{8} : Points{1, 4, dl})
        if (g <= dl && (g != 4 || dl != 4 || quick))
          for (std::int64_t u : {1, 2, 4})
            for (std::int64_t w : warps)
              add_point(grouped, {{"dl", dl}, {"g", g}, {"u", u}, {"warps", w}, {"l2_pct", size}});
    }
  }
}

GPUBENCH_COUNTERS(Normalize, {"vectors", "vectors", CounterKind::kFixed, "vectors the launch normalizes"},
                  {"l2_bytes_per_second", "B/s", CounterKind::kMeasured,
                   "L2 traffic (l2_read_bytes + l2_write_bytes) per second of GPU time"},
                  {"dram_bytes_per_second", "B/s", CounterKind::kMeasured,
                   "DRAM traffic (dram_read_bytes + dram_write_bytes) per second of GPU time"});

}  // namespace
}  // namespace gpubench
