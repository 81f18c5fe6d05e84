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

}  // namespace gpubench::app
