// Other processes on the GPUs all through a run, not only at its start and end: NVML's list of compute
// processes, read every few hundred milliseconds on a thread of its own. A process that came and went inside
// the run (a job's matmul between two rows) is named with when it was seen and the rows it overlapped.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::detail {

struct SeenProcess {
  long pid = 0;
  std::string name;
  double first_s = 0.0;  // seconds into the run, first and last sample that held it
  double last_s = 0.0;
  unsigned long long most_memory_mib = 0;
};

class ProcessSampler {
 public:
  // Watches CUDA devices `devices` (by their PCI bus ids) every `period_s`; `ours(pid)` leaves out this run's
  // own processes. Never throws: without NVML, unavailable() says why and nothing is watched.
  ProcessSampler(const std::vector<int>& devices, std::function<bool(long)> ours, double period_s = 0.25);
  ~ProcessSampler();
  ProcessSampler(const ProcessSampler&) = delete;
  ProcessSampler& operator=(const ProcessSampler&) = delete;

  // Ends the watch (idempotent); what was seen stays.
  void stop();
  const std::optional<std::string>& unavailable() const;
  // What was seen on `device`, in the order first seen.
  std::vector<SeenProcess> seen(int device) const;
  int samples() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// "none", "unknown (why)", or "1 (pid 4242 python3 from 6.1 s to 20.3 s of the run, 30 rows from
// Stream/read/... to TensorCore/...)": `rows` are (seconds into the run a row started, its name).
std::string describe_seen(const std::vector<SeenProcess>& seen, const std::vector<std::pair<double, std::string>>& rows,
                          const std::optional<std::string>& unavailable);

// The compute processes on CUDA device `device` now, less `ours` (NVML, started for the call: the one way gpubench
// lists another process on a GPU, at a run's start and end as through it); nullopt, with `why`, where NVML cannot say.
std::optional<std::vector<SeenProcess>> processes_now(int device, const std::function<bool(long)>& ours,
                                                      std::string* why);

// Whether the process ids the driver lists on a GPU (`listed`) are of another PID namespace than this process's: the
// driver names processes by the host's ids, which a container's own namespace does not hold. So when this process
// (`own`, holding a context on the GPU) is not among them and some listed id is no process here (`exists_here`), no
// listed id can be told this run's or another's.
bool pids_of_another_namespace(const std::vector<long>& listed, long own, const std::function<bool(long)>& exists_here);

// The GPUs the driver itself counts (NVML), or nothing where NVML cannot say: set against CUDA's count, a GPU
// the driver lists and CUDA does not open is a GPU the node has lost.
std::optional<int> driver_gpu_count();

}  // namespace gpubench::detail
