#include "common/chip_shape.h"

#include <cuda_runtime_api.h>

#include <algorithm>

namespace gpubench {
namespace {

constexpr std::int64_t KiB = 1024, MiB = KiB * KiB, GiB = KiB * MiB;

// The largest power of two not above `bytes` (at least 1).
std::int64_t power_of_two_floor(std::int64_t bytes) {
  std::int64_t p = 1;
  while (p * 2 <= bytes) p *= 2;
  return p;
}

std::int64_t power_of_two_ceil(std::int64_t bytes) {
  std::int64_t p = 1;
  while (p < bytes) p *= 2;
  return p;
}

std::int64_t round_down(std::int64_t bytes, std::int64_t grain) { return std::max(grain, bytes / grain * grain); }

std::vector<std::int64_t> sorted_unique(std::vector<std::int64_t> sets) {
  std::sort(sets.begin(), sets.end());
  sets.erase(std::unique(sets.begin(), sets.end()), sets.end());
  return sets;
}

}  // namespace

ChipShape default_chip_shape() { return ChipShape{132, 256 * KiB, 228 * KiB, 50 * MiB, false, 9, 0}; }

std::size_t unified_l1_bytes(int major, int minor, std::size_t shared_max_bytes) {
  struct Row {
    int major, minor, kib;
  };
  static constexpr Row kRows[] = {{7, 0, 128}, {7, 2, 128}, {7, 5, 96},   {8, 0, 192},  {8, 6, 128},  {8, 7, 192},
                                  {8, 9, 128}, {9, 0, 256}, {10, 0, 256}, {10, 3, 256}, {12, 0, 128}, {12, 1, 128}};
  for (const Row& row : kRows)
    if (row.major == major && row.minor == minor) return static_cast<std::size_t>(row.kib) * KiB;
  return shared_max_bytes + 28 * KiB;
}

ChipShape chip_shape(int device) {
  auto attribute = [device](cudaDeviceAttr what, int& value) {
    return cudaDeviceGetAttribute(&value, what, device) == cudaSuccess;
  };
  int sms = 0, l2 = 0, shared = 0, major = 0, minor = 0;
  if (!attribute(cudaDevAttrMultiProcessorCount, sms) || !attribute(cudaDevAttrL2CacheSize, l2) ||
      !attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, shared) ||
      !attribute(cudaDevAttrComputeCapabilityMajor, major) || !attribute(cudaDevAttrComputeCapabilityMinor, minor) ||
      sms <= 0 || l2 <= 0 || shared <= 0) {
    cudaGetLastError();  // a machine without a GPU: nothing pending for the run
    return default_chip_shape();
  }
  const auto shared_max = static_cast<std::size_t>(shared);
  return ChipShape{
      sms, unified_l1_bytes(major, minor, shared_max), shared_max, static_cast<std::size_t>(l2), true, major, minor};
}

std::size_t l1_bytes_at_carveout(const ChipShape& shape, int carveout_percent) {
  const std::size_t shared =
      shape.shared_max_bytes * static_cast<std::size_t>(std::clamp(carveout_percent, 0, 100)) / 100;
  return shape.l1_shared_bytes - std::min(shared, shape.l1_shared_bytes);
}

std::vector<std::int64_t> l1_edge_sets(const ChipShape& shape) {
  const auto l1 = static_cast<std::int64_t>(shape.l1_shared_bytes);
  const std::int64_t grain = 4 * KiB;
  return sorted_unique({round_down(l1 / 16, grain), round_down(l1 / 4, grain), round_down(l1 / 2, grain),
                        round_down(l1 * 3 / 4, grain), round_down(l1, grain), round_down(l1 * 3 / 2, grain)});
}

std::vector<std::int64_t> l2_edge_sets(const ChipShape& shape) {
  const auto l1 = static_cast<std::int64_t>(shape.l1_shared_bytes);
  const auto l2 = static_cast<std::int64_t>(shape.l2_bytes);
  const std::int64_t grain = power_of_two_floor(std::max<std::int64_t>(l2 / 32, 64 * KiB));
  std::vector<std::int64_t> sets = {4 * l1, 16 * l1};  // inside L2, past L1
  // Below, at and past the near partition's half (L2/2) and the whole L2; on a chip with one
  // partition the whole-L2 edge is the one they find.
  for (const auto& [num, den] : {std::pair{1, 4}, {1, 3}, {12, 25}, {16, 25}, {4, 5}, {24, 25}, {32, 25}})
    sets.push_back(round_down(l2 * num / den, grain));
  sets.push_back(power_of_two_ceil(4 * l2));                  // DRAM
  sets.push_back(std::max(GiB, power_of_two_ceil(16 * l2)));  // DRAM, and TLB misses with it
  return sorted_unique(sets);
}

std::vector<std::int64_t> sets_below(std::int64_t capacity_bytes) {
  const std::int64_t grain = std::max<std::int64_t>(4 * KiB, power_of_two_floor(capacity_bytes / 8));
  const std::int64_t top = (capacity_bytes + grain - 1) / grain * grain;
  return sorted_unique(
      {round_down(top * 5 / 8, grain), round_down(top * 3 / 4, grain), round_down(top * 7 / 8, grain), top});
}

std::int64_t far_l2_set(const ChipShape& shape) {
  const auto l2 = static_cast<std::int64_t>(shape.l2_bytes);
  return round_down(l2 * 4 / 5, power_of_two_floor(std::max<std::int64_t>(l2 / 32, 64 * KiB)));
}

}  // namespace gpubench
