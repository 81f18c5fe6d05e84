// The node run's schedule (every pair of GPUs once, each measured by one of them, the work shared), its turns on the
// links (both GPUs quiet) and the merge of its children's reports into one report of the node, on the CPU.
#include "app/node_run.h"
#include "app/node_schedule.h"
#include "app/selection.h"
#include "common/link_turn.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gpubench::app {
namespace {

std::vector<int> first(int n) {
  std::vector<int> gpus;
  for (int i = 0; i < n; ++i) gpus.push_back(i);
  return gpus;
}

TEST(NodeSchedule, EveryPairOnceAndNoGpuTwiceInARound) {
  for (int n = 2; n <= 8; ++n) {
    const auto rounds = round_robin(first(n));
    EXPECT_EQ(rounds.size(), static_cast<std::size_t>(n % 2 == 0 ? n - 1 : n)) << n << " GPUs";
    std::set<std::pair<int, int>> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (const auto& [a, b] : round) {
        EXPECT_LT(a, b);
        EXPECT_TRUE(busy.insert(a).second) << "GPU " << a << " twice in a round of " << n;
        EXPECT_TRUE(busy.insert(b).second) << "GPU " << b << " twice in a round of " << n;
        EXPECT_TRUE(seen.insert({a, b}).second) << a << "-" << b << " twice, " << n << " GPUs";
      }
      EXPECT_GE(busy.size(), static_cast<std::size_t>(n - 1));  // at most one GPU rests
    }
    // Each unordered pair once; its one child measures both directions (app/node_run.cpp).
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * (n - 1) / 2)) << n << " GPUs";
  }
}

TEST(NodeSchedule, ListedGpusAndTooFew) {
  const auto rounds = round_robin({1, 3, 6});
  std::set<std::pair<int, int>> seen;
  for (const auto& round : rounds)
    for (const auto& pair : round) seen.insert(pair);
  EXPECT_EQ(seen, (std::set<std::pair<int, int>>{{1, 3}, {1, 6}, {3, 6}}));
  EXPECT_TRUE(round_robin({0}).empty());
  EXPECT_TRUE(round_robin({}).empty());
}

TEST(NodeSchedule, EveryLinkHasOneMeasurerAndTheWorkIsShared) {
  for (int n = 2; n <= 8; ++n) {
    const auto measurers = link_measurers(first(n));
    std::set<std::pair<int, int>> seen;
    std::size_t most = 0, least = 1000;
    for (const auto& [gpu, peers] : measurers) {
      most = std::max(most, peers.size());
      least = std::min(least, peers.size());
      for (int peer : peers) EXPECT_TRUE(seen.insert({std::min(gpu, peer), std::max(gpu, peer)}).second) << n;
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * (n - 1) / 2)) << n << " GPUs";
    EXPECT_LE(most - least, 1u) << n << " GPUs: one child would carry more links than the others";
  }
}

// A handle crosses the turn pipe as hex text (link_turn.h): back to the same bytes, and text of another length or with
// another character is no handle.
TEST(NodeRun, AHandleCrossesThePipeAsHexAndBackUnchanged) {
  unsigned char handle[64], back[64] = {};
  for (int i = 0; i < 64; ++i) handle[i] = static_cast<unsigned char>(i * 37 + 5);
  const std::string hex = to_hex(handle, sizeof handle);
  EXPECT_EQ(hex.size(), 128u);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
  ASSERT_TRUE(from_hex(hex, back, sizeof back));
  EXPECT_EQ(std::string(reinterpret_cast<char*>(back), 64), std::string(reinterpret_cast<char*>(handle), 64));
  EXPECT_FALSE(from_hex(hex.substr(2), back, sizeof back));
  EXPECT_FALSE(from_hex("zz" + hex.substr(2), back, sizeof back));
  EXPECT_FALSE(from_hex("", back, sizeof back));
}

TEST(NodeRun, RowsOfOneGpuLoseTheirTagAndPeerRowsGoApart) {
  const std::vector<std::string> selected = {"Stream/read/gpu:0/MiB:8",  "Stream/read/gpu:1/MiB:8",
                                             "Stream/read/gpu:10/MiB:8", "Peer/copy/gpu:1/peer:0/MiB:2048",
                                             "SmMap/fma/gpu:1",          "PointerChaseCPU/bytes:4096"};
  EXPECT_EQ(rows_of_gpu(selected, 1, false), (std::vector<std::string>{"Stream/read/MiB:8", "SmMap/fma"}));
  EXPECT_EQ(rows_of_gpu(selected, 1, true), (std::vector<std::string>{"Peer/copy/peer:0/MiB:2048"}));
  EXPECT_EQ(rows_of_gpu(selected, 10, false), (std::vector<std::string>{"Stream/read/MiB:8"}));
}

