#include "app/node_run.h"

#include "app/gpu_processes.h"
#include "app/node_schedule.h"
#include "app/selection.h"
#include "common/detail/gpu_session.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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

std::string tag(int gpu) { return "/gpu:" + std::to_string(gpu); }

struct Child {
  pid_t pid = -1;  // -1: it could not be started (`failure` says why)
  int gpu = -1;    // -1: the host rows
  std::string json, log, what, failure;
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

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Starts one child: everything it needs is built here, in the parent; posix_spawn runs nothing of ours in the child
// before exec. Its output goes to its log, its input is /dev/null, its signals are the defaults.
Child spawn(const NodeRun& node, int gpu, const std::string& filter, const std::string& peers, const std::string& dir,
            const std::string& name) {
  Child child;
  child.gpu = gpu;
  child.json = dir + "/" + name + ".json";
  child.log = dir + "/" + name + ".log";
  child.what = name;
  std::vector<std::string> argv = {node.binary};
  argv.insert(argv.end(), node.args.begin(), node.args.end());
  argv.push_back("--gpubench_device=" + std::to_string(gpu < 0 ? node.gpus.front() : gpu));
  if (!peers.empty()) argv.push_back("--gpubench_peers=" + peers);
  argv.push_back("--benchmark_filter=" + filter);
  argv.push_back("--benchmark_out=" + child.json);
  argv.push_back("--benchmark_out_format=json");
  argv.push_back("--gpubench_card=none");
  std::vector<std::string> env = child_environment();
  std::vector<char*> args = pointers(argv), envp = pointers(env);

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, child.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  {
    const InterruptsBlocked blocked;
    const int error = g_running_count < kMaxChildren
                          ? posix_spawn(&child.pid, args[0], &files, &attributes, args.data(), envp.data())
                          : EAGAIN;
    if (error != 0) {
      child.pid = -1;
      child.failure = std::string("could not be started: ") + std::strerror(error);
    } else {
      g_running[g_running_count] = child.pid;
      g_running_count = g_running_count + 1;
    }
  }
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&files);
  // A signal that came while the spawn was blocked is handled now; the child is registered and gets it too.
  if (g_signal != 0 && child.pid > 0) kill(child.pid, g_signal);
  return child;
}

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
    int status = 0;
    while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
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
      } else if (first_of_gpu || key == kOtherProcessesEndKey) {
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
  struct sigaction action {
  }, old_int{}, old_term{};
  action.sa_handler = remember;
  sigaction(SIGINT, &action, &old_int);
  sigaction(SIGTERM, &action, &old_term);
  const auto start = std::chrono::steady_clock::now();

  std::vector<Child> running, done;
  std::map<int, std::vector<std::string>> per_gpu;
  for (int gpu : node.gpus) per_gpu[gpu] = rows_of_gpu(node.selected, gpu, false);
  std::fprintf(stderr, "gpubench: node: %zu GPUs at once (one process each), then NVLink in rounds of disjoint pairs\n",
               node.gpus.size());
  for (int gpu : node.gpus)
    if (!per_gpu[gpu].empty())
      running.push_back(spawn(node, gpu, exact_filter(per_gpu[gpu]), "", dir, "gpu" + std::to_string(gpu)));
  wait_all(running, done);
  std::fprintf(stderr, "gpubench: node: every GPU's rows in %s\n", elapsed(start).c_str());

  // The Peer cases the parent selected, run for every ordered pair.
  std::set<std::string> peer_cases;
  for (const std::string& name : node.selected)
    if (name.rfind("Peer/", 0) == 0) peer_cases.insert(name.substr(0, name.find('/', 5)));
  if (!peer_cases.empty() && node.gpus.size() > 1 && g_signal == 0) {
    std::string cases;
    for (const std::string& c : peer_cases) cases += (cases.empty() ? "" : "|") + c;
    const std::string filter = "^(" + cases + ")/";
    const auto rounds = round_robin(node.gpus);
    int index = 0;
    for (const auto& round : rounds) {
      ++index;
      if (g_signal != 0) break;
      // One child a pair: from its GPU it copies to the peer, from the peer and both ways at once (each pair is
      // measured once), and chases a list in the peer's memory.
      for (const auto& [a, b] : round)
        running.push_back(
            spawn(node, a, filter, std::to_string(b), dir,
                  "peer-r" + std::to_string(index) + "-" + std::to_string(a) + "with" + std::to_string(b)));
      wait_all(running, done);
    }
    std::fprintf(stderr, "gpubench: node: every NVLink pair in %zu round(s), %s in all\n", rounds.size(),
                 elapsed(start).c_str());
  }
  std::vector<std::string> host;
  for (const std::string& name : host_only(node.selected))
    if (name.find("/gpu:") == std::string::npos) host.push_back(name);
  if (!host.empty() && g_signal == 0) {
    running.push_back(spawn(node, -1, exact_filter(host), "", dir, "host"));
    wait_all(running, done);
  }

  nlohmann::ordered_json merged;
  std::set<int> seen;
  for (const Child& child : done) {
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
  if (!merged.contains("context")) {
    result.message = "node run: no child wrote a report (logs in " + dir + ")";
    return result;
  }
  std::string listed;
  for (int gpu : node.gpus) listed += (listed.empty() ? "" : ",") + std::to_string(gpu);
  merged["context"]["gpubench_devices"] = listed;
  merged["context"]["gpubench_node"] =
      "every GPU at once, then every NVLink pair (both ways) in rounds of disjoint pairs";
  for (const auto& row : merged["benchmarks"]) {
    ++result.rows;
    if (row.value("error_occurred", false) && row.value("error_message", std::string()).rfind("skipped: ", 0) != 0)
      ++result.failed;
    if (row.contains("wrong_results") && row["wrong_results"].is_number() && row["wrong_results"].get<double>() > 0)
      result.wrong.push_back(row.value("label", row.value("name", std::string())));
  }
  std::ofstream out(node.out);
  out << merged.dump(2) << '\n';
  if (!out) {
    result.message = "node run: could not write " + node.out;
    return result;
  }
  std::filesystem::remove_all(dir, error);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  result.signal = g_signal;
  result.ok = true;
  std::fprintf(stderr, "gpubench: node: %d rows of %zu GPUs in %s\n", result.rows, node.gpus.size(),
               elapsed(start).c_str());
  return result;
}

}  // namespace gpubench::app
