#include "app/node_schedule.h"

namespace gpubench::app {

std::vector<std::vector<std::pair<int, int>>> round_robin(const std::vector<int>& gpus) {
  constexpr int kRest = -1;
  std::vector<int> circle = gpus;
  if (circle.size() % 2 == 1) circle.push_back(kRest);
  const std::size_t n = circle.size();
  std::vector<std::vector<std::pair<int, int>>> rounds;
  for (std::size_t round = 0; n >= 2 && round + 1 < n; ++round) {
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t i = 0; i < n / 2; ++i) {
      const int a = circle[i], b = circle[n - 1 - i];
      if (a != kRest && b != kRest) pairs.emplace_back(a < b ? a : b, a < b ? b : a);
    }
    if (!pairs.empty()) rounds.push_back(pairs);
    // The first stays; the others turn one place.
    const int last = circle.back();
    for (std::size_t i = n - 1; i > 1; --i) circle[i] = circle[i - 1];
    circle[1] = last;
  }
  return rounds;
}

std::map<int, std::vector<int>> link_measurers(const std::vector<int>& gpus) {
  // Around a circle of the GPUs, each measures the links to the next half of it (the one opposite, on an even
  // count, by the first half's): every GPU measures (n - 1) / 2 links, or n / 2 and n / 2 - 1.
  const int n = static_cast<int>(gpus.size());
  std::map<int, int> position;
  for (int i = 0; i < n; ++i) position[gpus[i]] = i;
  std::map<int, std::vector<int>> peers;
  for (int gpu : gpus) peers[gpu];
  for (const auto& round : round_robin(gpus))  // in round order: a child takes its turns as the rounds go
    for (const auto& [a, b] : round) {
      const int ahead = (position[b] - position[a] + n) % n;
      const bool a_measures = 2 * ahead < n || (2 * ahead == n && position[a] < n / 2);
      peers[a_measures ? a : b].push_back(a_measures ? b : a);
    }
  return peers;
}

}  // namespace gpubench::app
