#include "app/node_run.h"

#include "app/gpu_processes.h"
#include "app/node_schedule.h"
#include "app/selection.h"
#include "common/detail/gpu_session.h"
#include "common/link_turn.h"
#include "common/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gpubench::app {
namespace {

volatile std::sig_atomic_t g_signal = 0;
// The children running now: a signal to the parent alone (a scheduler's SIGTERM) is passed on, so they stop and
// write what they ran (kill is async-signal-safe). Registered with SIGINT and SIGTERM blocked, so no signal falls
// between a child's start and its registration.
constexpr int kMaxChildren = 1024;
pid_t g_running[kMaxChildren] = {};
volatile std::sig_atomic_t g_running_count = 0;
void remember(int signal) {
  g_signal = signal;
  for (int i = 0; i < g_running_count; ++i)
    if (g_running[i] > 0) kill(g_running[i], signal);
}

// After a signal the children have this long to stop their row and write what they ran; then they are killed, so
// that a child stuck in a driver call never holds the node's end (and its scheduler's job) for ever.
constexpr auto kGraceAfterSignal = std::chrono::seconds(10);
std::chrono::steady_clock::time_point g_signal_seen{};
bool g_grace_over = false;

// Called while waiting for the children: SIGKILL to every one still running once the grace is over.
void end_the_grace() {
  if (g_signal == 0 || g_grace_over) return;
  const auto now = std::chrono::steady_clock::now();
  if (g_signal_seen == std::chrono::steady_clock::time_point{}) g_signal_seen = now;
  if (now - g_signal_seen < kGraceAfterSignal) return;
  g_grace_over = true;
  std::fprintf(stderr, "gpubench: node: the children did not end within %lld s of the signal: killed\n",
               static_cast<long long>(kGraceAfterSignal.count()));
  for (int i = 0; i < g_running_count; ++i)
    if (g_running[i] > 0) kill(g_running[i], SIGKILL);
}

std::string tag(int gpu) { return "/gpu:" + std::to_string(gpu); }

struct Child {
  pid_t pid = -1;  // -1: it could not be started (`failure` says why)
  int gpu = -1;    // -1: the host rows
  std::string json, log, what, failure;
  bool reaped = false;  // its status is in `status` (take_turns saw it end)
  int status = 0;
};

// Blocks SIGINT and SIGTERM for its scope (the spawn and the pid's registration).
class InterruptsBlocked {
 public:
  InterruptsBlocked() {
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGTERM);
    sigprocmask(SIG_BLOCK, &blocked, &previous_);
  }
  ~InterruptsBlocked() { sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  InterruptsBlocked(const InterruptsBlocked&) = delete;
  InterruptsBlocked& operator=(const InterruptsBlocked&) = delete;

 private:
  sigset_t previous_{};
};

// The parent's environment with the child's own variables set.
std::vector<std::string> child_environment() {
  const std::string node_pid = std::string(kNodePidVariable) + "=" + std::to_string(getpid());
  std::vector<std::string> out;
  for (char** entry = environ; *entry != nullptr; ++entry)
    if (std::string(*entry).rfind(std::string(kNodePidVariable) + "=", 0) != 0) out.emplace_back(*entry);
  out.push_back(node_pid);
  return out;
}

// Starts one child (common/spawn.h): its output goes to its log, its input is /dev/null, its signals are the defaults.
// The child's ends of its two turn pipes (link_turn.h), placed at these descriptors in the child.
constexpr int kTurnsToParent = 3, kTurnsFromParent = 4;

Child spawn(const NodeRun& node, int gpu, const std::string& filter, const std::string& peers, const std::string& dir,
            const std::string& name, const int* turn_ends = nullptr, const std::string& serves = "") {
  Child child;
  child.gpu = gpu;
  child.json = dir + "/" + name + ".json";
  child.log = dir + "/" + name + ".log";
  child.what = name;
  std::vector<std::string> argv;
  // GPUBENCH_NODE_WRAPPER: each child under a tool (compute-sanitizer, nsys), its words before the binary.
  if (const char* wrapper = std::getenv("GPUBENCH_NODE_WRAPPER")) {
    std::istringstream words(wrapper);
    for (std::string word; words >> word;) argv.push_back(word);
  }
  argv.push_back(node.binary);
  argv.insert(argv.end(), node.args.begin(), node.args.end());
  argv.push_back("--gpubench_device=" + std::to_string(gpu < 0 ? node.gpus.front() : gpu));
  if (!peers.empty()) argv.push_back("--gpubench_peers=" + peers);
  // The filter travels in a file: a full preset's exact names are longer than one argument may be (Linux's
  // MAX_ARG_STRLEN, 128 KiB).
  const std::string filter_file = dir + "/" + name + ".filter";
  if (!(std::ofstream(filter_file) << filter)) {
    child.failure = "could not be started: cannot write " + filter_file;
    return child;
  }
  argv.push_back(std::string(kFilterFileFlag) + "=" + filter_file);
  argv.push_back("--benchmark_out=" + child.json);
  argv.push_back("--benchmark_out_format=json");
  argv.push_back("--gpubench_card=none");
  std::vector<std::string> env = child_environment();
  if (turn_ends != nullptr)
    env.push_back(std::string(kNodeTurnsVariable) + "=" + std::to_string(kTurnsToParent) + "," +
                  std::to_string(kTurnsFromParent));
  if (turn_ends != nullptr && !serves.empty()) env.push_back(std::string(kNodeServesVariable) + "=" + serves);
  SpawnRequest request;
  request.argv = std::move(argv);
  request.environment = &env;
  request.output_path = child.log;
  if (turn_ends != nullptr)  // the pipes' ends are above 9 (turn_pipes), so neither move overwrites the other
    request.moves = {{turn_ends[0], kTurnsToParent}, {turn_ends[1], kTurnsFromParent}};
  {
    const InterruptsBlocked blocked;
    const int error = g_running_count < kMaxChildren ? spawn_process(request, &child.pid) : EAGAIN;
    if (error != 0) {
      child.pid = -1;
      child.failure = std::string("could not be started: ") + std::strerror(error);
    } else {
      g_running[g_running_count] = child.pid;
      g_running_count = g_running_count + 1;
    }
  }
  // A signal that came while the spawn was blocked is handled now; the child is registered and gets it too.
  if (g_signal != 0 && child.pid > 0) kill(child.pid, g_signal);
  return child;
}

// The node's reaper (node_run.h): started before the first child, told each child's pid, and "over" when the node
// ends by its own hand. Its session is its own, so a signal to the node's process group does not reach it.
class NodeReaper {
 public:
  NodeReaper(const std::string& binary, const std::string& dir) {
    int ends[2];
    if (binary.empty() || pipe2(ends, O_CLOEXEC) != 0) return;
    SpawnRequest request;
    request.argv = {binary, kNodeReaperFlag, dir};
    request.moves = {{ends[0], 3}};
    request.own_session = true;
    if (spawn_process(request, &pid_) != 0) {
      pid_ = -1;
      std::fprintf(stderr, "gpubench: node: warning: no reaper (%s): if the node is killed its children are not\n",
                   binary.c_str());
    }
    close(ends[0]);
    if (pid_ > 0) {
      to_reaper_ = ends[1];
    } else {
      close(ends[1]);
    }
  }
  ~NodeReaper() {
    if (pid_ <= 0) return;
    tell("over\n");
    close(to_reaper_);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  NodeReaper(const NodeReaper&) = delete;
  NodeReaper& operator=(const NodeReaper&) = delete;
  void watch(pid_t child) {
    if (child > 0) tell("pid " + std::to_string(child) + "\n");
  }

 private:
  void tell(const std::string& line) {
    if (to_reaper_ >= 0 && write(to_reaper_, line.data(), line.size()) < 0)
      std::fprintf(stderr, "gpubench: node: warning: the reaper is gone (%s)\n", std::strerror(errno));
  }
  pid_t pid_ = -1;
  int to_reaper_ = -1;
};

// "exit 3", "killed by SIGKILL".
std::string ending(int status) {
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return std::string("killed by ") +
           (name != nullptr ? std::string("SIG") + name : "signal " + std::to_string(WTERMSIG(status)));
  }
  return "exit " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

std::string last_line(const std::string& path, const std::string& prefix) {
  std::ifstream in(path);
  std::string line, found;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) found = line;
  return found;
}

// Waits for every child (only its own pid: never another's); says each one's closing line, or how it ended.
void wait_all(std::vector<Child>& children, std::vector<Child>& done) {
  for (Child& child : children) {
    if (child.pid <= 0) {
      std::fprintf(stderr, "gpubench: node: %s %s\n", child.what.c_str(), child.failure.c_str());
      done.push_back(child);
      continue;
    }
    int status = child.status;
    while (!child.reaped) {
      // Blocking until a signal comes (it interrupts the wait), then polling within the grace (end_the_grace).
      const pid_t got = waitpid(child.pid, &status, g_signal != 0 ? WNOHANG : 0);
      if (got == child.pid || (got < 0 && errno != EINTR)) break;
      end_the_grace();
      if (g_signal != 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::string closing = WIFSIGNALED(status) ? std::string() : last_line(child.log, "gpubench: ");
    if (closing.empty()) closing = ending(status);
    std::fprintf(stderr, "gpubench: node: %s: %s\n", child.what.c_str(), closing.c_str());
    done.push_back(child);
  }
  children.clear();
  const InterruptsBlocked blocked;
  g_running_count = 0;  // every child of the round has ended
}

// A GPU's child as the turns on the node's links see it (link_turn.h): running its own rows, waiting for a turn on
// a peer (idle: its GPU can be another's peer), holding one (its GPU and the peer busy), or ended.
struct TurnTaker {
  // kWaitingHost: for a turn on the host's link (link_turn.h's HostTurn); its GPU is not idle for a peer's turn.
  enum class State { kRunning, kWaiting, kWaitingHost, kHolding, kEnded };
  Child* child = nullptr;
  int gpu = -1;
  int from_child = -1, to_child = -1;  // the parent's ends
  State state = State::kRunning;
  bool open = true;        // its pipe is read: an ended child may still serve its measurers' way backs
  bool told_bye = false;   // its rows and its measurers' are over: it may end
  bool closed = false;     // after "bye": it maps no other child's memory any more
  bool told_free = false;  // every child that mapped its memory has closed it: it may free it
  bool ready = false;      // said "ready": its peers' contexts made, its rows not begun (link_turn.h)
  int peer = -1;
  std::string sequence, partial;
  long long asked = 0;  // the order it asked in: within a round, turns go first come, first served
  // After a turn ends, its two GPUs stay kept for the child a moment: its next row on the same link follows at once,
  // so a pair's rows run together instead of between other pairs'.
  int kept_peer = -1;
  std::chrono::steady_clock::time_point kept_until{};
  int round = 0;  // the round (node_schedule.h) of the pair it waits for: the earliest round's pairs go first
  std::chrono::steady_clock::time_point asked_at{};
  std::vector<int> peers;        // the links it measures, in its rows' order
  std::size_t next_peer = 0;     // peers before it are measured
  bool next_peer_begun = false;  // a turn on peers[next_peer] was given: that link is under way, not waited for
  // Where its time went, for the node's timeline line: seconds after the children's start.
  double ready_s = -1, contexts_s = -1, contexts_awaited_s = -1, own_done_s = -1, ended_s = -1;
};

// A host turn's peer: the host, no GPU.
constexpr int kHostPeer = -2;

constexpr auto kKeptForTheNextRow = std::chrono::milliseconds(50);
// How long a later round's pair waits for an earlier round's pair on its GPUs (about the spread of the GPUs' own rows'
// ends): a GPU much slower than the others no longer holds up the links that do not need it.
constexpr auto kHoldForAnEarlierRound = std::chrono::milliseconds(400);

// Two pipes for a child, their ends moved above 9 and closed on exec (the child's are placed at 3 and 4 by the
// spawn): {child writes, child reads, parent reads, parent writes}, or false.
bool turn_pipes(int (&ends)[4]) {
  int up[2], down[2];
  if (pipe(up) != 0) return false;
  if (pipe(down) != 0) {
    close(up[0]);
    close(up[1]);
    return false;
  }
  const int raw[4] = {up[1], down[0], up[0], down[1]};
  for (int i = 0; i < 4; ++i) {
    ends[i] = fcntl(raw[i], F_DUPFD_CLOEXEC, 10);
    close(raw[i]);
  }
  return true;
}

// A child that is gone fails the write (SIGPIPE is ignored while the node runs); its end of file says so next.
void say_to(const TurnTaker& taker, const std::string& line) {
  const std::string text = line + "\n";
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = write(taker.to_child, text.data() + sent, text.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

// A GPU is idle for a peer's turn when its child waits for a turn of its own or has ended, and no turn uses it.
bool idle(const std::vector<TurnTaker>& takers, const std::set<int>& used, int gpu) {
  if (used.count(gpu)) return false;
  for (const TurnTaker& t : takers)
    if (t.gpu == gpu) return t.state == TurnTaker::State::kWaiting || t.state == TurnTaker::State::kEnded;
  return true;  // no child of the node's on it
}

using RoundOf = std::map<std::pair<int, int>, int>;

// The round (node_schedule.h) of the link between GPUs a and b, or -1 where the schedule has none.
int round_of(const RoundOf& rounds, int a, int b) {
  const auto found = rounds.find({std::min(a, b), std::max(a, b)});
  return found == rounds.end() ? -1 : found->second;
}

// Seconds from `since` to now.
double seconds_since(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void heard(TurnTaker& taker, const std::string& line, std::set<int>& used, long long& order, const RoundOf& rounds,
           std::chrono::steady_clock::time_point start) {
  std::istringstream words(line);
  std::string verb, first, second;
  words >> verb >> first >> second;
  if (!taker.ready) taker.ready_s = seconds_since(start);
  taker.ready = true;  // "ready", or any later word
  if (verb == "ready") {
    // Its peers' contexts took this long, and it still waited this long for them when its own set-up was done.
    taker.contexts_s = first.empty() ? -1 : std::atof(first.c_str());
    taker.contexts_awaited_s = second.empty() ? -1 : std::atof(second.c_str());
    return;
  }
  if (taker.state == TurnTaker::State::kHolding) {  // any word after a turn ends it
    used.erase(taker.peer);
    taker.kept_peer = second == "last" ? -1 : taker.peer;  // its last turn: no next row to keep the GPUs for
    taker.kept_until = std::chrono::steady_clock::now() + kKeptForTheNextRow;
  }
  if (verb == "turn") {
    taker.state = TurnTaker::State::kWaiting;
    taker.peer = std::atoi(first.c_str());
    taker.sequence = second;
    taker.asked = ++order;
    taker.round = std::max(0, round_of(rounds, taker.gpu, taker.peer));
    taker.asked_at = std::chrono::steady_clock::now();
    if (taker.own_done_s < 0) taker.own_done_s = seconds_since(start);
    const auto at = std::find(taker.peers.begin() + static_cast<long>(std::min(taker.next_peer, taker.peers.size())),
                              taker.peers.end(), taker.peer);
    if (at != taker.peers.end() && static_cast<std::size_t>(at - taker.peers.begin()) != taker.next_peer) {
      taker.next_peer = static_cast<std::size_t>(at - taker.peers.begin());
      taker.next_peer_begun = false;
    }
  } else {
    taker.state = TurnTaker::State::kRunning;  // "end" or "cancel"
  }
}

// Passes a line meant for another child (link_turn.h): a handle offered, a way back asked for and its answer. False
// where `line` is none of these (a turn's business).
bool pass_on(std::vector<TurnTaker>& takers, const TurnTaker& from, const std::string& line) {
  std::istringstream words(line);
  std::string verb, rest;
  int to = -1;
  words >> verb >> to;
  std::getline(words, rest);  // " NAME HEX", " SEQ" or " SEQ ok"
  if (verb != "offer" && verb != "back" && verb != "queued") return false;
  const auto target = std::find_if(takers.begin(), takers.end(),
                                   [&](const TurnTaker& t) { return t.gpu == to && t.open && &t != &from; });
  if (target == takers.end()) {  // gone: a way back asked of it is answered no at once
    if (verb == "back") say_to(from, "queued" + rest + " no");
    return true;
  }
  say_to(*target, verb == "queued" ? "queued" + rest : verb + " " + std::to_string(from.gpu) + rest);
  return true;
}

// A link's turns, for the node's timeline: the first given and the last ended (seconds after the children's start),
// how many and how long they were held.
struct LinkSpan {
  double first_go = -1, last_end = -1, held = 0;
  int turns = 0;
};
using LinkSpans = std::map<std::pair<int, int>, LinkSpan>;  // by measurer and peer

// The turns on a node's links (take_turns): which GPUs a turn holds, the order turns were asked in, when each was
// given.
class Turns {
 public:
  Turns(std::vector<TurnTaker>& takers, const RoundOf& rounds, LinkSpans& spans)
      : takers_(takers), rounds_(rounds), spans_(spans) {}

  // Runs the GPUs' children to their end.
  void run() {
    while (true) {
      reap_the_ended();
      say_bye_where_nothing_is_left();
      say_free_where_unmapped();
      if (std::all_of(takers_.begin(), takers_.end(),
                      [](const TurnTaker& t) { return over(t) && (t.told_free || !t.open); }))
        return;
      if (!hear_the_children()) return;
      start_together();
      release_together();
      give_turns();
      give_host_turn();
    }
  }

 private:
  static bool over(const TurnTaker& t) { return t.state == TurnTaker::State::kEnded; }

  void turn_over(const TurnTaker& t) {
    const auto found = given_at_.find(&t);
    if (found == given_at_.end()) return;
    LinkSpan& span = spans_[{t.gpu, t.peer}];
    span.last_end = seconds_since(start_);
    span.held += span.last_end - found->second;
    given_at_.erase(found);
  }

  void ended(TurnTaker& t) {
    if (t.state == TurnTaker::State::kHolding) {
      turn_over(t);
      used_.erase(t.peer);
      used_.erase(t.gpu);
    }
    if (host_holder_ == &t) host_holder_ = nullptr;
    t.state = TurnTaker::State::kEnded;
    t.ended_s = seconds_since(start_);
    if (t.own_done_s < 0) t.own_done_s = t.ended_s;  // a child with no link to measure: its own rows were all
    t.next_peer = t.peers.size();
  }

  // A child that ended ends its turns, even where a process it started still holds its pipe open.
  void reap_the_ended() {
    for (TurnTaker& t : takers_)
      if (t.open && !t.child->reaped && waitpid(t.child->pid, &t.child->status, WNOHANG) == t.child->pid) {
        t.child->reaped = true;
        if (t.state != TurnTaker::State::kEnded) ended(t);
        t.open = false;
      }
  }

  // A child whose rows are over and whose measurers' are too serves no more links: it may end, while others measure
  // (its GPU idle). Once every child's are over (their reports written), the processes' ends are waited for while
  // their reports are merged (run_node).
  void say_bye_where_nothing_is_left() {
    for (TurnTaker& t : takers_)
      if (t.open && !t.told_bye && over(t) && std::none_of(takers_.begin(), takers_.end(), [&](const TurnTaker& u) {
            return !over(u) && std::find(u.peers.begin(), u.peers.end(), t.gpu) != u.peers.end();
          })) {
        say_to(t, "bye");
        t.told_bye = true;
      }
  }

  // A child's memory that its links' peers mapped (their way backs' destination) is freed once each of them has closed
  // it (CUDA leaves the other order undefined): after its own "bye", when every peer it measured said "closed" or
  // ended.
  void say_free_where_unmapped() {
    for (TurnTaker& t : takers_)
      if (t.open && t.told_bye && !t.told_free && std::all_of(t.peers.begin(), t.peers.end(), [&](int gpu) {
            return std::none_of(takers_.begin(), takers_.end(),
                                [&](const TurnTaker& u) { return u.gpu == gpu && u.open && !u.closed; });
          })) {
        say_to(t, "free");
        t.told_free = true;
      }
  }

  // Reads what the children said (waiting at most a poll's time); false where nothing can be heard any more.
  bool hear_the_children() {
    std::vector<pollfd> fds;
    std::vector<TurnTaker*> of;
    for (TurnTaker& t : takers_)
      if (t.open) {
        fds.push_back({t.from_child, POLLIN, 0});
        of.push_back(&t);
      }
    if (fds.empty()) return false;
    const auto now = std::chrono::steady_clock::now();
    const bool keeping = std::any_of(takers_.begin(), takers_.end(), [&](const TurnTaker& t) {
      return (t.kept_peer >= 0 && now < t.kept_until) ||
             (t.state == TurnTaker::State::kWaiting && now - t.asked_at < kHoldForAnEarlierRound);
    });
    if (poll(fds.data(), fds.size(), keeping ? 10 : 200) < 0 && errno != EINTR) return false;
    end_the_grace();
    for (std::size_t i = 0; i < fds.size(); ++i)
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0) hear(*of[i]);
    return true;
  }

  void hear(TurnTaker& t) {
    char buffer[256];
    const ssize_t n = read(t.from_child, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) return;
    if (n <= 0) {  // the child ended: whatever it held is free
      if (t.state != TurnTaker::State::kEnded) ended(t);
      t.open = false;
      return;
    }
    t.partial.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t end; (end = t.partial.find('\n')) != std::string::npos; t.partial.erase(0, end + 1)) {
      if (pass_on(takers_, t, t.partial.substr(0, end))) continue;  // between children: no turn's business
      if (t.partial.compare(0, end, "closed") == 0) {
        t.closed = true;
        continue;
      }
      if (t.state == TurnTaker::State::kEnded) continue;
      if (t.partial.compare(0, 9, "together ") == 0) {  // at a step every GPU takes at once: no turn's business
        together_[t.partial.substr(9, end - 9)].insert(&t);
        continue;
      }
      if (t.state == TurnTaker::State::kHolding) {
        turn_over(t);
        used_.erase(t.gpu);
        if (t.peer >= 0) used_.erase(t.peer);
        if (host_holder_ == &t) host_holder_ = nullptr;
      }
      if (t.partial.compare(0, 5, "host ") == 0) {
        t.state = TurnTaker::State::kWaitingHost;
        t.peer = kHostPeer;
        t.sequence = t.partial.substr(5, end - 5);
        t.asked = ++order_;
        continue;
      }
      if (t.partial.compare(0, end, "done") == 0) {  // its rows are over: its GPU is free while it ends (or serves)
        ended(t);
        continue;
      }
      heard(t, t.partial.substr(0, end), used_, order_, rounds_, start_);
    }
    if (t.state == TurnTaker::State::kWaiting && t.peer != t.kept_peer) t.kept_peer = -1;  // another link: kept no more
  }

  // The rows start together, once every child has made its contexts (or ended): none measures while another opens.
  void start_together() {
    if (started_ || !std::all_of(takers_.begin(), takers_.end(),
                                 [](const TurnTaker& t) { return t.ready || t.state == TurnTaker::State::kEnded; }))
      return;
    started_ = true;
    for (const TurnTaker& t : takers_)
      if (t.state != TurnTaker::State::kEnded) say_to(t, "start");
  }

  // A step every GPU takes at once ("together NAME") goes on once every child has said it or ended.
  void release_together() {
    for (auto at = together_.begin(); at != together_.end();) {
      const std::set<const TurnTaker*>& arrived = at->second;
      if (!std::all_of(takers_.begin(), takers_.end(),
                       [&](const TurnTaker& t) { return arrived.count(&t) || over(t) || !t.open; })) {
        ++at;
        continue;
      }
      for (const TurnTaker* t : arrived)
        if (t->open && !over(*t)) say_to(*t, "together " + at->first + " go");
      at = together_.erase(at);
    }
  }

  // The host's link goes to one GPU at a time, first come first served, once no link's turn uses that GPU.
  void give_host_turn() {
    if (host_holder_ != nullptr) return;
    TurnTaker* next = nullptr;
    for (TurnTaker& t : takers_)
      if (t.state == TurnTaker::State::kWaitingHost && !used_.count(t.gpu) &&
          (next == nullptr || t.asked < next->asked))
        next = &t;
    if (next == nullptr) return;
    host_holder_ = next;
    grant(*next);
  }

  // Gives `t` the turn it waits for (its GPU, and its peer unless the host): held, timed for the timeline, told "go".
  void grant(TurnTaker& t) {
    t.state = TurnTaker::State::kHolding;
    used_.insert(t.gpu);
    if (t.peer >= 0) used_.insert(t.peer);
    const double now_s = seconds_since(start_);
    given_at_[&t] = now_s;
    LinkSpan& span = spans_[{t.gpu, t.peer}];
    if (span.first_go < 0) span.first_go = now_s;
    ++span.turns;
    say_to(t, "go " + t.sequence);
  }

  // A later round's pair waits a moment for an earlier round's pair on one of its GPUs that is yet to run (its
  // measurer's own rows are ending): taken now, it would push that pair, and the rounds after it, a pair later.
  bool held_for_an_earlier_round(const TurnTaker* t, std::chrono::steady_clock::time_point now) const {
    if (now - t->asked_at >= kHoldForAnEarlierRound) return false;
    for (const TurnTaker& u : takers_) {
      if (&u == t || u.state == TurnTaker::State::kEnded) continue;
      for (std::size_t i = u.next_peer + (u.next_peer_begun ? 1 : 0); i < u.peers.size(); ++i) {
        const int q = u.peers[i];
        const int round = round_of(rounds_, u.gpu, q);
        if (round >= 0 && round < t->round && (u.gpu == t->gpu || u.gpu == t->peer || q == t->gpu || q == t->peer))
          return true;
      }
    }
    return false;
  }

  // A turn on a peer is given when the asking GPU and the peer are both idle (their own rows done, no other turn on
  // them), so every link is measured with both its GPUs quiet and pairs of other GPUs at the same time.
  void give_turns() {
    std::vector<TurnTaker*> waiting;
    for (TurnTaker& t : takers_)
      if (t.state == TurnTaker::State::kWaiting) waiting.push_back(&t);
    // The earliest round's pairs first (a later round's pair would take a GPU its earlier pair waits for, and the
    // links would take a round more), then first come, first served.
    std::sort(waiting.begin(), waiting.end(), [](const auto* a, const auto* b) {
      return a->round != b->round ? a->round < b->round : a->asked < b->asked;
    });
    // GPUs kept for another child's next row on the same link.
    std::map<int, const TurnTaker*> kept;
    const auto now = std::chrono::steady_clock::now();  // the poll may have waited past a keep's end
    for (const TurnTaker& t : takers_)
      if (t.kept_peer >= 0 && now < t.kept_until && t.state != TurnTaker::State::kEnded)
        kept[t.gpu] = kept[t.kept_peer] = &t;
    const auto free_for = [&](const TurnTaker* t, int gpu) { return !kept.count(gpu) || kept[gpu] == t; };
    for (TurnTaker* t : waiting) {
      if (used_.count(t->gpu) || t->peer == t->gpu || !idle(takers_, used_, t->peer) || !free_for(t, t->gpu) ||
          !free_for(t, t->peer) || held_for_an_earlier_round(t, now))
        continue;
      if (t->next_peer < t->peers.size() && t->peers[t->next_peer] == t->peer) t->next_peer_begun = true;
      grant(*t);
    }
  }

  std::vector<TurnTaker>& takers_;
  const RoundOf& rounds_;
  LinkSpans& spans_;
  std::set<int> used_;                                          // GPUs a turn holds: the holder's and its peer
  const TurnTaker* host_holder_ = nullptr;                      // the child holding the host's link
  std::map<std::string, std::set<const TurnTaker*>> together_;  // the children at each step taken at once
  long long order_ = 0;
  bool started_ = false;  // every child said it was ready, and was told to start
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::map<const TurnTaker*, double> given_at_;
};

// Runs the GPUs' children to their end: starts their rows together once each has said it is ready, and answers their
// turns on the links (Turns).
void take_turns(std::vector<TurnTaker>& takers, const RoundOf& rounds, LinkSpans& spans) {
  Turns(takers, rounds, spans).run();
}

// Where the node's time went, one line: when the children were ready (their peers' contexts), when their own rows
// ended and when their links did, in seconds after their start.
void say_timeline(const std::vector<TurnTaker>& takers) {
  const auto span = [&](double TurnTaker::*field) {
    double low = 1e300, high = -1;
    int last = -1;
    for (const TurnTaker& t : takers)
      if (t.*field >= 0) {
        low = std::min(low, t.*field);
        if (t.*field > high) {
          high = t.*field;
          last = t.gpu;
        }
      }
    char text[64];
    if (high < 0) return std::string("-");
    std::snprintf(text, sizeof text, "%.2f-%.2f s (gpu%d last)", low, high, last);
    return std::string(text);
  };
  std::fprintf(stderr,
               "gpubench: node: timeline after the children's start: ready %s (the peers' contexts took %s, still "
               "awaited %s); own rows done %s; every row and link done %s\n",
               span(&TurnTaker::ready_s).c_str(), span(&TurnTaker::contexts_s).c_str(),
               span(&TurnTaker::contexts_awaited_s).c_str(), span(&TurnTaker::own_done_s).c_str(),
               span(&TurnTaker::ended_s).c_str());
}

// Each link's turns in the order they began: "3>0 8.41-8.80 s (4 turns, held 0.33 s)", measurer > peer.
void say_links(const LinkSpans& spans) {
  if (spans.empty()) return;
  std::vector<std::pair<std::pair<int, int>, LinkSpan>> ordered(spans.begin(), spans.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.second.first_go < b.second.first_go; });
  std::string text;
  for (const auto& [link, span] : ordered) {
    char one[128];
    const std::string peer = link.second == kHostPeer ? "host" : std::to_string(link.second);
    std::snprintf(one, sizeof one, "%s%d>%s %.2f-%.2f s (%d turns, held %.2f s)", text.empty() ? "" : "; ", link.first,
                  peer.c_str(), span.first_go, span.last_end, span.turns, span.held);
    text += one;
  }
  std::fprintf(stderr, "gpubench: node: links after the children's start: %s\n", text.c_str());
}

bool is_device_key(const std::string& key) {
  static const std::set<std::string> own(std::begin(kPerGpuContextKeys), std::end(kPerGpuContextKeys));
  return key.rfind("gpu_", 0) == 0 || key.rfind("cuda_", 0) == 0 || own.count(key) > 0;
}

std::string tagged(const std::string& name, const std::string& registered, int gpu) {
  if (gpu < 0 || registered.empty() || name.rfind(registered, 0) != 0) return name;
  return registered + tag(gpu) + name.substr(registered.size());
}

std::string elapsed(std::chrono::steady_clock::time_point since) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count());
  return text;
}

// The parent's signals while its children run, restored however run_node returns: SIGINT and SIGTERM passed on to
// them (remember), SIGPIPE ignored (a child gone: say_to's write fails instead of ending the parent).
class NodeSignals {
 public:
  NodeSignals() {
    struct sigaction action {
    }, ignore{};
    action.sa_handler = remember;
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
    sigaction(SIGPIPE, &ignore, &old_pipe_);
  }
  ~NodeSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGPIPE, &old_pipe_, nullptr);
  }
  NodeSignals(const NodeSignals&) = delete;
  NodeSignals& operator=(const NodeSignals&) = delete;

 private:
  struct sigaction old_int_ {
  }, old_term_{}, old_pipe_{};
};

}  // namespace

