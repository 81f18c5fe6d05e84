//! Register bank conflicts: an 8x8 register-resident matrix product in three FFMA orders, for one
//! thread and one warp. Cycles per FFMA separate latency-bound (i,j,k) from throughput-bound
//! (k,i,j); docs/experiments/register_bank_conflict.md reads the SASS for why they land where they do.
#include "common/arg_cache.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/compute/register_matmul.cuh"

#include <random>
#include <vector>

namespace gpubench {
namespace {

constexpr int kReps = 256;

struct MatmulBuffers {
  MatmulBuffers() : in(kWarpSize * 2 * kernels::kMatmulN * kernels::kMatmulN),
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
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) {
    kernels::register_matmul<Order><<<1, threads, 0, s>>>(b.in.data(), b.out.data(), kReps, c);
  }, {{"inst_executed"}});
  report_per(state, result, "fma", static_cast<double>(kReps) * kernels::kMatmulFmas);
}

GPUBENCH_FAMILY(RegisterBankConflict) {
  using kernels::MatmulOrder;
  family.gpu("RegisterBankConflict/IJK", {"threads"}, matmul<MatmulOrder::kIjk>)->Arg(1)->Arg(kWarpSize);
  family.gpu("RegisterBankConflict/KIJ", {"threads"}, matmul<MatmulOrder::kKij>)->Arg(1)->Arg(kWarpSize);
  family.gpu("RegisterBankConflict/KIJSkewed", {"threads"}, matmul<MatmulOrder::kKijSkewed>)->Arg(1)->Arg(kWarpSize);
}

}  // namespace
}  // namespace gpubench
