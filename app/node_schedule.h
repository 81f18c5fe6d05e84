// The NVLink pairs of a node run: every pair of GPUs once, in rounds of disjoint pairs (the circle method of a
// round-robin tournament: n - 1 rounds for even n, n for odd, one GPU resting each round), and who measures each.
#pragma once

#include <map>
#include <utility>
#include <vector>

namespace gpubench::app {

std::vector<std::vector<std::pair<int, int>>> round_robin(const std::vector<int>& gpus);

// Who measures each pair: for every GPU, the peers whose link it measures (copies both ways, chases in the peer's
// memory), in round order. Each pair once, and every GPU measures as many links as any other, give or take one, so
// no GPU's child carries the node's links alone.
std::map<int, std::vector<int>> link_measurers(const std::vector<int>& gpus);

}  // namespace gpubench::app