std::vector<std::string> rows_of_gpu(const std::vector<std::string>& selected, int gpu, bool peer) {
  std::vector<std::string> rows;
  const std::string mark = tag(gpu);
  for (const std::string& name : selected) {
    const auto at = name.find(mark);
    if (at == std::string::npos) continue;
    const auto end = at + mark.size();
    if (end != name.size() && name[end] != '/') continue;  // /gpu:1 is not /gpu:10
    if ((name.rfind("Peer/", 0) == 0) != peer) continue;
    rows.push_back(name.substr(0, at) + name.substr(end));
  }
  return rows;
}

void merge_child(nlohmann::ordered_json& merged, const nlohmann::ordered_json& child, int gpu, bool first_of_gpu) {
  if (!merged.contains("context")) {
    merged["context"] = nlohmann::ordered_json::object();
    merged["benchmarks"] = nlohmann::ordered_json::array();
  }
  if (child.contains("gpubench") && !merged.contains("gpubench")) merged["gpubench"] = child["gpubench"];
  const nlohmann::ordered_json context = child.value("context", nlohmann::ordered_json::object());
  for (const auto& [key, value] : context.items()) {
    if (is_device_key(key)) {
      if (gpu < 0) continue;  // the host rows' child: its GPU's keys are another child's to give
      // A GPU's context from its first child; what was on it at the end from its last.
      auto& merged_context = merged["context"];
      const std::string own_key = key + tag(gpu);
      if (key == kOtherProcessesDuringKey && !first_of_gpu && merged_context.contains(own_key) &&
          merged_context[own_key].is_string() && value.is_string()) {
        // Every child that ran on the GPU sampled it: what any of them saw.
        const std::string before = merged_context[own_key].get<std::string>(), now = value.get<std::string>();
        if (before == "none" || before.rfind("unknown", 0) == 0) {
          merged_context[own_key] = now;
        } else if (now != "none" && now.rfind("unknown", 0) != 0) {
          merged_context[own_key] = before + "; then " + now;
        }
      } else if (first_of_gpu || key == kOtherProcessesEndKey || key == kGpuHealthKey) {  // the end's: its last
        merged_context[own_key] = value;
      }
    } else if (key == "gpubench_rows_planned") {
      const long before = std::strtol(merged["context"].value(key, std::string("0")).c_str(), nullptr, 10);
      merged["context"][key] = std::to_string(before + std::strtol(value.get<std::string>().c_str(), nullptr, 10));
    } else if (key == "gpubench_filter") {
      continue;  // the parent's exact filters, not the user's
    } else if (!merged["context"].contains(key)) {
      merged["context"][key] = value;
    }
  }
  for (nlohmann::ordered_json row : child.value("benchmarks", nlohmann::ordered_json::array())) {
    const std::string registered =
        row.contains("gpubench") ? row["gpubench"].value("registered", std::string()) : std::string();
    for (const char* field : {"name", "run_name"})
      if (row.contains(field)) row[field] = tagged(row[field].get<std::string>(), registered, gpu);
    if (gpu >= 0 && row.contains("gpubench")) row["gpubench"]["gpu"] = gpu;
    merged["benchmarks"].push_back(row);
  }
}

