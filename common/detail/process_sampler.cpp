#include "common/detail/process_sampler.h"

#include "common/detail/nvml_device.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>

#include <unistd.h>

#if GPUBENCH_HAVE_NVML
#include <cuda_runtime_api.h>
#include <nvml.h>
#endif

namespace gpubench::detail {
namespace {

#if GPUBENCH_HAVE_NVML
std::string process_name(long pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

// The compute processes NVML lists on `handle` now, less `ours`: (pid, MiB); false, with `why`, where NVML could not
// list them or their ids are of another PID namespace.
bool list_processes(void* handle, const std::function<bool(long)>& ours,
                    std::vector<std::pair<long, unsigned long long>>& found, std::string* why) {
  nvmlProcessInfo_t infos[64];
  unsigned int count = 64;
  if (nvmlDeviceGetComputeRunningProcesses(static_cast<nvmlDevice_t>(handle), &count, infos) != NVML_SUCCESS) {
    *why = "NVML could not list its processes";
    return false;
  }
  std::vector<long> listed;
  for (unsigned int k = 0; k < count; ++k) listed.push_back(static_cast<long>(infos[k].pid));
  if (pids_of_another_namespace(listed, static_cast<long>(getpid()),
                                [](long pid) { return access(("/proc/" + std::to_string(pid)).c_str(), F_OK) == 0; })) {
    *why = "the driver lists " + std::to_string(count) +
           " process(es) by ids of another PID namespace (a container's host): which are this run's cannot be told";
    return false;
  }
  for (unsigned int k = 0; k < count; ++k) {
    const long pid = static_cast<long>(infos[k].pid);
    if (pid <= 0 || ours(pid)) continue;
    const unsigned long long bytes = infos[k].usedGpuMemory;
    found.emplace_back(pid, bytes == NVML_VALUE_NOT_AVAILABLE ? 0 : bytes / (1024ull * 1024ull));
  }
  return true;
}

// NVML's handle of CUDA device `device`, or null.
void* handle_of(int device) {
  std::string why;
  return nvml_handle_of(device, &why);
}
#endif

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", s);
  return text;
}

}  // namespace

struct ProcessSampler::State {
  std::function<bool(long)> ours;
  std::optional<std::string> unavailable;
  std::vector<int> devices;
  std::vector<void*> handles;  // nvmlDevice_t, by position in `devices`
  bool nvml_started = false;
  mutable std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::map<int, std::vector<SeenProcess>> seen;
  int samples = 0;
  std::thread thread;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

#if GPUBENCH_HAVE_NVML

ProcessSampler::ProcessSampler(const std::vector<int>& devices, std::function<bool(long)> ours, double period_s)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.ours = std::move(ours);
  s.devices = devices;
  if (nvmlInit_v2() != NVML_SUCCESS) {
    s.unavailable = "NVML did not start";
    return;
  }
  s.nvml_started = true;
  for (int device : devices) {
    void* handle = handle_of(device);
    if (handle == nullptr) {
      s.unavailable = "NVML has no device for CUDA device " + std::to_string(device);
      return;
    }
    s.handles.push_back(handle);
  }
  const auto period = std::chrono::duration<double>(period_s);
  s.thread = std::thread([this, period] {
    State& st = *state_;
    std::unique_lock<std::mutex> lock(st.mutex);
    while (!st.stopping) {
      const double at = std::chrono::duration<double>(std::chrono::steady_clock::now() - st.start).count();
      for (std::size_t i = 0; i < st.handles.size(); ++i) {
        std::vector<std::pair<long, unsigned long long>> now;
        std::string why;
        if (!list_processes(st.handles[i], st.ours, now, &why)) {
          if (!st.unavailable) st.unavailable = why;
          continue;
        }
        auto& list = st.seen[st.devices[i]];
        for (const auto& entry : now) {
          const long pid = entry.first;
          const unsigned long long mib = entry.second;
          auto found = std::find_if(list.begin(), list.end(), [pid](const SeenProcess& p) { return p.pid == pid; });
          if (found == list.end()) {
            list.push_back(SeenProcess{pid, process_name(pid), at, at, mib});
          } else {
            found->last_s = at;
            found->most_memory_mib = std::max(found->most_memory_mib, mib);
          }
        }
      }
      ++st.samples;
      st.wake.wait_for(lock, period, [&st] { return st.stopping; });
    }
  });
}

#else

ProcessSampler::ProcessSampler(const std::vector<int>& devices, std::function<bool(long)> ours, double)
    : state_(std::make_unique<State>()) {
  state_->devices = devices;
  state_->ours = std::move(ours);
  state_->unavailable = "this build has no NVML";
}

#endif

void ProcessSampler::stop() {
  State& s = *state_;
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.stopping = true;
  }
  s.wake.notify_all();
  if (s.thread.joinable()) s.thread.join();
#if GPUBENCH_HAVE_NVML
  if (s.nvml_started) nvmlShutdown();
#endif
  s.nvml_started = false;
}