TEST(NodeRun, ChildrenMergeAsOneRunOverSeveralGpus) {
  const auto child = [](const std::string& uuid, const std::string& end) {
    return nlohmann::ordered_json{{"context",
                                   {{"host_name", "node7"},
                                    {"gpu_name", "NVIDIA H200"},
                                    {"gpu_uuid", uuid},
                                    {"gpubench_other_gpu_processes", "none"},
                                    {"gpubench_other_gpu_processes_end", end},
                                    {"gpubench_rows_planned", "2"},
                                    {"gpubench_filter", "^(a|b)$"}}},
                                  {"gpubench", {{"schema", 2}}},
                                  {"benchmarks",
                                   {{{"name", "Stream/read/MiB:8/manual_time"},
                                     {"run_name", "Stream/read/MiB:8/manual_time"},
                                     {"gpubench", {{"registered", "Stream/read"}, {"gpu", nullptr}}}}}}};
  };
  nlohmann::ordered_json merged;
  merge_child(merged, child("GPU-a", "none"), 0, true);
  merge_child(merged, child("GPU-b", "none"), 1, true);
  merge_child(merged, child("GPU-b-later", "1 (pid 7 python3 100 MiB)"), 1, false);  // a peer round on GPU 1
  const auto& context = merged["context"];
  EXPECT_EQ(context["gpu_uuid/gpu:0"], "GPU-a");
  EXPECT_EQ(context["gpu_uuid/gpu:1"], "GPU-b");  // a GPU's context from its first child
  EXPECT_EQ(context["gpubench_other_gpu_processes_end/gpu:1"], "1 (pid 7 python3 100 MiB)");  // the end from its last
  EXPECT_EQ(context["host_name"], "node7");
  EXPECT_EQ(context["gpubench_rows_planned"], "6");
  EXPECT_FALSE(context.contains("gpubench_filter"));
  EXPECT_FALSE(context.contains("gpu_uuid"));
  ASSERT_EQ(merged["benchmarks"].size(), 3u);
  EXPECT_EQ(merged["benchmarks"][1]["name"], "Stream/read/gpu:1/MiB:8/manual_time");
  EXPECT_EQ(merged["benchmarks"][1]["gpubench"]["gpu"], 1);
  EXPECT_EQ(merged["gpubench"]["schema"], 2);
  // The host rows' child: its rows untagged, its GPU's keys left to the GPUs' children.
  merge_child(merged, child("GPU-a-again", "none"), -1, true);
  EXPECT_FALSE(merged["context"].contains("gpu_uuid"));
  EXPECT_EQ(merged["benchmarks"].back()["name"], "Stream/read/MiB:8/manual_time");
}

// run_node itself, with a stand-in gpubench (a shell script): what each child does is set per GPU by
// STANDIN_GPU<N> (ok, fail, kill, hang).
class NodeRunSpawn : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/node-run-test-XXXXXX";
    dir_ = mkdtemp(pattern);
    standin_ = dir_ + "/gpubench";
    std::ofstream script(standin_);
    script << R"SH(#!/usr/bin/env bash
for a in "$@"; do
  case "$a" in --benchmark_out=*) out=${a#*=} ;; --gpubench_device=*) dev=${a#*=} ;; --gpubench_peers=*) peers=${a#*=} ;;
    --gpubench_filter_file=*) filter_file=${a#*=} ;; esac
done
[ -n "${STANDIN_FILTERS:-}" ] && echo "$dev $(wc -c <"$filter_file")" >>"$STANDIN_FILTERS"
[ -n "${STANDIN_PIDS:-}" ] && echo "$$ $(dirname "$out")" >>"$STANDIN_PIDS"
mode_var=STANDIN_GPU$dev
row='{"name":"Row/x","run_name":"Row/x","run_type":"iteration","real_time":1}'
case "${!mode_var:-ok}" in
  fail) echo "gpubench: the stand-in fails"; exit 3 ;;
  slow) sleep 1 ;;
  kill) kill -KILL $$ ;;
  hang) trap 'echo "{\"context\":{\"gpu_name\":\"S\"},\"benchmarks\":[{\"name\":\"Row/x\",\"error_occurred\":true,\"error_message\":\"interrupted\"}]}" >"$out"; echo "gpubench: interrupted"; exit 143' TERM
        sleep 30 & wait ;;
esac
log=${STANDIN_LOG:-/dev/null}
serve_log=${STANDIN_SERVE:-}  # set: links share memory, each peer queues its way back (common/link_turn.h)
serves=${GPUBENCH_NODE_SERVES:-}
if [ -n "${GPUBENCH_NODE_TURNS:-}" ]; then  # ready, then wait for the start (common/link_turn.h)
  [ "$dev" = "${STANDIN_LATE_GPU:-}" ] && sleep 1
  if [ -n "$serve_log" ]; then for m in ${serves//,/ }; do echo "offer $m memory 0a$dev" >&3; done; fi
  echo "ready $dev $(date +%s.%N)" >>"$log"; echo "ready" >&3
  while read -r -t 20 -u 4 answer; do
    case "$answer" in offer\ *) echo "offered $dev ${answer#offer }" >>"$serve_log" ;; *) break ;; esac
  done
