// A run over several GPUs as a node: one child gpubench per GPU at once for the per-GPU rows, each child then
// measuring its share of the NVLink pairs (node_schedule.h), taking turns so that both GPUs of a link are quiet
// (link_turn.h); their reports merged into one JSON of the same shape as a run over several GPUs in one process
// (rows tagged /gpu:N, GPU context keys suffixed /gpu:N).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench::app {

struct NodeRun {
  std::vector<int> gpus;
  std::vector<std::string> selected;  // the parent's selection, row names tagged /gpu:N
  std::vector<std::string> all;       // every row of the preset, tagged likewise ({}: the children get exact names)
  std::vector<std::string> args;      // the user's flags, less device, filter, output, card and verdict
  std::string binary;                 // this gpubench
  std::string reaper;                 // the gpubench that reaps the node if it dies (kNodeReaperFlag); "": none
  std::string out;                    // the merged JSON (required)
};

struct NodeResult {
  bool ok = false;
  std::string message;             // why not, when !ok
  int rows = 0;                    // rows the merged report holds
  int failed = 0;                  // rows that ended in an error
  std::vector<std::string> wrong;  // rows whose verified results were wrong
  int signal = 0;                  // a signal that stopped it
};

NodeResult run_node(const NodeRun& node);

// The node's reaper: `gpubench --gpubench_node_reaper DIR`, started by run_node in a session of its own. It reads
// "pid N" lines and "over" from descriptor 3; if that pipe closes without "over" (the parent died, by SIGKILL too),
// it kills the children it was told of and removes DIR, the children's folder.
inline constexpr const char* kNodeReaperFlag = "--gpubench_node_reaper";
int reap_node(const std::string& dir);

// In a node's child (its parent the node, GPUBENCH_NODE_PID): the kernel kills it when the node dies.
void die_with_the_node();

// A node's child takes its --benchmark_filter from a file (its exact names can be longer than one argument may be).
inline constexpr const char* kFilterFileFlag = "--gpubench_filter_file";

// `args` with each --gpubench_filter_file=PATH replaced by --benchmark_filter=<PATH's text>; std::runtime_error
// naming the file when it cannot be read.
std::vector<std::string> expand_filter_file(std::vector<std::string> args);

// The one-GPU rows of `gpu` among the parent's `selected` (its /gpu:N tag taken off), and whether any is a Peer row.
std::vector<std::string> rows_of_gpu(const std::vector<std::string>& selected, int gpu, bool peer);

// A child's report merged into `merged` as GPU `gpu`'s: rows tagged, GPU context keys suffixed.
void merge_child(nlohmann::ordered_json& merged, const nlohmann::ordered_json& child, int gpu, bool first_of_gpu);

}  // namespace gpubench::app
