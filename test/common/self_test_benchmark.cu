// The registered benchmark both harness self-tests run: a kernel that spins a known number of cycles.
#include "common/gpu_fixture.h"
#include "test/common/self_test_benchmark.h"

namespace gpubench::testing {
namespace {

constexpr long long kSpinCycles = 20000;

__global__ void spin_cycles(long long cycles, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  clocks.end(start);
}

class HarnessSelfTest : public GpuFixture {};

BENCHMARK_DEFINE_F(HarnessSelfTest, Spin)(benchmark::State& state) {
  run(state, [](cudaStream_t s, Clocks c) { spin_cycles<<<1, 32, 0, s>>>(kSpinCycles, c); });
  report_per(state, "spin", 2.0);
}
BENCHMARK_REGISTER_F(HarnessSelfTest, Spin)->Iterations(20);

}  // namespace
}  // namespace gpubench::testing