fi
own_var=STANDIN_OWN_SECONDS_GPU$dev
echo "own $dev start $(date +%s.%N)" >>"$log"; sleep "${!own_var:-${STANDIN_OWN_SECONDS:-0}}"; echo "own $dev end $(date +%s.%N)" >>"$log"
# One line from the parent, a way back asked of this GPU served on the way (its GPU is idle while it waits).
hear() {
  while read -r -t 20 -u 4 answer; do
    case "$answer" in
      back\ *) set -- $answer; echo "serve $dev $2" >>"$serve_log"; echo "queued $2 $3 ok" >&3 ;;
      *) return 0 ;;
    esac
  done
  return 1
}
seq=0
for peer in ${peers//,/ }; do  # a turn on each link, as the Peer rows take them (common/link_turn.h)
  seq=$((seq + 1)); echo "turn $peer $seq" >&3
  hear || { echo "cancel $seq" >&3; continue; }
  echo "link $dev $peer start $(date +%s.%N)" >>"$log"
  if [ -n "$serve_log" ]; then
    echo "back $peer $seq" >&3; hear; echo "way-back $dev $peer $answer" >>"$serve_log"
  fi
  sleep "${STANDIN_LINK_SECONDS:-0.2}"; echo "link $dev $peer end $(date +%s.%N)" >>"$log"
  last=; [ "$peer" = "${peers##*,}" ] && last=" last"  # its last link's turn says so
  echo "end $seq$last" >&3
done
echo "{\"context\":{\"gpu_name\":\"S\",\"gpubench_rows_planned\":\"1\"},\"benchmarks\":[$row]}" >"$out"
if [ -n "${GPUBENCH_NODE_TURNS:-}" ]; then  # its rows are over; the process ends later (it frees its GPU's memory)
  echo "done" >&3
  if [ -n "$serve_log" ] && [ -n "$serves" ]; then  # serves its measurers' way backs until the parent's bye
    hear && [ "$answer" = bye ] && echo "bye $dev $(date +%s.%N)" >>"$serve_log"
  fi
  sleep "${STANDIN_EXIT_SECONDS:-0}"
fi
echo "gpubench: 1 of 1 rows run in 0.0 s"
)SH";
    script.close();
    chmod(standin_.c_str(), 0755);
  }
  void TearDown() override {
    for (const char* name :
         {"STANDIN_GPU0", "STANDIN_GPU1", "STANDIN_GPU2", "STANDIN_LOG", "STANDIN_OWN_SECONDS", "STANDIN_LATE_GPU",
          "STANDIN_OWN_SECONDS_GPU0", "STANDIN_OWN_SECONDS_GPU1", "STANDIN_LINK_SECONDS", "STANDIN_EXIT_SECONDS",
          "STANDIN_SERVE", "STANDIN_FILTERS", "STANDIN_PIDS"})
      unsetenv(name);
    std::filesystem::remove_all(dir_);
  }
  NodeRun node() const {
    NodeRun run;
    run.gpus = {0, 1};
    run.selected = {"Row/gpu:0/x", "Row/gpu:1/x"};
    run.binary = standin_;
    run.out = dir_ + "/node.json";
    return run;
  }
  // Four GPUs with links to measure, the stand-in logging what each child did and when.
  NodeRun four_gpus_with_links() const {
    NodeRun run = node();
    run.gpus = {0, 1, 2, 3};
    run.selected = {"Row/gpu:0/x", "Row/gpu:1/x", "Row/gpu:2/x", "Row/gpu:3/x", "Peer/copy/gpu:0/peer:1"};
    setenv("STANDIN_LOG", (dir_ + "/turns.log").c_str(), 1);
    return run;
  }
  std::string dir_, standin_;
};

TEST_F(NodeRunSpawn, EveryChildsReportIsMerged) {
  const NodeResult result = run_node(node());
  EXPECT_TRUE(result.ok) << result.message;
  EXPECT_EQ(result.rows, 2);
  EXPECT_EQ(result.signal, 0);
}

TEST_F(NodeRunSpawn, AFailingChildIsSaidAndTheOthersAreKept) {
  setenv("STANDIN_GPU1", "fail", 1);
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(node());
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(result.ok) << result.message;
  EXPECT_EQ(result.rows, 1);
  EXPECT_NE(said.find("gpu1: gpubench: the stand-in fails"), std::string::npos) << said;
  EXPECT_NE(said.find("gpu1 wrote no report"), std::string::npos) << said;
}

