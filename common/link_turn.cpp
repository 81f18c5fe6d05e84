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
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

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

// One line from the parent, waiting at most until `until`; "" on end of file, "timeout", or "interrupted". Between
// slices of `slice_ms` it calls `between` where one is given.
std::string hear(std::chrono::steady_clock::time_point until, int slice_ms = 500,
                 const std::function<void()>& between = nullptr) {
  std::string line;
  while (true) {
    if (detail::interrupted()) return "interrupted";
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return "timeout";
    pollfd wanted{pipes().from_parent, POLLIN, 0};
    if (between) between();
    const int ready = poll(&wanted, 1, static_cast<int>(std::min<long long>(left.count(), slice_ms)));
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

std::function<bool(int)>& link_server() {
  // Never destroyed at exit: the memory it serves is freed by node_rows_done while CUDA is up, not in static
  // destruction.
  static auto* serve = new std::function<bool(int)>;
  return *serve;
}

// What this process made and offered to another (memory, events): CUDA leaves freeing it undefined while another
// process still maps it, so it is kept past the GPU session's close until the parent says every process that mapped it
// has closed it ("free").
std::vector<std::shared_ptr<void>>& held_for_importers() {
  static auto* held = new std::vector<std::shared_ptr<void>>;  // freed by node_rows_done while CUDA is up
  return *held;
}

// The handles other children offered this one, by offering GPU and name.
std::map<std::pair<int, std::string>, std::string>& offers() {
  static std::map<std::pair<int, std::string>, std::string> offered;
  return offered;
}

// Keeps an "offer FROM NAME HEX" line; true where `line` was one.
bool took_offer(const std::string& line) {
  if (line.rfind("offer ", 0) != 0) return false;
  std::istringstream words(line.substr(6));
  int from = -1;
  std::string name, hex;
  if (words >> from >> name >> hex) offers()[{from, name}] = hex;
  return true;
}

// Queues the way back a measurer asks of this GPU ("back FROM SEQ") and says so; true where `line` was such a request.
bool served(const std::string& line) {
  if (line.rfind("back ", 0) != 0) return false;
  std::istringstream words(line.substr(5));
  int from = -1;
  std::string sequence;
  words >> from >> sequence;
  bool queued = false;
  try {
    queued = link_server() && link_server()(from);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpubench: warning: the way back to GPU %d could not be queued: %s\n", from, e.what());
  }
  say("queued " + std::to_string(from) + " " + sequence + (queued ? " ok" : " no"));
  return true;
}

// Lines a child may hear while it waits for another answer: a handle offered, a way back asked of its GPU (idle while
// this process waits), or an answer to a question it gave up.
bool aside(const std::string& line) {
  return took_offer(line) || served(line) || line.rfind("go ", 0) == 0 || line.rfind("queued ", 0) == 0 ||
         line.rfind("together ", 0) == 0;
}

// The sequence of a turn this process asks for (on a link or the host): each answer names its own.
unsigned long long next_turn_sequence() {
  static unsigned long long next = 0;
  return ++next;
}

// Why a wait for the parent's answer ended without it.
std::string why_unanswered(const std::string& heard, const std::string& timeout_text) {
  return heard.empty() ? "the node run's parent is gone" : heard == "timeout" ? timeout_text : "interrupted";
}

std::chrono::steady_clock::time_point after(double seconds) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

const std::vector<int>& node_measurers() {
  static const std::vector<int> measurers = [] {
    std::vector<int> gpus;
    const char* text = std::getenv(kNodeServesVariable);
    if (text == nullptr) return gpus;
    std::istringstream list(text);
    for (std::string item; std::getline(list, item, ',');)
      if (!item.empty()) gpus.push_back(std::atoi(item.c_str()));
    return gpus;
  }();
  return measurers;
}

void node_offer(int to, const std::string& name, const std::string& hex) {
  if (pipes().to_parent >= 0) say("offer " + std::to_string(to) + " " + name + " " + hex);
}

std::string node_offered(int from, const std::string& name) {
  const auto found = offers().find({from, name});
  return found == offers().end() ? std::string() : found->second;
}

bool node_way_back(int peer, std::string& why_not) {
  static unsigned long long next = 0;
  const std::string sequence = std::to_string(++next);
  const std::string gpu = "GPU " + std::to_string(peer) + "'s process";
  if (pipes().to_parent < 0 || !say("back " + std::to_string(peer) + " " + sequence)) {
    why_not = "no node run's parent to ask " + gpu + " for the way back";
    return false;
  }
  const auto until = after(30.0);
  while (true) {
    const std::string heard = hear(until);
    if (heard == "queued " + sequence + " ok") return true;
    if (heard.rfind("queued " + sequence + " ", 0) == 0) {
      why_not = gpu + " could not queue the way back";
      return false;
    }
    if (aside(heard)) continue;
    why_not = why_unanswered(heard, gpu + " did not queue the way back in 30 s");
    return false;
  }
}

void set_link_server(std::function<bool(int from)> serve) { link_server() = std::move(serve); }

std::string to_hex(const void* data, std::size_t bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < bytes; ++i) {
    const unsigned byte = static_cast<const unsigned char*>(data)[i];
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  return text;
}

bool from_hex(const std::string& text, void* data, std::size_t bytes) {
  if (text.size() != 2 * bytes) return false;
  const auto value = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  for (std::size_t i = 0; i < bytes; ++i) {
    const int high = value(text[2 * i]), low = value(text[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    static_cast<unsigned char*>(data)[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return true;
}

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
  // Links whose memory the processes share need no context on a peer.
  if (!link_preparation()) start_peer_contexts(GpuSession::selected_device(), peers);  // unless started at the start
  if (peer_contexts().maker.joinable()) peer_contexts().maker.join();
  // A link's buffers made later, while its peer measures its own rows, slowed that GPU's last rows (x4k's memcpy on
  // GPU 3, 0.8% and a wide interval: docs/results/2026-11-26-node-production). Made now, nothing measures.
  if (link_preparation()) {
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
  const auto until = after(wait_seconds);
  for (std::string heard = hear(until); aside(heard); heard = hear(until)) {
  }  // "start", or no parent, a timeout or an interrupt: the rows go on
}

void hold_until_unmapped(std::shared_ptr<void> exported) {
  if (pipes().to_parent >= 0) held_for_importers().push_back(std::move(exported));
}

void node_rows_done() {
  if (pipes().to_parent < 0) return;
  say("done");
  // The order CUDA documents for memory shared between processes: every importer closes its mapping before the
  // exporter frees it. At "bye" (its measurers are over) this child closes what it mapped of theirs, then frees what it
  // served them (they closed theirs with their GPU session) and says "closed"; at "free" (every process that mapped
  // this one's memory said "closed") it frees what it offered.
  bool serving = link_server() && !node_measurers().empty(), offered = !held_for_importers().empty();
  const auto until = after(3600.0);  // the parent's deadline ends it sooner (an interrupt)
  while (serving || offered) {
    const std::string heard = hear(until);
    if (heard == "bye") {
      link_server() = nullptr;
      serving = false;
      say("closed");
    } else if (heard == "free") {
      held_for_importers().clear();
      offered = false;
    } else if (!aside(heard)) {
      break;  // no parent, a timeout or an interrupt: the process ends, and the driver frees what is left
    }
  }
  link_server() = nullptr;  // whatever is left is freed while CUDA is still up
  held_for_importers().clear();
}

bool in_node_run() { return pipes().to_parent >= 0; }

bool node_together(const std::string& name, const std::function<void()>& while_waiting, double wait_seconds,
                   std::string& why_not) {
  if (pipes().to_parent < 0) return true;
  if (!say("together " + name)) {
    why_not = "the node run's parent is gone";
    return false;
  }
  const auto until = after(wait_seconds);
  const std::string go = "together " + name + " go";
  while (true) {
    const std::string heard = hear(until, 1, while_waiting);
    if (heard == go) return true;
    if (aside(heard)) continue;
    why_not = why_unanswered(heard, "the node's other GPUs did not reach \"" + name + "\" in " +
                                        std::to_string(static_cast<int>(wait_seconds)) + " s");
    return false;
  }
}

namespace {

// Asks the parent for a turn ("WHAT SEQ") and waits for its "go SEQ": true, or false with `why_not` (`late`: the
// words for a wait that ran out).
bool ask_for_turn(const std::string& what, unsigned long long sequence, double wait_seconds, const std::string& late,
                  bool& asked, std::string& why_not) {
  if (!say(what + " " + std::to_string(sequence))) {
    why_not = "the node run's parent is gone";
    return false;
  }
  asked = true;
  const auto until = after(wait_seconds);
  const std::string go = "go " + std::to_string(sequence);
  while (true) {
    const std::string heard = hear(until);
    if (heard == go) return true;
    if (aside(heard)) continue;  // an answer to a turn given up before: not this one
    why_not = why_unanswered(
        heard, late + " in " + std::to_string(static_cast<int>(wait_seconds)) + " s (the node's schedule)");
    return false;
  }
}

}  // namespace

HostTurn::HostTurn(double wait_seconds) {
  if (pipes().to_parent < 0) return;  // no node run: the host is this GPU's alone
  sequence_ = next_turn_sequence();
  granted_ = ask_for_turn("host", sequence_, wait_seconds, "no turn on the host's link", asked_, why_not_);
}

HostTurn::~HostTurn() {
  if (asked_) say((granted_ ? "end " : "cancel ") + std::to_string(sequence_));
}

LinkTurn::LinkTurn(int peer, double wait_seconds) {
  if (peer < 0 || pipes().to_parent < 0) return;  // no other GPU, or no node run: nothing to wait for
  sequence_ = next_turn_sequence();
  granted_ = ask_for_turn("turn " + std::to_string(peer), sequence_, wait_seconds,
                          "no turn on GPU " + std::to_string(peer) + "'s link", asked_, why_not_);
}

namespace {
int g_link_rows_left = -1;  // unknown: no turn is said to be the last
}  // namespace

void set_link_rows(int rows) { g_link_rows_left = rows; }

LinkTurn::~LinkTurn() {
  if (!asked_) return;
  const bool last = granted_ && g_link_rows_left > 0 && --g_link_rows_left == 0;
  say((granted_ ? "end " : "cancel ") + std::to_string(sequence_) + (last ? " last" : ""));
}

}  // namespace gpubench
