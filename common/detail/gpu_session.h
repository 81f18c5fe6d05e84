// The process's one GPU session: the chosen device, its stream, timing events, the cycle-span ring
// and the stream hold. Opened on first use and kept, so no benchmark trial pays for setup.
#pragma once

#include "common/clocks.h"
#include "common/detail/cycle_stats.h"
#include "common/detail/nvml_device.h"
#include "common/detail/stream_hold.h"
#include "common/device_info.h"
#include "common/device_memory.h"
#include "common/launch.h"

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpubench {

// Context keys that describe one GPU besides the gpu_* and cuda_* ones: a node run suffixes them /gpu:N.
inline constexpr const char* kNativeSassKey = "gpubench_native_sass";
inline constexpr const char* kStreamHoldKey = "gpubench_stream_hold";
inline constexpr const char* kOtherProcessesKey = "gpubench_other_gpu_processes";
inline constexpr const char* kOtherProcessesEndKey = "gpubench_other_gpu_processes_end";
inline constexpr const char* kOtherProcessesDuringKey = "gpubench_other_gpu_processes_during";
inline constexpr const char* kGpuHealthKey = "gpubench_health";  // detail/gpu_health.h: start and end readings
inline constexpr const char* kPerGpuContextKeys[] = {
    kNativeSassKey, kStreamHoldKey, kOtherProcessesKey, kOtherProcessesEndKey, kOtherProcessesDuringKey, kGpuHealthKey};

// No usable GPU (none present, no driver, index out of range, no code for its architecture).
class GpuUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Why no GPU can be used (no driver, none present), in one line; "" when CUDA sees at least one.
std::string no_gpu_reason();

// Whether a CMAKE_CUDA_ARCHITECTURES list ("80-real;90a-real;100-virtual") holds SASS, not only PTX,
// that runs on compute capability major.minor: "90", "90-real", "90a" and "90a-real" all do for 9.0.
bool architectures_have_sass_for(const std::string& architectures, int major, int minor);

class GpuSession {
 public:
  // Which GPU the session opens; call before the first get().
  static void select_device(int index);
  static int selected_device();
  // Cold-L2 mode (--gpubench_cold_l2): experiments scrub L2 before every launch.
  static void set_cold_l2(bool cold);
  static bool cold_l2();
  // Opens the session on first use. Throws GpuUnavailable (one line) or CudaError.
  static GpuSession& get();
  // Why no GPU can be used, or nothing when one can (for tests that must skip).
  static std::optional<std::string> unavailable_reason();
  // Releases the device resources; the next get() opens a fresh session.
  static void close();

  const DeviceInfo& device() const { return info_; }
  double calibrated_sm_mhz() const { return calibrated_sm_mhz_; }
  bool runs_native_code() const { return native_code_; }
  // False where launches are synchronous (e.g. under compute-sanitizer): timing then includes
  // submission, and the context says so.
  bool stream_hold_works() const { return stream_hold_works_; }
  cudaStream_t stream() const { return stream_.get(); }
  // NVML's reading of this GPU now (power, energy, limit, clock reasons), or nothing where NVML is
  // missing, refused or not permitted (the session warned once).
  std::optional<PowerSample> power_sample() const;

  // One launch between the start/stop events, with the stream held until both are queued.
  // Returns GPU milliseconds; the kernel stamps span slot `slot`.
  float timed_launch(const Launch& launch, int slot);
  // An untimed launch stamping `slot`, synchronized.
  void untimed_launch(const Launch& launch, int slot);
  int span_capacity() const { return static_cast<int>(spans_.size()); }
  // Adds the first `count` spans to `stats` and re-poisons them; throws if one was not written.
  void collect_spans(int count, CycleStats& stats);

  // Leaves L2 empty (common/l2_scrub.h), so counters of the next launch start from a known cache
  // state, as Nsight Compute's default cache control does.
  void scrub_l2();

  // Adds the device rows to Google Benchmark's context, each key followed by `key_suffix` (a run
  // over several GPUs adds every GPU's, keys ending in /gpu:N). Once per process and suffix.
  void add_benchmark_context(const std::string& key_suffix = {}) const;

 private:
  explicit GpuSession(int index);

  DeviceInfo info_;
  double calibrated_sm_mhz_ = 0.0;
  bool native_code_ = true;
  bool stream_hold_works_ = true;
  Stream stream_;
  Event start_;
  Event stop_;
  DeviceBuffer<CycleSpan> spans_;
  MappedHostValue<HoldFlags> hold_flags_;
  DeviceBuffer<int4> l2_scrub_;  // allocated on first scrub
  DeviceBuffer<int> l2_scrub_sink_;
  std::unique_ptr<NvmlDevice> nvml_;
};

}  // namespace gpubench