TEST_F(NodeRunSpawn, AChildKilledByASignalIsNamedBySignal) {
  setenv("STANDIN_GPU0", "kill", 1);
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(node());
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("gpu0: killed by SIGKILL"), std::string::npos) << said;
  EXPECT_EQ(result.rows, 1);
}

TEST_F(NodeRunSpawn, AChildThatCannotStartIsSaid) {
  NodeRun run = node();
  run.binary = dir_ + "/no-such-gpubench";
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(run);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(result.ok);
  EXPECT_NE(said.find("gpu0 could not be started: No such file or directory"), std::string::npos) << said;
}

TEST(NodeRun, AFilterFileBecomesTheFilter) {
  const std::string path = std::filesystem::temp_directory_path() / "node-run-test-filter";
  const std::string filter = "^(" + std::string(200000, 'x') + ")$";  // past one argument's 128 KiB
  std::ofstream(path) << filter;
  const std::vector<std::string> args =
      expand_filter_file({"gpubench", "--gpubench_preset=full", std::string(kFilterFileFlag) + "=" + path});
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[1], "--gpubench_preset=full");
  EXPECT_EQ(args[2], "--benchmark_filter=" + filter);
  std::filesystem::remove(path);
  EXPECT_THROW(expand_filter_file({"gpubench", std::string(kFilterFileFlag) + "=" + path}), std::runtime_error);
}

TEST_F(NodeRunSpawn, AFullPresetsFilterLongerThanAnArgumentStartsEveryChild) {
  NodeRun run = node();
  run.selected.clear();
  for (int i = 0; i < 2500; ++i)  // a full preset's rows: about 150 KB of exact names a GPU
    for (int gpu : run.gpus)
      run.selected.push_back("Stream/read/gpu:" + std::to_string(gpu) +
                             "/bytes_per_thread:16/unroll:4/MiB:" + std::to_string(i) + "/manual_time");
  setenv("STANDIN_FILTERS", (dir_ + "/filters.log").c_str(), 1);
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(run);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(result.ok) << result.message << said;
  EXPECT_EQ(result.rows, 2) << said;
  std::ifstream filters(dir_ + "/filters.log");
  int gpu = -1, seen = 0;
  for (long bytes = 0; filters >> gpu >> bytes; ++seen) EXPECT_GT(bytes, 128 * 1024) << "GPU " << gpu;
  EXPECT_EQ(seen, 2);
}

#ifdef GPUBENCH_TEST_BINARY
// The full preset's rows of an H100 (gpubench --gpubench_plan, no GPU needed), GPU rows only.
std::vector<std::string> full_preset_rows() {
  const std::string list = std::filesystem::temp_directory_path() / "node-run-test-full-rows";
  const std::string command = std::string(GPUBENCH_TEST_BINARY) +
                              " --gpubench_plan=h100-sxm5 --gpubench_preset=full --benchmark_list_tests >" + list +
                              " 2>/dev/null";
  std::vector<std::string> rows;
  if (std::system(command.c_str()) != 0) return rows;
  std::ifstream in(list);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.find("CPU/") == std::string::npos) rows.push_back(line);
  std::filesystem::remove(list);
  return rows;
}

TEST(NodeRun, AFullPresetsChildFilterIsOneStdRegexCanTakeAndSelectsItsRowsExactly) {
  const std::vector<std::string> all = full_preset_rows();
  ASSERT_GT(all.size(), 2000u) << "gpubench --gpubench_plan listed too few rows";
  // What a child runs: every row but the links (measured in turns), and a part of them (a user's filter).
  std::vector<std::string> own, part;
  for (const std::string& name : all) {
    if (name.rfind("Peer/", 0) != 0) own.push_back(name);
    if (name.rfind("Stream/read/", 0) == 0 || name.find("/MiB:8/") != std::string::npos) part.push_back(name);
  }
  for (const auto* chosen : {&own, &part}) {
    const std::string filter = compact_filter(*chosen, all);
    EXPECT_LT(filter.size(), 16u * 1024) << "longer than the check preset's exact names";
    const std::regex matcher(filter, std::regex::extended);  // throws past std::regex's NFA state limit
    const std::set<std::string> wanted(chosen->begin(), chosen->end());
    for (const std::string& name : all) EXPECT_EQ(std::regex_search(name, matcher), wanted.count(name) == 1) << name;
  }
}

// A process that is gone or a zombie (its parent dead, waiting for init to reap it).
bool gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
}

