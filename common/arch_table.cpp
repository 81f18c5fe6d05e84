#include "common/arch_table.h"

namespace gpubench {

std::optional<ArchThroughput> arch_throughput(int major, int minor) {
  struct Row {
    int major, minor;
    ArchThroughput throughput;
  };
  static constexpr Row kRows[] = {
      // fp32, fp64, int32 mad, fp16 results, sfu
      {7, 0, {64, 32, 64, 128, 16}},    // V100
      {7, 5, {64, 2, 64, 128, 16}},     // Turing
      {8, 0, {64, 32, 64, 256, 16}},    // A100
      {8, 6, {128, 2, 64, 256, 16}},    // GA10x
      {8, 7, {128, 2, 64, 256, 16}},    // Orin
      {8, 9, {128, 2, 64, 256, 16}},    // Ada
      {9, 0, {128, 64, 64, 256, 16}},   // Hopper
      {10, 0, {128, 64, 64, 256, 16}},  // Blackwell datacenter
      {12, 0, {128, 2, 64, 256, 16}},   // Blackwell consumer
  };
  for (const Row& row : kRows)
    if (row.major == major && row.minor == minor) return row.throughput;
  return std::nullopt;
}

std::optional<TensorPeaks> tensor_peaks(int major, int minor) {
  struct Row {
    int major, minor;
    TensorPeaks peaks;
  };
  // {FMA/clk/SM, published dense TFLOPS, MHz}: f16, bf16, tf32, fp8, int8, fp64.
  static const Row kRows[] = {
      {7,
       0,
       {{512, 125.0, 1530},
        {},
        {},
        {},
        {},
        {},
        "Tesla V100 SXM2",
        80,
        "NVIDIA Tesla V100 GPU Architecture whitepaper (2017)"}},
      {7, 5, {{512, 65.0, 1590}, {}, {}, {}, {1024, 130.0, 1590}, {}, "Tesla T4", 40, "NVIDIA T4 datasheet (2019)"}},
      {8,
       0,
       {{1024, 312.0, 1410},
        {1024, 312.0, 1410},
        {512, 156.0, 1410},
        {},
        {2048, 624.0, 1410},
        {64, 19.5, 1410},
        "A100 SXM4",
        108,
        "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), table 1"}},
      // GA10x professional parts; GeForce boards run FP16/BF16 with FP32 accumulate at half this rate.
      {8,
       6,
       {{512, 154.8, 1800},
        {512, 154.8, 1800},
        {256, 77.4, 1800},
        {},
        {1024, 309.7, 1800},
        {},
        "RTX A6000",
        84,
        "NVIDIA Ampere GA102 GPU Architecture whitepaper (2021), RTX A6000 column"}},
      // Ada professional parts (GeForce: FP16/BF16 with FP32 accumulate at half this rate); the figures
      // imply 2490 MHz at 142 SMs.
      {8,
       9,
       {{512, 362.05, 2490},
        {512, 362.05, 2490},
        {256, 183.0, 2490},
        {1024, 733.0, 2490},
        {1024, 733.0, 2490},
        {},
        "L40S",
        142,
        "NVIDIA L40S datasheet (2023), dense figures"}},
      // The tensor figures assume 1830 MHz, the FP64 ones 1980 MHz (the whitepaper's own arithmetic).
      {9,
       0,
       {{2048, 989.4, 1830},
        {2048, 989.4, 1830},
        {1024, 494.7, 1830},
        {4096, 1978.9, 1830},
        {4096, 1978.9, 1830},
        {128, 66.9, 1980},
        "H100 SXM5",
        132,
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), table 3"}},
  };
  for (const Row& row : kRows)
    if (row.major == major && row.minor == minor) return row.peaks;
  return std::nullopt;
}

double peak_tflops(int fma_per_sm_per_clock, int sm_count, double sm_mhz) {
  return 2.0 * fma_per_sm_per_clock * sm_count * sm_mhz * 1e6 / 1e12;
}

}  // namespace gpubench
