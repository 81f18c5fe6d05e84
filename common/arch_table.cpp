#include "common/arch_table.h"

namespace gpubench {

std::optional<ArchThroughput> arch_throughput(int major, int minor) {
  struct Row {
    int major, minor;
    ArchThroughput throughput;
  };
  static constexpr Row kRows[] = {
      // fp32, fp64, int32 mad, fp16 results, sfu
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

double peak_tflops(int fma_per_sm_per_clock, int sm_count, double sm_mhz) {
  return 2.0 * fma_per_sm_per_clock * sm_count * sm_mhz * 1e6 / 1e12;
}

}  // namespace gpubench