ProcessSampler::~ProcessSampler() { stop(); }

const std::optional<std::string>& ProcessSampler::unavailable() const { return state_->unavailable; }

std::vector<SeenProcess> ProcessSampler::seen(int device) const {
  const std::lock_guard<std::mutex> lock(state_->mutex);
  const auto found = state_->seen.find(device);
  return found == state_->seen.end() ? std::vector<SeenProcess>() : found->second;
}

int ProcessSampler::samples() const {
  const std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->samples;
}

std::string describe_seen(const std::vector<SeenProcess>& seen, const std::vector<std::pair<double, std::string>>& rows,
                          const std::optional<std::string>& unavailable) {
  if (unavailable) return "unknown (" + *unavailable + ")";
  if (seen.empty()) return "none";
  std::string text = std::to_string(seen.size()) + " (";
  for (std::size_t i = 0; i < seen.size(); ++i) {
    const SeenProcess& p = seen[i];
    // The rows it overlapped: those that started before it was last seen and ended after it was first seen.
    std::vector<std::string> overlapped;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const double begin = rows[r].first;
      const double end = r + 1 < rows.size() ? rows[r + 1].first : 1e300;
      if (begin <= p.last_s && end >= p.first_s) overlapped.push_back(rows[r].second);
    }
    text += (i ? "; " : "") + std::string("pid ") + std::to_string(p.pid) + (p.name.empty() ? "" : " " + p.name);
    if (p.most_memory_mib) text += " " + std::to_string(p.most_memory_mib) + " MiB";
    text += " from " + seconds_text(p.first_s) + " to " + seconds_text(p.last_s) + " of the run";
    if (overlapped.size() == 1) text += ", row " + overlapped.front();
    if (overlapped.size() > 1)
      text +=
          ", " + std::to_string(overlapped.size()) + " rows from " + overlapped.front() + " to " + overlapped.back();
  }
  return text + ")";
}

std::optional<std::vector<SeenProcess>> processes_now(int device, const std::function<bool(long)>& ours,
                                                      std::string* why) {
#if GPUBENCH_HAVE_NVML
  if (nvmlInit_v2() != NVML_SUCCESS) {
    *why = "NVML did not start";
    return std::nullopt;
  }
  std::optional<std::vector<SeenProcess>> found;
  std::vector<std::pair<long, unsigned long long>> now;
  void* handle = handle_of(device);
  if (handle == nullptr) {
    *why = "NVML has no device for CUDA device " + std::to_string(device);
  } else if (list_processes(handle, ours, now, why)) {
    found.emplace();
    for (const auto& entry : now)
      found->push_back(SeenProcess{entry.first, process_name(entry.first), 0, 0, entry.second});
  }
  nvmlShutdown();
  return found;
#else
  (void)device;
  (void)ours;
  *why = "this build has no NVML";
  return std::nullopt;
#endif
}

bool pids_of_another_namespace(const std::vector<long>& listed, long own,
                               const std::function<bool(long)>& exists_here) {
  return std::find(listed.begin(), listed.end(), own) == listed.end() &&
         std::any_of(listed.begin(), listed.end(), [&](long pid) { return pid > 0 && !exists_here(pid); });
}

std::optional<int> driver_gpu_count() {
#if GPUBENCH_HAVE_NVML
  if (nvmlInit_v2() != NVML_SUCCESS) return std::nullopt;
  unsigned int count = 0;
  const bool ok = nvmlDeviceGetCount_v2(&count) == NVML_SUCCESS;
  nvmlShutdown();
  if (ok) return static_cast<int>(count);
#endif
  return std::nullopt;
}

}  // namespace gpubench::detail
