//! Register bank conflicts. The seed's 8x8 register-resident matrix product in three FFMA orders (ptxas
//! schedules them alike), and FFMA throughput with the three source registers placed in chosen banks
//! (one bank, even registers, spread) with no operand reuse, for one warp on one scheduler.
//! docs/experiments/register_bank_conflict.md reads the SASS and the cycles.
#include "common/arg_cache.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/compute/register_banks.cuh"
#include "kernels/compute/register_matmul.cuh"

#include <random>
#include <vector>

namespace gpubench {
namespace {

constexpr int kReps = 256;

struct MatmulBuffers {
  MatmulBuffers()
      : in(kWarpSize * 2 * kernels::kMatmulN * kernels::kMatmulN),
        out(kWarpSize * kernels::kMatmulN * kernels::kMatmulN) {
    std::vector<float> values(in.size());
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> small(-0.01f, 0.01f);  // C stays small over many reps
    for (float& v : values) v = small(rng);
    in.upload(values, stream());
  }
  DeviceBuffer<float> in;
  DeviceBuffer<float> out;
};

template <kernels::MatmulOrder Order>
void matmul(benchmark::State& state) {
  static ArgCache<MatmulBuffers> buffers;
  const int threads = static_cast<int>(arg(state, "threads"));
  MatmulBuffers& b = buffers.get({}, [] { return MatmulBuffers(); });
  const RunResult result =
      run(state,
          [&](cudaStream_t s, Clocks c) {
            kernels::register_matmul<Order><<<1, threads, 0, s>>>(b.in.data(), b.out.data(), kReps, c);
          },
          {{"inst_executed"}});
  report_per(state, result, "fma", static_cast<double>(kReps) * kernels::kMatmulFmas);
}

constexpr int kBankReps = 2048;

// Accumulators and sources in [-0.01, 0.01]: sums of products stay far from overflow and denormals.
struct BankBuffers {
  explicit BankBuffers(int threads)
      : in(static_cast<std::size_t>(threads) * kernels::kBankQuadsPerThread),
        out(static_cast<std::size_t>(threads) * kernels::kBankQuadsPerThread) {
    std::vector<float4> values(in.size());
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> small(-0.01f, 0.01f);
    for (float4& v : values) v = make_float4(small(rng), small(rng), small(rng), small(rng));
    in.upload(values, stream());
  }
  DeviceBuffer<float4> in;
  DeviceBuffer<float4> out;
};

template <int CLane, int ALane, int BLane>
void ffma_banks(benchmark::State& state) {
  static ArgCache<BankBuffers> buffers;
  const int threads = static_cast<int>(arg(state, "threads"));
  BankBuffers& b = buffers.get({threads}, [&] { return BankBuffers(threads); });
  const RunResult result = run(state,
                               [&](cudaStream_t s, Clocks c) {
                                 kernels::ffma_register_banks<CLane, ALane, BLane>
                                     <<<1, threads, 0, s>>>(b.in.data(), b.out.data(), kBankReps, c);
                               },
                               {{"inst_executed"}});
  report_per(state, result, "fma", static_cast<double>(kBankReps) * kernels::kBankFmasPerRep);
}

GPUBENCH_FAMILY(RegisterBankConflict) {
  using kernels::MatmulOrder;
  using Threads = std::vector<std::int64_t>;
  // One warp (one scheduler issues it); the full preset adds one thread and four warps (one per scheduler).
  const Threads matmul_threads = family.pick<Threads>({kWarpSize}, {1, kWarpSize});
  const Threads bank_threads = family.pick<Threads>({kWarpSize}, {kWarpSize, 4 * kWarpSize});
  const auto with_threads = [](Benchmark* rows, const Threads& threads) {
    for (std::int64_t t : threads) add_point(rows, {{"threads", t}});
  };
  with_threads(family.gpu("RegisterBankConflict/IJK", {"threads"}, matmul<MatmulOrder::kIjk>), matmul_threads);
  with_threads(family.gpu("RegisterBankConflict/KIJ", {"threads"}, matmul<MatmulOrder::kKij>), matmul_threads);
  with_threads(family.gpu("RegisterBankConflict/KIJSkewed", {"threads"}, matmul<MatmulOrder::kKijSkewed>),
               matmul_threads);
  // Float4 lanes of (c, a, b): registers 0,0,0 mod 4 (one bank); 0,2,0 (even registers); 0,1,2 (spread).
  with_threads(family.gpu("RegisterBankConflict/ffma_one_bank", {"threads"}, ffma_banks<0, 0, 0>), bank_threads);
  with_threads(family.gpu("RegisterBankConflict/ffma_even_registers", {"threads"}, ffma_banks<0, 2, 0>), bank_threads);
  with_threads(family.gpu("RegisterBankConflict/ffma_spread", {"threads"}, ffma_banks<0, 1, 2>), bank_threads);
}

}  // namespace
}  // namespace gpubench
