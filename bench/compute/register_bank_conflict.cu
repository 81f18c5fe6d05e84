//! Register bank conflicts: an 8x8 register-resident matrix product in three FFMA orders, for one
//! thread and one warp. Cycles per FFMA separate latency-bound (i,j,k) from throughput-bound
//! (k,i,j); docs/experiments/register_bank_conflict.md reads the SASS for why they land where they do.
#include "common/arg_cache.h"
#include "common/device_memory.h"
#include "common/gpu_fixture.h"
#include "kernels/compute/register_matmul.cuh"

#include <random>
#include <vector>

namespace gpubench {
namespace {

constexpr int kReps = 256;
constexpr int kMaxThreads = 32;

struct MatmulBuffers {
  MatmulBuffers() : in(kMaxThreads * 2 * kernels::kMatmulN * kernels::kMatmulN),
                    out(kMaxThreads * kernels::kMatmulN * kernels::kMatmulN) {
    std::vector<float> values(in.size());
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> small(-0.01f, 0.01f);  // C stays small over many reps
    for (float& v : values) v = small(rng);
    in.upload(values);
  }
  DeviceBuffer<float> in;
  DeviceBuffer<float> out;
};

class RegisterBankConflict : public GpuFixture {
 public:
  RegisterBankConflict() { set_default_counters({"inst_executed"}); }

 protected:
  template <kernels::MatmulOrder Order>
  void measure(benchmark::State& state) {
    const int threads = static_cast<int>(state.range(0));
    MatmulBuffers& b = buffers_.get({}, [] { return MatmulBuffers(); });
    run(state, [&](cudaStream_t s, Clocks c) {
      kernels::register_matmul<Order><<<1, threads, 0, s>>>(b.in.data(), b.out.data(), kReps, c);
    });
    report_per(state, "fma", static_cast<double>(kReps) * kernels::kMatmulFmas);
  }
  ArgCache<MatmulBuffers> buffers_;
};

BENCHMARK_DEFINE_F(RegisterBankConflict, IJK)(benchmark::State& state) { measure<kernels::MatmulOrder::kIjk>(state); }
BENCHMARK_DEFINE_F(RegisterBankConflict, KIJ)(benchmark::State& state) { measure<kernels::MatmulOrder::kKij>(state); }
BENCHMARK_DEFINE_F(RegisterBankConflict, KIJSkewed)(benchmark::State& state) {
  measure<kernels::MatmulOrder::kKijSkewed>(state);
}
BENCHMARK_REGISTER_F(RegisterBankConflict, IJK)->ArgName("threads")->Arg(1)->Arg(32);
BENCHMARK_REGISTER_F(RegisterBankConflict, KIJ)->ArgName("threads")->Arg(1)->Arg(32);
BENCHMARK_REGISTER_F(RegisterBankConflict, KIJSkewed)->ArgName("threads")->Arg(1)->Arg(32);

}  // namespace
}  // namespace gpubench