TEST_F(NodeRunSpawn, ANodeKilledBySigkillTakesItsChildrenAndItsFolderWithIt) {
  setenv("STANDIN_GPU0", "hang", 1);
  setenv("STANDIN_GPU1", "hang", 1);
  const std::string pids = dir_ + "/pids.log";
  setenv("STANDIN_PIDS", pids.c_str(), 1);
  const pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    NodeRun run = node();
    run.reaper = GPUBENCH_TEST_BINARY;  // the real gpubench's reaper
    run_node(run);
    _exit(0);
  }
  std::vector<std::pair<pid_t, std::string>> children;
  for (int waited = 0; children.size() < 2 && waited < 500; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    children.clear();
    std::ifstream in(pids);
    pid_t pid;
    for (std::string folder; in >> pid >> folder;) children.emplace_back(pid, folder);
  }
  ASSERT_EQ(children.size(), 2u) << "the children did not start";
  kill(parent, SIGKILL);
  waitpid(parent, nullptr, 0);
  bool all_gone = false;
  for (int waited = 0; !all_gone && waited < 500; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    all_gone = std::all_of(children.begin(), children.end(), [](const auto& child) {
      return gone(child.first) && !std::filesystem::exists(child.second);
    });
  }
  for (const auto& [pid, folder] : children) {
    EXPECT_TRUE(gone(pid)) << "child " << pid << " outlived its node";
    EXPECT_FALSE(std::filesystem::exists(folder)) << folder << " was left";
  }
}
#endif

TEST_F(NodeRunSpawn, ASigtermToTheParentReachesEveryChildAndTheirRowsAreKept) {
  setenv("STANDIN_GPU0", "hang", 1);
  setenv("STANDIN_GPU1", "hang", 1);
  const auto start = std::chrono::steady_clock::now();
  std::thread scheduler([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    kill(getpid(), SIGTERM);  // as Slurm stops a job: the parent alone
  });
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(node());
  ::testing::internal::GetCapturedStderr();
  scheduler.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.signal, SIGTERM);
  EXPECT_LT(seconds, 10.0) << "the children were not stopped";
  EXPECT_TRUE(result.ok) << result.message;
  EXPECT_EQ(result.rows, 2);  // each child's interrupted row
}

// Four GPUs whose children measure their links after their own rows: what each did and when, from the stand-in's log.
struct Interval {
  std::string what;  // "own 2" or "link 0 3"
  int a = -1, b = -1;
  double start = 0, end = 0;
};

std::vector<Interval> intervals(const std::string& log) {
  std::ifstream in(log);
  std::map<std::string, Interval> open;
  std::vector<Interval> out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string kind, edge;
    Interval i;
    words >> kind >> i.a;
    if (kind == "link") words >> i.b;
    double when = 0;
    words >> edge >> when;
    i.what = kind + " " + std::to_string(i.a) + (kind == "link" ? " " + std::to_string(i.b) : "");
    if (edge == "start") {
      i.start = when;
      open[i.what] = i;
    } else {
      open[i.what].end = when;
      out.push_back(open[i.what]);
    }
  }
  return out;
}

bool uses(const Interval& i, int gpu) { return i.a == gpu || i.b == gpu; }

// The links measured, and how long after the last GPU's own rows the last of them ended.
struct LinkPhase {
  int links = 0;
  double seconds = 0;
};
LinkPhase link_phase(const std::vector<Interval>& done) {
  double own_end = 0, links_end = 0;
  LinkPhase phase;
  for (const Interval& i : done) {
    if (i.b >= 0) {
      links_end = std::max(links_end, i.end);
      ++phase.links;
    } else {
      own_end = std::max(own_end, i.end);
    }
  }
  phase.seconds = links_end - own_end;
  return phase;
}
bool overlap(const Interval& x, const Interval& y) { return x.start < y.end && y.start < x.end; }

// The most links measured one after another on a GPU they share (each starting after the one before it ended): the
// rounds the schedule took, read from the order of the turns, not from how long the machine took to run them.
int rounds_taken(const std::vector<Interval>& done) {
  std::vector<Interval> links;
  for (const Interval& i : done)
    if (i.b >= 0) links.push_back(i);
  std::sort(links.begin(), links.end(), [](const Interval& x, const Interval& y) { return x.start < y.start; });
  std::vector<int> chain(links.size(), 1);
  int most = 0;
  for (std::size_t i = 0; i < links.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j)
      if (links[j].end <= links[i].start && (uses(links[j], links[i].a) || uses(links[j], links[i].b)))
        chain[i] = std::max(chain[i], chain[j] + 1);
    most = std::max(most, chain[i]);
  }
  return most;
}

// Runs the node with the stand-in logging into `dir`: `links` links measured, in at most `rounds` rounds (0: not
// asked), the last ended less than `seconds` after the last GPU's own rows (0: not asked).
void expect_link_phase(const std::string& dir, const NodeRun& run, int links, int rounds, double seconds,
                       const std::string& why) {
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(run);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(result.ok) << result.message << said;
  const std::vector<Interval> done = intervals(dir + "/turns.log");
  const LinkPhase phase = link_phase(done);
  EXPECT_EQ(phase.links, links);
  if (rounds > 0) {
    EXPECT_LE(rounds_taken(done), rounds) << why << "\n" << said;
  }
  if (seconds > 0) {
    EXPECT_LT(phase.seconds, seconds) << why << "\n" << said;
  }
}