int reap_node(const std::string& dir) {
  std::vector<pid_t> children;
  FILE* from_node = fdopen(3, "r");
  char line[64];
  while (from_node != nullptr && std::fgets(line, sizeof line, from_node) != nullptr) {
    if (std::strncmp(line, "over", 4) == 0) return 0;
    if (std::strncmp(line, "pid ", 4) == 0) children.push_back(static_cast<pid_t>(std::strtol(line + 4, nullptr, 10)));
  }
  // The node ended without saying so: killed. Its children go with it (each is also killed by the kernel as its
  // parent dies, die_with_the_node), then their folder; a child's end is awaited at most 5 s.
  for (pid_t child : children)
    if (child > 0) kill(child, SIGKILL);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (pid_t child : children)
    while (child > 0 && kill(child, 0) == 0 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  std::fprintf(stderr, "gpubench: node reaper: the node ended without its end (killed): %zu children killed, %s %s\n",
               children.size(), dir.c_str(), error ? "could not be removed" : "removed");
  return 0;
}

void die_with_the_node() {
  const char* node = std::getenv(kNodePidVariable);
  if (node == nullptr) return;
  const pid_t node_pid = static_cast<pid_t>(std::strtol(node, nullptr, 10));
  // Only a direct child (a wrapper such as compute-sanitizer sits between otherwise); the node spawns it from its
  // main thread, which lives as long as the node (the death signal follows the thread that spawned).
  if (getppid() != node_pid) return;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != node_pid) _exit(137);  // the node died before the signal was asked for
}

