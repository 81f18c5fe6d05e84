// The host side of the per-SM map: the answers every block must give (computed here, the same way the kernels
// do), which blocks gave another, each SM's value, and the SM groups that share a GPC. Plain C++: the CPU tests
// plant wrong answers and slow SMs in it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench::sm_map {

// Each thread's answer (the same for every block): the FMA chains' sum, the shared loads' sum, the tile's sum.
std::vector<float> fma_reference(int threads, int iterations);
std::vector<std::uint32_t> shared_reference(int threads, int iterations);
std::vector<float> mma_reference(int threads, int iterations);
// Where a chase of `steps` through `next` from word `start` ends.
std::uint32_t chase_end(const std::vector<std::uint32_t>& next, std::uint32_t start, int steps);

// Per block: how many of its threads' answers differ (bit for bit) from `reference`.
std::vector<int> wrong_per_block(const std::vector<float>& answers, const std::vector<float>& reference);
std::vector<int> wrong_per_block(const std::vector<std::uint32_t>& answers,
                                 const std::vector<std::uint32_t>& reference);

// One SM's reading: its value (a rate, or cycles per load) and how many wrong answers its block gave.
struct SmReading {
  std::uint32_t sm;
  double value;
  int wrong;
};

// The map of one quantity over the SMs, sorted by SM. `lower_is_better`: a latency.
struct Map {
  std::vector<SmReading> readings;  // one per SM (a block per SM; two blocks on one SM: the slower counts)
  double median = 0.0;
  double worst_vs_median = 1.0;  // the worst SM against the median, below 1 (a rate's min / median)
  std::uint32_t worst_sm = 0;
  int wrong_sms = 0;                   // SMs with a wrong answer
  std::string wrong_text;              // "wrong result from SM 17 (3 of 256 answers)", or empty
  std::vector<std::uint32_t> missing;  // SMs below sm_count that no block ran on (another kernel held them)
};
// `sm_count`: the GPU's SMs (0: none is missing by definition).
Map make_map(std::vector<SmReading> readings, bool lower_is_better, const std::string& what, int sm_count = 0);

// SMs grouped by the clusters they were seen in together (a cluster sits in one GPC): sms_by_cluster[i] lists
// the SMs of one launched cluster. Returns, per SM index 0..sm_count-1, its group (0, 1, ...: groups numbered
// by their lowest SM), or -1 for an SM no cluster reached.
std::vector<int> gpc_groups(const std::vector<std::vector<std::uint32_t>>& sms_by_cluster, int sm_count);

}  // namespace gpubench::sm_map
