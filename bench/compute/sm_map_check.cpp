#include "bench/compute/sm_map_check.h"

#include "kernels/compute/sm_map_values.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

namespace gpubench::sm_map {

std::vector<float> fma_reference(int threads, int iterations) {
  std::vector<float> sums(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    float sum = 0.0f;
    for (int c = 0; c < kernels::kSmMapChains; ++c) {
      float x = kernels::sm_map_fma_start(t, c);
      for (int i = 0; i < iterations; ++i) x = std::fma(x, kernels::kSmMapFmaScale, kernels::kSmMapFmaStep);
      sum += x;
    }
    sums[static_cast<std::size_t>(t)] = sum;
  }
  return sums;
}

std::vector<std::uint32_t> shared_reference(int threads, int iterations) {
  std::vector<std::uint32_t> sums(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    std::uint32_t sum = 0;
    for (int i = 0; i < iterations; ++i)
      for (int j = 0; j < kernels::kSmMapLoadsPerStep; ++j) {
        const std::uint32_t word = (static_cast<std::uint32_t>(i * kernels::kSmMapLoadsPerStep + j) *
                                    static_cast<std::uint32_t>(kernels::kSmMapThreads)) %
                                   static_cast<std::uint32_t>(kernels::kSmMapSharedWords);
        sum += kernels::sm_map_shared_term(static_cast<std::uint32_t>(t) + word);
      }
    sums[static_cast<std::size_t>(t)] = sum;
  }
  return sums;
}

std::vector<float> mma_reference(int threads, int iterations) {
  std::vector<float> sums(static_cast<std::size_t>(threads));
  const float k = 16.0f * static_cast<float>(iterations);  // K x steps: each element adds K products per step
  for (int t = 0; t < threads; ++t) {
    const int lane = t % 32, group = lane / 4, column = 2 * (lane % 4);
    const auto element = [&](int row, int col) {
      return k * static_cast<float>(kernels::sm_map_a(row) * kernels::sm_map_b(col));
    };
    const float chain = (element(group, column) + element(group, column + 1)) +
                        (element(group + 8, column) + element(group + 8, column + 1));
    float sum = 0.0f;
    for (int c = 0; c < kernels::kSmMapMmaChains; ++c) sum += chain;
    sums[static_cast<std::size_t>(t)] = sum;
  }
  return sums;
}

std::uint32_t chase_end(const std::vector<std::uint32_t>& next, std::uint32_t start, int steps) {
  std::uint32_t at = start;
  for (int i = 0; i < steps; ++i) at = next.at(at);
  return at;
}

namespace {
template <class T>
std::vector<int> count_wrong(const std::vector<T>& answers, const std::vector<T>& reference) {
  const std::size_t threads = reference.size();
  std::vector<int> wrong(threads ? answers.size() / threads : 0, 0);
  for (std::size_t i = 0; i < wrong.size() * threads; ++i)
    if (std::memcmp(&answers[i], &reference[i % threads], sizeof(T)) != 0) ++wrong[i / threads];
  return wrong;
}
}  // namespace

std::vector<int> wrong_per_block(const std::vector<float>& answers, const std::vector<float>& reference) {
  return count_wrong(answers, reference);
}
std::vector<int> wrong_per_block(const std::vector<std::uint32_t>& answers,
                                 const std::vector<std::uint32_t>& reference) {
  return count_wrong(answers, reference);
}

Map make_map(std::vector<SmReading> readings, bool lower_is_better, const std::string& what, int sm_count) {
  // Two blocks on one SM (the scheduler's choice, or an SM another stream occupies): the worse reading counts.
  std::map<std::uint32_t, SmReading> by_sm;
  for (const SmReading& reading : readings) {
    auto [at, added] = by_sm.emplace(reading.sm, reading);
    if (added) continue;
    const bool worse = lower_is_better ? reading.value > at->second.value : reading.value < at->second.value;
    if (worse) at->second.value = reading.value;
    at->second.wrong += reading.wrong;
  }
  Map map;
  for (const auto& [sm, reading] : by_sm) map.readings.push_back(reading);
  for (int sm = 0; sm < sm_count; ++sm)
    if (!by_sm.count(static_cast<std::uint32_t>(sm))) map.missing.push_back(static_cast<std::uint32_t>(sm));
  if (map.readings.empty()) return map;
  std::vector<double> values;
  for (const SmReading& reading : map.readings) values.push_back(reading.value);
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  map.median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  for (const SmReading& reading : map.readings) {
    const double ratio = lower_is_better ? map.median / reading.value : reading.value / map.median;
    if (ratio < map.worst_vs_median) {
      map.worst_vs_median = ratio;
      map.worst_sm = reading.sm;
    }
    if (reading.wrong > 0) {
      if (map.wrong_sms++ == 0)
        map.wrong_text = "wrong result from SM " + std::to_string(reading.sm) + " in " + what + " (" +
                         std::to_string(reading.wrong) + " wrong answer" + (reading.wrong > 1 ? "s" : "") + ")";
    }
  }
  if (map.wrong_sms > 1) map.wrong_text += " and " + std::to_string(map.wrong_sms - 1) + " more SM(s)";
  return map;
}

std::vector<int> gpc_groups(const std::vector<std::vector<std::uint32_t>>& sms_by_cluster, int sm_count) {
  std::vector<int> parent(static_cast<std::size_t>(sm_count));
  std::iota(parent.begin(), parent.end(), 0);
  const auto root = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x) x = parent[static_cast<std::size_t>(x)];
    return x;
  };
  std::vector<bool> seen(static_cast<std::size_t>(sm_count), false);
  for (const std::vector<std::uint32_t>& cluster : sms_by_cluster)
    for (std::uint32_t sm : cluster) {
      if (sm >= static_cast<std::uint32_t>(sm_count)) continue;
      seen[sm] = true;
      const int a = root(static_cast<int>(sm)), b = root(static_cast<int>(cluster.front()));
      if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);  // the lowest SM is the root
    }
  std::vector<int> group(static_cast<std::size_t>(sm_count), -1);
  std::map<int, int> number;
  for (int sm = 0; sm < sm_count; ++sm) {
    if (!seen[static_cast<std::size_t>(sm)]) continue;
    const int r = root(sm);
    const auto found = number.emplace(r, static_cast<int>(number.size())).first;
    group[static_cast<std::size_t>(sm)] = found->second;
  }
  return group;
}

}  // namespace gpubench::sm_map
