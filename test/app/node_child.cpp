// A node's child that takes its turns through common/link_turn.h itself, as gpubench's child does, with no GPU: the
// parent's side (app/node_run.cpp) tested against the child's side as it runs. It reads gpubench's flags, offers each
// GPU that measures its link a handle, says ready, runs its own rows (NODE_CHILD_OWN_SECONDS), then takes a turn on
// each peer and asks that peer's process for a way back, logs what it did and when, writes its report, and serves its
// measurers' way backs until the parent's bye. With NODE_CHILD_HOST_SECONDS it first takes the HostLink rows' steps: a
// step every GPU takes at once ("arrive", "together"), then a turn on the host alone ("host"). NODE_CHILD_MEMORY logs
// when it stopped mapping its measurers' offers ("unmapped GPU") and when it freed what it offered its peers ("freed
// GPU"), in the order they happened.
#include "common/link_turn.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

// `line` into the file `variable` names: NODE_CHILD_LOG what it measured and when (own rows, links), NODE_CHILD_SAID
// the rest (way backs served, what went wrong).
void log(const char* variable, const std::string& line) {
  if (const char* path = std::getenv(variable)) std::ofstream(path, std::ios::app) << line << "\n";
}
void log(const std::string& line) { log("NODE_CHILD_LOG", line); }
void said(const std::string& line) { log("NODE_CHILD_SAID", line); }

// Logs `line` into NODE_CHILD_MEMORY when it is destroyed: what a child's memory shared with another does at its end.
struct LoggedAtEnd {
  explicit LoggedAtEnd(std::string text) : line(std::move(text)) {}
  ~LoggedAtEnd() { log("NODE_CHILD_MEMORY", line); }
  std::string line;
};

std::vector<int> list_of(const std::string& text) {
  std::vector<int> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(std::atoi(item.c_str()));
  return out;
}

double seconds_of(const std::string& variable) {
  const char* text = std::getenv(variable.c_str());
  return text ? std::atof(text) : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  int device = -1;
  std::vector<int> peers;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = arg.substr(arg.find('=') + 1);
    if (arg.rfind("--gpubench_device=", 0) == 0) device = std::atoi(value.c_str());
    if (arg.rfind("--gpubench_peers=", 0) == 0) peers = list_of(value);
    if (arg.rfind("--benchmark_out=", 0) == 0) out = value;
  }
  const std::string me = std::to_string(device);
  // What the Peer family does: its measurers' memory offered before ready, their way backs served after its rows.
  // The offers of the measurers are mapped by the server until its bye; the memory it offered its peers (the way back's
  // destination) is held until the parent's free.
  gpubench::set_link_preparation([&](const std::vector<int>& measured) {
    for (int measurer : gpubench::node_measurers()) gpubench::node_offer(measurer, "memory", "0a" + me);
    for (int peer : measured) gpubench::node_offer(peer, "back_to", "0b" + me);
    if (!measured.empty()) gpubench::hold_until_unmapped(std::make_shared<LoggedAtEnd>("freed " + me));
  });
  auto mapped = std::make_shared<LoggedAtEnd>("unmapped " + me);
  gpubench::set_link_server([&, mapped](int from) {
    if (gpubench::node_offered(from, "back_to") != "0b" + std::to_string(from))
      said("missing-back-to " + me + " " + std::to_string(from));
    said("serve " + me + " " + std::to_string(from));
    return true;
  });
  mapped.reset();
  gpubench::node_ready(peers);
  for (int peer : peers)
    if (gpubench::node_offered(peer, "memory") != "0a" + std::to_string(peer))
      said("missing-offer " + me + " " + std::to_string(peer));
  if (std::getenv("NODE_CHILD_HOST_SECONDS")) {  // what the HostLink rows do: copy all at once, then each alone
    const double waits = seconds_of("NODE_CHILD_LATE_TOGETHER_GPU" + me);  // a child slower to its copies
    std::this_thread::sleep_for(std::chrono::duration<double>(waits));
    log("arrive " + me + " at " + std::to_string(now_s()));
    int looks = 0;
    std::string why;
    if (!gpubench::node_together(
            "host_copies", [&] { ++looks; }, 10.0, why))
      said("together-failed " + me + " " + why);
    log("together " + me + " at " + std::to_string(now_s()));
    if (looks == 0) said("no-load-kept " + me);  // the row's load is topped up while it waits
    const gpubench::HostTurn turn;
    if (!turn.granted()) said("no-host-turn " + me + " " + turn.why_not());
    log("host " + me + " start " + std::to_string(now_s()));
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_of("NODE_CHILD_HOST_SECONDS")));
    log("host " + me + " end " + std::to_string(now_s()));
  }
  log("own " + me + " start " + std::to_string(now_s()));
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds_of("NODE_CHILD_OWN_SECONDS")));
  log("own " + me + " end " + std::to_string(now_s()));
  gpubench::set_link_rows(static_cast<int>(peers.size()));
  for (int peer : peers) {
    const gpubench::LinkTurn turn(peer);
    if (!turn.granted()) {
      said("refused " + me + " " + std::to_string(peer) + " " + turn.why_not());
      continue;
    }
    log("link " + me + " " + std::to_string(peer) + " start " + std::to_string(now_s()));
    std::string why;
    if (!gpubench::node_way_back(peer, why)) said("no-way-back " + me + " " + std::to_string(peer) + " " + why);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_of("NODE_CHILD_LINK_SECONDS")));
    log("link " + me + " " + std::to_string(peer) + " end " + std::to_string(now_s()));
  }
  std::ofstream(out) << "{\"context\":{\"gpu_name\":\"S\",\"gpubench_rows_planned\":\"1\"},\"benchmarks\":["
                     << "{\"name\":\"Row/x\",\"run_name\":\"Row/x\",\"run_type\":\"iteration\",\"real_time\":1}]}\n";
  gpubench::node_rows_done();
  std::printf("gpubench: 1 of 1 rows run in 0.0 s\n");
  return 0;
}
