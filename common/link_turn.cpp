#include "common/link_turn.h"

#include "common/detail/gpu_session.h"
#include "common/detail/run_control.h"

#include <cuda_runtime_api.h>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace gpubench {
namespace {

struct TurnPipes {
  int to_parent = -1, from_parent = -1;
};

// The child's ends, from the environment once; kept from the processes it starts (nvidia-smi).
const TurnPipes& pipes() {
  static const TurnPipes found = [] {
    TurnPipes p;
    const char* text = std::getenv(kNodeTurnsVariable);
    if (text == nullptr || std::sscanf(text, "%d,%d", &p.to_parent, &p.from_parent) != 2) return TurnPipes{};
    fcntl(p.to_parent, F_SETFD, FD_CLOEXEC);
    fcntl(p.from_parent, F_SETFD, FD_CLOEXEC);
    return p;
  }();
  return found;
}

bool say(const std::string& line) {
  const std::string text = line + "\n";
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = write(pipes().to_parent, text.data() + sent, text.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// One line from the parent, waiting at most until `until`; "" on end of file, "timeout", or "interrupted".
std::string hear(std::chrono::steady_clock::time_point until) {
  std::string line;
  while (true) {
    if (detail::interrupted()) return "interrupted";
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return "timeout";
    pollfd wanted{pipes().from_parent, POLLIN, 0};
    const int ready = poll(&wanted, 1, static_cast<int>(std::min<long long>(left.count(), 500)));
    if (ready <= 0) continue;  // a slice passed (or a signal): look at the interrupt and the time again
    char c = 0;
    const ssize_t n = read(pipes().from_parent, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "";
    if (c == '\n') return line;
    line += c;
  }
}

struct PeerContexts {
  std::thread maker;
  double seconds = 0;  // what making them took
  ~PeerContexts() {    // a process that ends before node_ready (an error) lets the thread finish
    if (maker.joinable()) maker.join();
  }
};

PeerContexts& peer_contexts() {
  static PeerContexts contexts;
  return contexts;
}

// GPUBENCH_NODE_PEER_CONTEXTS=during: the peers' contexts are made while the rows run, not before the node's start
// (four children's contexts are made one after the other by the driver: .ci/device-probe-setup).
bool contexts_during_rows() {
  static const bool during = [] {
    const char* asked = std::getenv("GPUBENCH_NODE_PEER_CONTEXTS");
    return asked != nullptr && std::string(asked) == "during";
  }();
  return during;
}

void make_peer_contexts(int own, const std::vector<int>& peers) {
  if (peer_contexts().maker.joinable()) return;
  peer_contexts().maker = std::thread([own, peers] {
    const auto began = std::chrono::steady_clock::now();
    for (int peer : peers)  // the current device is this thread's own: the main thread's is left alone
      if (peer != own && cudaSetDevice(peer) == cudaSuccess) cudaFree(nullptr);
    cudaGetLastError();  // a peer that could not be opened is the Peer rows' to say
    peer_contexts().seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  });
}

}  // namespace

void start_peer_contexts(int own, const std::vector<int>& peers) {
  if (pipes().to_parent < 0 || contexts_during_rows()) return;
  make_peer_contexts(own, peers);
}

std::optional<std::string> node_filter(std::string& why, double wait_seconds) {
  why.clear();
  if (pipes().from_parent < 0) {
    why = std::string(kNodeFilterVariable) + " is set without the node's pipes (" + kNodeTurnsVariable + ")";
    return std::nullopt;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(wait_seconds));
  const std::string heard = hear(until);
  if (heard.rfind("filter ", 0) == 0) return heard.substr(7);
  if (heard != "none")
    why = heard.empty() ? "the node run's parent is gone before it sent the rows"
                        : "no rows from the node run's parent (" + heard + ")";
  return std::nullopt;
}

void node_ready(const std::vector<int>& peers, double wait_seconds) {
  if (pipes().to_parent < 0) return;
  const auto began = std::chrono::steady_clock::now();
  if (!contexts_during_rows()) {
    start_peer_contexts(GpuSession::selected_device(), peers);  // unless started at the process's start
    if (peer_contexts().maker.joinable()) peer_contexts().maker.join();
  }
  char seconds[64];  // the contexts' time, and how long they were still awaited here, for the node's timeline
  std::snprintf(seconds, sizeof seconds, "%.3f %.3f", peer_contexts().seconds,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  if (!say(std::string("ready ") + seconds)) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(wait_seconds));
  for (std::string heard = hear(until); heard.rfind("go ", 0) == 0; heard = hear(until)) {
  }  // "start", or no parent, a timeout or an interrupt: the rows go on
  if (contexts_during_rows()) make_peer_contexts(GpuSession::selected_device(), peers);
}

LinkTurn::LinkTurn(int peer, double wait_seconds) {
  if (peer < 0 || pipes().to_parent < 0) return;  // no other GPU, or no node run: nothing to wait for
  static unsigned long long next = 0;
  sequence_ = ++next;
  if (!say("turn " + std::to_string(peer) + " " + std::to_string(sequence_))) {
    granted_ = false;
    why_not_ = "the node run's parent is gone";
    return;
  }
  asked_ = true;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(wait_seconds));
  const std::string go = "go " + std::to_string(sequence_);
  while (true) {
    const std::string heard = hear(until);
    if (heard == go) return;
    if (heard.rfind("go ", 0) == 0) continue;  // an answer to a turn given up before: not this one
    granted_ = false;
    why_not_ = heard.empty()        ? "the node run's parent is gone"
               : heard == "timeout" ? "no turn on GPU " + std::to_string(peer) + "'s link in " +
                                          std::to_string(static_cast<int>(wait_seconds)) + " s (the node's schedule)"
                                    : "interrupted";
    return;
  }
}

LinkTurn::~LinkTurn() {
  if (asked_) say((granted_ ? "end " : "cancel ") + std::to_string(sequence_));
}

}  // namespace gpubench
