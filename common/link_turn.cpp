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
#include <exception>
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

std::function<void(const std::vector<int>&)>& link_preparation() {
  static std::function<void(const std::vector<int>&)> prepare;
  return prepare;
}

}  // namespace

void start_peer_contexts(int own, const std::vector<int>& peers) {
  if (pipes().to_parent < 0 || peer_contexts().maker.joinable()) return;
  peer_contexts().maker = std::thread([own, peers] {
    const auto began = std::chrono::steady_clock::now();
    for (int peer : peers)  // the current device is this thread's own: the main thread's is left alone
      if (peer != own && cudaSetDevice(peer) == cudaSuccess) cudaFree(nullptr);
    cudaGetLastError();  // a peer that could not be opened is the Peer rows' to say
    peer_contexts().seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  });
}

void set_link_preparation(std::function<void(const std::vector<int>& peers)> prepare) {
  link_preparation() = std::move(prepare);
}

void node_ready(const std::vector<int>& peers, double wait_seconds) {
  if (pipes().to_parent < 0) return;
  const auto began = std::chrono::steady_clock::now();
  start_peer_contexts(GpuSession::selected_device(), peers);  // unless started at the process's start
  if (peer_contexts().maker.joinable()) peer_contexts().maker.join();
  // A link's buffers made later, while its peer measures its own rows, slowed that GPU's last rows (x4k's memcpy on
  // GPU 3, 0.8% and a wide interval: docs/results/2026-11-26-node-production). Made now, nothing measures.
  if (link_preparation() && !peers.empty()) {
    try {
      link_preparation()(peers);
    } catch (const std::exception& e) {  // the rows make what is missing inside their turns
      std::fprintf(stderr, "gpubench: warning: the links' buffers could not be made before the rows: %s\n", e.what());
    }
  }
  char seconds[64];  // the contexts' time, and how long they were still awaited here, for the node's timeline
  std::snprintf(seconds, sizeof seconds, "%.3f %.3f", peer_contexts().seconds,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  if (!say(std::string("ready ") + seconds)) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(wait_seconds));
  for (std::string heard = hear(until); heard.rfind("go ", 0) == 0; heard = hear(until)) {
  }  // "start", or no parent, a timeout or an interrupt: the rows go on
}

void node_rows_done() {
  if (pipes().to_parent >= 0) say("done");
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