TEST_F(NodeRunSpawn, EveryLinkIsMeasuredOnceWithBothItsGpusQuiet) {
  const NodeRun run = four_gpus_with_links();
  setenv("STANDIN_OWN_SECONDS", "0.3", 1);
  setenv("STANDIN_GPU2", "slow", 1);  // GPU 2's own rows last longer: its links wait for it
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(run);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(result.ok) << result.message << said;
  const std::vector<Interval> done = intervals(dir_ + "/turns.log");
  std::set<std::pair<int, int>> links;
  for (const Interval& i : done) {
    if (i.b >= 0) {
      EXPECT_TRUE(links.insert({std::min(i.a, i.b), std::max(i.a, i.b)}).second) << i.what << " twice";
    }
  }
  EXPECT_EQ(links.size(), 6u) << said;
  for (const Interval& x : done) {
    for (const Interval& y : done) {
      if (&x == &y || x.b < 0) continue;
      for (int gpu : {x.a, x.b}) {
        EXPECT_FALSE(uses(y, gpu) && overlap(x, y)) << x.what << " and " << y.what << " at once on GPU " << gpu;
      }
    }
  }
}

#ifdef GPUBENCH_NODE_CHILD
// The parent against children that take their turns through common/link_turn.h itself (test/app/node_child.cpp), as
// gpubench's do: every link measured once with both its GPUs quiet, each handle offered where it is wanted, each way
// back served by the peer's process.
TEST_F(NodeRunSpawn, TheChildsOwnTurnProtocolMeetsTheParent) {
  NodeRun run = four_gpus_with_links();
  run.binary = GPUBENCH_NODE_CHILD;
  const std::string said_log = dir_ + "/said.log";
  setenv("NODE_CHILD_LOG", (dir_ + "/turns.log").c_str(), 1);
  setenv("NODE_CHILD_SAID", said_log.c_str(), 1);
  setenv("NODE_CHILD_MEMORY", (dir_ + "/memory.log").c_str(), 1);
  setenv("NODE_CHILD_OWN_SECONDS", "0.2", 1);
  setenv("NODE_CHILD_LINK_SECONDS", "0.05", 1);
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(run);
  const std::string said = ::testing::internal::GetCapturedStderr();
  for (const char* name :
       {"NODE_CHILD_LOG", "NODE_CHILD_SAID", "NODE_CHILD_MEMORY", "NODE_CHILD_OWN_SECONDS", "NODE_CHILD_LINK_SECONDS"})
    unsetenv(name);
  EXPECT_TRUE(result.ok) << result.message << said;
  EXPECT_EQ(result.rows, 4) << said;
  const std::vector<Interval> done = intervals(dir_ + "/turns.log");
  std::set<std::pair<int, int>> links;
  for (const Interval& x : done) {
    if (x.b < 0) continue;
    EXPECT_TRUE(links.insert({std::min(x.a, x.b), std::max(x.a, x.b)}).second) << x.what << " twice";
    for (const Interval& y : done) {
      if (&x == &y) continue;
      for (int gpu : {x.a, x.b}) {
        EXPECT_FALSE(uses(y, gpu) && overlap(x, y)) << x.what << " and " << y.what;
      }
    }
  }
  EXPECT_EQ(links.size(), 6u) << said;
  std::ifstream served(said_log);
  int serves = 0;
  for (std::string line; std::getline(served, line);) {
    EXPECT_EQ(line.rfind("serve ", 0), 0u) << line;  // no offer missing, no turn refused, no way back refused
    ++serves;
  }
  EXPECT_EQ(serves, 6) << "each link's way back is served by its peer's process";
  // CUDA's order for memory shared between processes: a measurer frees what it offered (the way back's destination)
  // only after the peer's process has stopped mapping it.
  std::map<std::string, int> at;  // "freed 0", "unmapped 2": their place in the log
  std::ifstream memory(dir_ + "/memory.log");
  int place = 0;
  for (std::string line; std::getline(memory, line);) at[line] = place++;
  for (const Interval& x : done) {
    if (x.b < 0) continue;
    const std::string freed = "freed " + std::to_string(x.a), unmapped = "unmapped " + std::to_string(x.b);
    ASSERT_TRUE(at.count(freed) && at.count(unmapped)) << x.what << "\n" << said;
    EXPECT_LT(at[unmapped], at[freed]) << x.what << ": freed while its peer still mapped it";
  }
}

