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

// Dense tensor-core rates by input precision: multiply-adds per clock per SM (0: no such instruction),
// with the published figure each reproduces (dense TFLOPS, TOPS for INT8) at the SM count and clock the
// document assumed, so "fraction of peak" means the same on every GPU of the architecture: gpubench
// applies the per-SM rate at the clock it measured. FP16 and BF16 with FP32 accumulate.
struct TensorRate {
  int fma_per_sm_per_clock;
  double published_tflops;
  double published_mhz;  // the clock the figure assumes (H100: 1830 MHz for the tensor figures)
};
struct TensorPeaks {
  TensorRate f16, bf16, tf32, fp8, int8, fp64;
  const char* gpu;  // the part the figures are for
  int sm_count;
  const char* source;
};
std::optional<TensorPeaks> tensor_peaks(int major, int minor);

// FMA counts as two flops.
double peak_tflops(int fma_per_sm_per_clock, int sm_count, double sm_mhz);

}  // namespace gpubench
