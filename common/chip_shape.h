// The sizes that decide where a cache sweep's edges fall: the SM count, one SM's unified L1/shared
// array, the most of it shared memory can take, and the L2. Families place their quick-preset points
// from these, so the card finds its edges on any NVIDIA GPU, not only on the two it was tuned on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpubench {

struct ChipShape {
  int sm_count = 0;
  std::size_t l1_shared_bytes = 0;   // one SM's unified L1 / shared-memory array
  std::size_t shared_max_bytes = 0;  // the most of it a SM gives to shared memory
  std::size_t l2_bytes = 0;
  bool from_device = false;  // false: no GPU answered, the defaults below
  int major = 9, minor = 0;  // compute capability: which instructions and units rows may use
  int sm() const { return major * 10 + minor; }
};

// An H100 SXM5's (132 SMs, 256 KiB L1/shared of which up to 228 KiB shared, 50 MiB L2): what
// listing and registration use on a machine without a GPU.
ChipShape default_chip_shape();
// GPU `device`'s shape from its attributes (no context is created, the current GPU is unchanged);
// the defaults when it does not answer.
ChipShape chip_shape(int device);
// The unified L1/shared array per SM by compute capability (CUDA C++ Programming Guide, "Compute
// Capabilities"); for an architecture the table lacks, the largest shared carveout plus 28 KiB
// (what sm_80 and sm_90 keep for L1 at the largest carveout).
std::size_t unified_l1_bytes(int major, int minor, std::size_t shared_max_bytes);

// The L1 capacity a preferred shared-memory carveout (percent of shared_max) leaves.
std::size_t l1_bytes_at_carveout(const ChipShape& shape, int carveout_percent);

// Working sets (bytes, ascending, no repeats) that straddle the cache edges of a latency or
// bandwidth sweep: inside L1 and past it; in L2 and past its near partition (half of it on chips
// with two) and its whole size; DRAM.
std::vector<std::int64_t> l1_edge_sets(const ChipShape& shape);
std::vector<std::int64_t> l2_edge_sets(const ChipShape& shape);
// Four sets up to an expected L1 capacity, the last at it (the measured edge sits below it).
std::vector<std::int64_t> sets_below(std::int64_t capacity_bytes);
// A set inside the far-L2 plateau of a chip with two L2 partitions (80% of L2), for the full sweep.
std::int64_t far_l2_set(const ChipShape& shape);

}  // namespace gpubench
