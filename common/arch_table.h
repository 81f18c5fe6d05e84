// Per-SM arithmetic throughput by compute capability, from the CUDA C++ Programming Guide's
// "Arithmetic Instructions" throughput table (results per clock cycle per multiprocessor).
#pragma once

#include <optional>

namespace gpubench {

struct ArchThroughput {
  int fp32_fma_per_sm_per_clock;
  int fp64_fma_per_sm_per_clock;
  int int32_mad_per_sm_per_clock;
  int fp16_fma_results_per_sm_per_clock;  // half results (an HFMA2 gives two)
  int sfu_per_sm_per_clock;               // rsqrt, sin, cos, ex2, lg2, rcp
};

std::optional<ArchThroughput> arch_throughput(int major, int minor);

// FMA counts as two flops.
double peak_tflops(int fma_per_sm_per_clock, int sm_count, double sm_mhz);

}  // namespace gpubench