// The HostLink rows' steps (link_turn.h): every GPU copies to the host at once only once the slowest has reached the
// step (the copies overlap), then each GPU copies alone in its turn on the host, no two turns at once.
TEST_F(NodeRunSpawn, HostCopiesStartTogetherThenTakeTheHostOneGpuAtATime) {
  NodeRun run = four_gpus_with_links();
  run.binary = GPUBENCH_NODE_CHILD;
  const std::string said_log = dir_ + "/said.log";
  const std::vector<std::pair<const char*, std::string>> settings = {{"NODE_CHILD_LOG", dir_ + "/turns.log"},
                                                                     {"NODE_CHILD_SAID", said_log},
                                                                     {"NODE_CHILD_HOST_SECONDS", "0.1"},
                                                                     {"NODE_CHILD_LATE_TOGETHER_GPU2", "0.5"},
                                                                     {"NODE_CHILD_LINK_SECONDS", "0.02"}};
  for (const auto& [name, value] : settings) setenv(name, value.c_str(), 1);
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(run);
  const std::string said = ::testing::internal::GetCapturedStderr();
  for (const auto& setting : settings) unsetenv(setting.first);
  EXPECT_TRUE(result.ok) << result.message << said;
  std::ifstream in(dir_ + "/turns.log");
  double last_arrival = 0, first_together = 1e300;
  int arrivals = 0, togethers = 0;
  std::vector<Interval> host;
  std::map<int, double> host_start;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string kind, edge;
    int gpu = -1;
    double when = 0;
    words >> kind >> gpu >> edge >> when;
    if (kind == "arrive") {
      last_arrival = std::max(last_arrival, when);
      ++arrivals;
    } else if (kind == "together") {
      first_together = std::min(first_together, when);
      ++togethers;
    } else if (kind == "host" && edge == "start") {
      host_start[gpu] = when;
    } else if (kind == "host") {
      Interval turn;
      turn.a = gpu;
      turn.start = host_start[gpu];
      turn.end = when;
      host.push_back(turn);
    }
  }
  EXPECT_EQ(arrivals, 4);
  EXPECT_EQ(togethers, 4);
  EXPECT_GE(first_together, last_arrival) << "a GPU's copies began before the slowest GPU reached them";
  ASSERT_EQ(host.size(), 4u) << said;
  for (const Interval& x : host)
    for (const Interval& y : host)
      if (&x != &y) EXPECT_FALSE(overlap(x, y)) << "GPUs " << x.a << " and " << y.a << " on the host at once";
  std::ifstream complaints(said_log);
  for (std::string line; std::getline(complaints, line);)
    EXPECT_EQ(line.rfind("serve ", 0), 0u) << line;  // no step missed, no host turn refused, the load kept up
  EXPECT_NE(said.find(">host "), std::string::npos) << "the node's timeline names the host's turns\n" << said;
}
#endif

// GPUs 2 and 3 end their own rows first. Taking their link (the last round's) at once would push the first round's
// pairs, which need GPUs 0 and 1, and every round after them, a link later: four links' time instead of three.
TEST_F(NodeRunSpawn, TheLinksTakeTheFewestRoundsWhenTheGpusEndTheirRowsApart) {
  const NodeRun run = four_gpus_with_links();
  setenv("STANDIN_OWN_SECONDS_GPU0", "0.1", 1);
  setenv("STANDIN_OWN_SECONDS_GPU1", "0.1", 1);
  setenv("STANDIN_LINK_SECONDS", "0.4", 1);
  expect_link_phase(dir_, run, 6, 3, 0, "the links took more than three rounds");
}

// The schedule the 8-GPU projection rests on (docs/harness.md): 28 links, each GPU in 7, done in 7 links' time.
TEST_F(NodeRunSpawn, EightGpusMeasureTheir28LinksInSevenRounds) {
  NodeRun run = node();
  run.gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  run.selected = {"Peer/copy/gpu:0/peer:1"};
  for (int gpu : run.gpus) run.selected.push_back("Row/gpu:" + std::to_string(gpu) + "/x");
  setenv("STANDIN_LOG", (dir_ + "/turns.log").c_str(), 1);
  setenv("STANDIN_LINK_SECONDS", "0.2", 1);
  expect_link_phase(dir_, run, 28, 7, 0, "the links took more than seven rounds");
}

// A child whose rows are over frees its GPU for the others' links at once, not when its process has ended.
TEST_F(NodeRunSpawn, AGpuWhoseRowsAreOverServesTheLinksBeforeItsProcessEnds) {
  const NodeRun run = four_gpus_with_links();
  // A process lingers 3 s after its rows; three rounds of 0.1 s links end long before that, however loaded the machine.
  setenv("STANDIN_EXIT_SECONDS", "3", 1);
  setenv("STANDIN_LINK_SECONDS", "0.1", 1);
  expect_link_phase(dir_, run, 6, 3, 2.0, "a link waited for a child's process to end");
}