std::vector<std::string> expand_filter_file(std::vector<std::string> args) {
  const std::string flag = std::string(kFilterFileFlag) + "=";
  for (std::string& arg : args) {
    if (arg.rfind(flag, 0) != 0) continue;
    const std::string path = arg.substr(flag.size());
    std::ifstream in(path);
    if (!in.is_open()) throw std::runtime_error(flag + path + ": cannot be read");
    arg = "--benchmark_filter=" + std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return args;
}

NodeResult run_node(const NodeRun& node) {
  NodeResult result;
  std::error_code error;
  char pattern[] = "/tmp/gpubench-node-XXXXXX";
  const char* made = mkdtemp(pattern);
  if (made == nullptr) {
    result.message = "node run: no temporary folder";
    return result;
  }
  const std::string dir = made;
  g_signal = 0;
  g_signal_seen = {};
  g_grace_over = false;
  const NodeSignals signals;
  NodeReaper reaper(node.reaper, dir);
  const auto start = std::chrono::steady_clock::now();

  std::vector<Child> running, done;
  // The Peer cases the parent selected: each GPU's child measures the links link_measurers gives it, after its own
  // rows (the Peer family runs last), taking turns on them (take_turns).
  std::set<std::string> peer_cases;
  for (const std::string& name : node.selected)
    if (name.rfind("Peer/", 0) == 0) peer_cases.insert(name.substr(0, name.find('/', 5)));
  std::string cases;
  for (const std::string& c : peer_cases) cases += (cases.empty() ? "" : "|") + c;
  const auto measurers =
      node.gpus.size() > 1 && !cases.empty() ? link_measurers(node.gpus) : std::map<int, std::vector<int>>{};
  std::fprintf(stderr,
               "gpubench: node: %zu GPUs at once (one process each), each then measuring its share of the "
               "NVLink pairs, taking turns\n",
               node.gpus.size());
  std::vector<TurnTaker> takers;
  running.reserve(node.gpus.size());  // the takers point at their children
  for (int gpu : node.gpus) {
    const std::vector<std::string> own = rows_of_gpu(node.selected, gpu, false);
    const auto links = measurers.find(gpu);
    std::string peers;
    if (links != measurers.end())
      for (int peer : links->second) peers += (peers.empty() ? "" : ",") + std::to_string(peer);
    std::string filter = node.all.empty() ? exact_filter(own) : compact_filter(own, rows_of_gpu(node.all, gpu, false));
    if (!peers.empty()) filter += (filter.empty() ? "" : "|") + std::string("^(") + cases + ")/";
    if (filter.empty()) continue;
    std::string serves;  // the GPUs that measure their link to this one
    for (const auto& [measurer, its_peers] : measurers)
      if (std::find(its_peers.begin(), its_peers.end(), gpu) != its_peers.end())
        serves += (serves.empty() ? "" : ",") + std::to_string(measurer);
    int ends[4];
    const bool piped = turn_pipes(ends);
    running.push_back(
        spawn(node, gpu, filter, peers, dir, "gpu" + std::to_string(gpu), piped ? ends : nullptr, serves));
    reaper.watch(running.back().pid);
    if (!piped) continue;
    close(ends[0]);
    close(ends[1]);
    TurnTaker taker;
    taker.gpu = gpu;
    if (links != measurers.end()) taker.peers = links->second;
    taker.child = &running.back();
    taker.from_child = ends[2];
    taker.to_child = ends[3];
    if (running.back().pid <= 0) taker.state = TurnTaker::State::kEnded;
    takers.push_back(taker);
  }
  RoundOf rounds;
  const auto schedule = round_robin(node.gpus);
  for (std::size_t r = 0; r < schedule.size(); ++r)
    for (const auto& pair : schedule[r]) rounds[pair] = static_cast<int>(r);
  LinkSpans spans;
  take_turns(takers, rounds, spans);
  say_timeline(takers);
  say_links(spans);
  for (const TurnTaker& t : takers) {
    close(t.from_child);
    close(t.to_child);
  }
  std::vector<std::string> host;
  for (const std::string& name : host_only(node.selected))
    if (name.find("/gpu:") == std::string::npos) host.push_back(name);
  const bool host_rows = !host.empty() && g_signal == 0;
  nlohmann::ordered_json merged;
  std::set<int> seen;
  const auto merge_reports = [&](const std::vector<Child>& children) {
    for (const Child& child : children) {
      std::ifstream in(child.json);
      if (!in) {
        std::fprintf(stderr, "gpubench: node: %s wrote no report (see its log: %s)\n", child.what.c_str(),
                     child.log.c_str());
        continue;
      }
      nlohmann::ordered_json report = nlohmann::ordered_json::parse(in, nullptr, false);
      if (report.is_discarded()) {
        std::fprintf(stderr, "gpubench: node: %s's report did not parse\n", child.what.c_str());
        continue;
      }
      merge_child(merged, report, child.gpu, seen.insert(child.gpu).second);
    }
  };
  // Each GPU's child said its rows were done (its report written) or has ended: without host rows, the reports are
  // merged while the processes end (their contexts closing, a tenth of a second or two).
  if (!host_rows) merge_reports(running);
  wait_all(running, done);
  std::fprintf(stderr, "gpubench: node: every GPU's rows and links in %s\n", elapsed(start).c_str());
  if (host_rows) {
    running.push_back(spawn(node, -1, exact_filter(host), "", dir, "host"));
    reaper.watch(running.back().pid);
    wait_all(running, done);
    merge_reports(done);
  }
  if (!merged.contains("context")) {
    // Logs worth reading are kept and named; a node none of whose children started leaves nothing behind.
    if (std::none_of(done.begin(), done.end(), [](const Child& c) { return c.pid > 0; })) {
      std::filesystem::remove_all(dir, error);
      result.message = "node run: no child could be started";
    } else {
      result.message = "node run: no child wrote a report (logs in " + dir + ")";
    }
    return result;
  }
  std::string listed;
  for (int gpu : node.gpus) listed += (listed.empty() ? "" : ",") + std::to_string(gpu);
  merged["context"]["gpubench_devices"] = listed;
  bool links_measured = false;
  for (const auto& row : merged["benchmarks"]) {
    ++result.rows;
    links_measured = links_measured || row.value("name", std::string()).rfind("Peer/", 0) == 0;
    if (row.value("error_occurred", false) && row.value("error_message", std::string()).rfind("skipped: ", 0) != 0)
      ++result.failed;
    // A verified answer read wrong: the SM map's results, the memory test's words, the burn's GEMM elements.
    for (const char* wrong : {"wrong_results", "wrong_words", "wrong_elements"})
      if (row.contains(wrong) && row[wrong].is_number() && row[wrong].get<double>() > 0) {
        result.wrong.push_back(row.value("label", row.value("name", std::string())));
        break;
      }
  }
  merged["context"]["gpubench_node"] =
      links_measured ? "every GPU at once, each then measuring its share of the NVLink pairs (both ways), taking turns"
                     : "every GPU at once";
  std::ofstream out(node.out);
  out << merged.dump(2) << '\n';
  if (!out) {
    result.message = "node run: could not write " + node.out;
    return result;
  }
  std::filesystem::remove_all(dir, error);
  result.signal = g_signal;
  result.ok = true;
  std::fprintf(stderr, "gpubench: node: %d rows of %zu GPUs in %s\n", result.rows, node.gpus.size(),
               elapsed(start).c_str());
  return result;
}

}  // namespace gpubench::app
