// Every normalisation kernel against the host: out = in - mean(vector) for every (d_l, g, u), on sizes
// that leave a partial last step (the unrolled step does not divide the vector count).
#include "common/device_memory.h"
#include "common/dispatch.h"
#include "kernels/apps/normalize.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace gpubench {
namespace {

std::vector<float> host_normalize(const std::vector<float>& in, int dl) {
  std::vector<float> out(in.size());
  for (std::size_t h = 0; h < in.size() / static_cast<std::size_t>(dl); ++h) {
    double sum = 0.0;
    for (int i = 0; i < dl; ++i) sum += in[h * dl + i];
    for (int i = 0; i < dl; ++i) out[h * dl + i] = static_cast<float>(in[h * dl + i] - sum / dl);
  }
  return out;
}

void expect_normalized(const std::vector<float>& got, const std::vector<float>& in, int dl, const std::string& what) {
  const std::vector<float> want = host_normalize(in, dl);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) ASSERT_NEAR(got[k], want[k], 1e-5f) << what << ", element " << k;
}

std::vector<float> random_input(std::size_t floats) {
  std::vector<float> in(floats);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& v : in) v = uniform(rng);
  return in;
}

constexpr std::size_t kVectors = 1001;  // no grid, group or unroll step divides it

TEST(NormalizeKernel, BaseMatchesTheHost) {
  GPUBENCH_REQUIRE_GPU();
  for (int dl : {4, 8, 16, 32}) {
    const std::vector<float> in = random_input(kVectors * dl);
    DeviceBuffer<float> d_in(in.size()), d_out(in.size());
    d_in.upload(in);
    d_out.fill_bytes(0xFF);  // poisoned: every element must be written
    dispatch<4, 8, 16, 32>(dl, [&](auto d) {
      kernels::normalize_base<decltype(d)::value><<<3, 64>>>(d_in.data(), d_out.data(), kVectors, Clocks{});
    });
    GPUBENCH_CUDA_LAUNCHED();
    expect_normalized(d_out.download(), in, dl, "base d_l " + std::to_string(dl));
  }
}

TEST(NormalizeKernel, GroupedAndUnrolledMatchTheHost) {
  GPUBENCH_REQUIRE_GPU();
  for (int dl : {4, 8, 16, 32}) {
    const std::vector<float> in = random_input(kVectors * dl);
    DeviceBuffer<float> d_in(in.size()), d_out(in.size());
    d_in.upload(in);
    for (int g : {1, 2, 4, 8, 16, 32}) {
      if (g > dl) continue;
      for (int u : {1, 2, 4}) {
        d_out.fill_bytes(0xFF);
        dispatch<4, 8, 16, 32>(dl, [&](auto d) {
          dispatch<1, 2, 4, 8, 16, 32>(g, [&](auto group) {
            constexpr int kLength = decltype(d)::value;
            if constexpr (decltype(group)::value <= kLength) {
              dispatch<1, 2, 4>(u, [&](auto unroll) {
                kernels::normalize_grouped<decltype(d)::value, decltype(group)::value, decltype(unroll)::value>
                    <<<3, 64>>>(d_in.data(), d_out.data(), kVectors, Clocks{});
              });
            }
          });
        });
        GPUBENCH_CUDA_LAUNCHED();
        expect_normalized(d_out.download(), in, dl,
                          "d_l " + std::to_string(dl) + " g " + std::to_string(g) + " u " + std::to_string(u));
      }
    }
  }
}

}  // namespace
}  // namespace gpubench