// A node check's links share memory between their GPUs' processes: each peer's child offers its memory to the child
// that measures the link, queues that link's way back when asked, and ends only once every link is measured.
TEST_F(NodeRunSpawn, EachPeersProcessOffersItsMemoryAndQueuesTheWayBack) {
  const NodeRun run = four_gpus_with_links();
  const std::string served = dir_ + "/served.log";
  setenv("STANDIN_SERVE", served.c_str(), 1);
  setenv("STANDIN_LINK_SECONDS", "0.1", 1);
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(run);
  const std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(result.ok) << result.message << said;
  std::set<std::pair<int, int>> offered, queued, serving;  // (measurer, peer)
  std::map<int, double> bye_at;
  std::ifstream in(served);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string kind, verb, name, hex, sequence, answer;
    int a = -1, b = -1;
    words >> kind >> a;
    if (kind == "offered") {  // "offered MEASURER PEER memory 0aPEER"
      words >> b >> name >> hex;
      EXPECT_EQ(hex, "0a" + std::to_string(b)) << line;
      offered.insert({a, b});
    } else if (kind == "way-back") {  // "way-back MEASURER PEER queued SEQ ok"
      words >> b >> verb >> sequence >> answer;
      EXPECT_EQ(verb + " " + answer, "queued ok") << line;
      queued.insert({a, b});
    } else if (kind == "serve") {  // "serve PEER MEASURER"
      words >> b;
      serving.insert({b, a});
    } else if (kind == "bye") {
      words >> bye_at[a];
    }
  }
  std::set<std::pair<int, int>> links;
  std::map<int, double> last_link_to;  // by peer: when the last link measured to its GPU ended
  for (const Interval& i : intervals(dir_ + "/turns.log"))
    if (i.b >= 0) {
      links.insert({i.a, i.b});
      last_link_to[i.b] = std::max(last_link_to[i.b], i.end);
    }
  EXPECT_EQ(links.size(), 6u) << said;
  EXPECT_EQ(offered, links) << "every measurer holds its peer's offer, and no other";
  EXPECT_EQ(queued, links) << "every link's way back was queued";
  EXPECT_EQ(serving, links) << "by its peer's process";
  EXPECT_EQ(bye_at.size(), last_link_to.size()) << "each GPU that serves a link is let go";
  for (const auto& [gpu, at] : bye_at)
    EXPECT_GE(at, last_link_to[gpu]) << "GPU " << gpu << " was let go before a link to it was measured";
}

TEST_F(NodeRunSpawn, TheRowsStartTogetherOnceEveryChildIsReady) {
  NodeRun run = node();
  run.gpus = {0, 1, 2};
  run.selected = {"Row/gpu:0/x", "Row/gpu:1/x", "Row/gpu:2/x"};
  setenv("STANDIN_LOG", (dir_ + "/turns.log").c_str(), 1);
  setenv("STANDIN_LATE_GPU", "1", 1);  // GPU 1's child takes a second to be ready
  ::testing::internal::CaptureStderr();
  const NodeResult result = run_node(run);
  ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(result.ok) << result.message;
  std::ifstream in(dir_ + "/turns.log");
  double last_ready = 0, first_row = 1e300;
  int readies = 0;
  for (std::string kind, gpu, edge; in >> kind >> gpu;) {
    double when = 0;
    if (kind == "ready") {
      in >> when;
      last_ready = std::max(last_ready, when);
      ++readies;
    } else {
      in >> edge >> when;
      if (kind == "own" && edge == "start") first_row = std::min(first_row, when);
    }
  }
  EXPECT_EQ(readies, 3);
  EXPECT_GE(first_row, last_ready) << "a GPU's rows began before every child was ready";
}

TEST_F(NodeRunSpawn, AChildThatFailsLeavesItsGpuToTheOthersLinks) {
  NodeRun run = node();
  run.gpus = {0, 1, 2};
  run.selected = {"Row/gpu:0/x", "Row/gpu:1/x", "Row/gpu:2/x", "Peer/copy/gpu:0/peer:1"};
  setenv("STANDIN_LOG", (dir_ + "/turns.log").c_str(), 1);
  setenv("STANDIN_GPU1", "fail", 1);
  ::testing::internal::CaptureStderr();
  const auto start = std::chrono::steady_clock::now();
  const NodeResult result = run_node(run);
  ::testing::internal::GetCapturedStderr();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(result.ok) << result.message;
  EXPECT_LT(seconds, 10.0) << "a link waited for a GPU whose child had ended";
  int links = 0;
  for (const Interval& i : intervals(dir_ + "/turns.log")) links += i.b >= 0;
  EXPECT_GE(links, 1);  // the links of GPU 0 and 2 that GPU 1's child did not have to measure
}

}  // namespace
}  // namespace gpubench::app
