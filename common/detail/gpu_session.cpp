#include "common/detail/gpu_session.h"
#include "common/detail/build_config.h"

#include "common/arg_cache.h"
#include "common/cuda_check.h"
#include "common/detail/l2_scrub.h"
#include "common/detail/run_control.h"
#include "common/detail/sm_clock.h"

#include <benchmark/benchmark.h>

#include <dlfcn.h>

#include <cstdio>
#include <set>
#include <sstream>
#include <vector>

namespace gpubench {
namespace {

int g_selected_device = 0;
// Held by pointer and closed explicitly: freeing CUDA memory during static destruction races the
// runtime's own teardown.
GpuSession* g_session = nullptr;
bool g_cold_l2 = false;
constexpr int kSpanRingSize = 1024;
constexpr std::uint64_t kClockWarmupNs = 30'000'000;  // lets the clock leave its idle state
constexpr std::uint64_t kClockMeasureNs = 20'000'000;

std::string cuda_text(cudaError_t code) {
  return std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) + ")";
}

}  // namespace

std::string no_gpu_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess) return count == 0 ? "no CUDA GPU found on this machine" : "";
  // The runtime says "insufficient driver" also where there is no driver at all: it could not load one.
  if (status == cudaErrorInsufficientDriver && dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) == nullptr)
    return "no usable CUDA GPU: no NVIDIA driver (libcuda.so.1 is not installed or cannot be loaded)";
  return "no usable CUDA GPU: " + cuda_text(status) + "; is an NVIDIA GPU with a CUDA 13 driver present?";
}

namespace {

void check_device_usable(int index) {
  if (const std::string why = no_gpu_reason(); !why.empty()) throw GpuUnavailable(why);
  int count = 0;
  GPUBENCH_CUDA(cudaGetDeviceCount(&count));
  if (index >= count)
    throw GpuUnavailable("GPU " + std::to_string(index) + " requested (--gpubench_device / GPUBENCH_DEVICE) but only " +
                         std::to_string(count) + " CUDA GPU(s) present");
  GPUBENCH_CUDA(cudaSetDevice(index));
  const cudaError_t image = probe_kernel_image();
  if (image != cudaSuccess) {
    cudaGetLastError();
    cudaDeviceProp prop{};
    GPUBENCH_CUDA(cudaGetDeviceProperties(&prop, index));
    throw GpuUnavailable("GPU " + std::to_string(index) + " (" + prop.name + ", sm_" + std::to_string(prop.major) +
                         std::to_string(prop.minor) + ") cannot run this build (built for " +
                         GPUBENCH_CUDA_ARCHITECTURES + "): " + cuda_text(image) +
                         "; reconfigure with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(prop.major) +
                         std::to_string(prop.minor));
  }
}

}  // namespace

bool architectures_have_sass_for(const std::string& architectures, int major, int minor) {
  const std::string arch = std::to_string(major * 10 + minor);
  std::stringstream list(architectures);
  for (std::string entry; std::getline(list, entry, ';');) {
    const std::size_t real = entry.rfind("-real");
    if (real != std::string::npos && real + 5 == entry.size()) entry.erase(real);
    // 90a and 100f: SASS for 9.0 (10.x) with the architecture- or family-specific instructions.
    if (entry == arch || entry == arch + "a" || entry == arch + "f") return true;
  }
  return false;
}

void GpuSession::select_device(int index) { g_selected_device = index; }
int GpuSession::selected_device() { return g_selected_device; }
void GpuSession::set_cold_l2(bool cold) { g_cold_l2 = cold; }
bool GpuSession::cold_l2() { return g_cold_l2; }

GpuSession& GpuSession::get() {
  // A failed open is not cached: every caller gets the same clear error.
  if (g_session == nullptr) g_session = new GpuSession(g_selected_device);
  return *g_session;
}

void GpuSession::close() {
  release_all_arg_caches();  // experiments' device memory goes before the session's
  delete g_session;
  g_session = nullptr;
}

std::optional<std::string> GpuSession::unavailable_reason() {
  try {
    get();
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

GpuSession::GpuSession(int index) : info_((check_device_usable(index), query_device(index))), spans_(kSpanRingSize) {
  native_code_ = architectures_have_sass_for(GPUBENCH_CUDA_ARCHITECTURES, info_.major, info_.minor);
  if (!native_code_)
    std::fprintf(stderr,
                 "gpubench: warning: no SASS for sm_%d%d in this build; the driver JIT-compiles PTX, so "
                 "timings may not match native code. Reconfigure with -DCMAKE_CUDA_ARCHITECTURES=%d%d.\n",
                 info_.major, info_.minor, info_.major, info_.minor);
  spans_.fill_bytes(0, stream_.get());
  hold_flags_.host()->timed_out = 0;
  stream_hold_works_ = probe_stream_hold(stream_.get(), hold_flags_);
  if (!stream_hold_works_)
    std::fprintf(stderr,
                 "gpubench: warning: kernel launches are synchronous here (a tool such as compute-sanitizer?); "
                 "times include launch submission\n");
  nvml_ = std::make_unique<NvmlDevice>(index);
  static bool warned_power = false;  // once per process, whichever GPU
  if (const auto& why = nvml_->unavailable(); why && !warned_power) {
    warned_power = true;
    std::fprintf(stderr, "gpubench: warning: rows carry no power, power limit or throttle reasons: %s\n", why->c_str());
  }
  measure_sm_clock_mhz(stream_.get(), info_.sm_count, kClockWarmupNs);
  calibrated_sm_mhz_ = measure_sm_clock_mhz(stream_.get(), info_.sm_count, kClockMeasureNs);
}

std::optional<PowerSample> GpuSession::power_sample() const {
  if (!nvml_ || nvml_->unavailable()) return std::nullopt;
  const detail::TimedPart timed("NVML reads");
  return nvml_->sample();
}

float GpuSession::timed_launch(const Launch& launch, int slot) {
  {
    std::optional<StreamHold> hold;
    if (stream_hold_works_) hold.emplace(stream_.get(), hold_flags_);
    GPUBENCH_CUDA(cudaEventRecord(start_.get(), stream_.get()));
    launch(stream_.get(), Clocks{spans_.data() + slot});
    GPUBENCH_CUDA_LAUNCHED();
    GPUBENCH_CUDA(cudaEventRecord(stop_.get(), stream_.get()));
  }
  GPUBENCH_CUDA(cudaEventSynchronize(stop_.get()));
  if (hold_flags_.host()->timed_out) {
    hold_flags_.host()->timed_out = 0;
    std::fprintf(stderr, "gpubench: warning: the stream hold timed out; that launch's time includes submission\n");
  }
  float ms = 0.0f;
  GPUBENCH_CUDA(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
  return ms;
}

void GpuSession::untimed_launch(const Launch& launch, int slot) {
  launch(stream_.get(), Clocks{spans_.data() + slot});
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream_.get()));
}

void GpuSession::collect_spans(int count, CycleStats& stats) {
  if (count == 0) return;
  const std::vector<CycleSpan> spans = spans_.download(static_cast<std::size_t>(count), stream_.get());
  for (const CycleSpan& span : spans) {
    if (span.stop_clock == 0)
      throw std::runtime_error("the kernel did not record its cycle span (it must call clocks.end())");
    stats.add(span);
  }
  GPUBENCH_CUDA(cudaMemsetAsync(spans_.data(), 0, count * sizeof(CycleSpan), stream_.get()));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream_.get()));
}

void GpuSession::scrub_l2() {
  const detail::TimedPart timed("L2 scrubs");
  if (l2_scrub_.size() == 0) {
    l2_scrub_ = DeviceBuffer<int4>(2 * info_.l2_bytes / sizeof(int4));
    l2_scrub_.fill_bytes(0, stream_.get());
    l2_scrub_sink_ = DeviceBuffer<int>(1);
  }
  launch_l2_scrub(l2_scrub_.data(), l2_scrub_.size(), l2_scrub_sink_.data(), info_.sm_count, stream_.get());
  GPUBENCH_CUDA(cudaStreamSynchronize(stream_.get()));
}

void GpuSession::add_benchmark_context(const std::string& key_suffix) const {
  static std::set<std::string> added;
  if (!added.insert(key_suffix).second) return;
  for (const auto& [key, value] : device_context(info_, calibrated_sm_mhz_))
    benchmark::AddCustomContext(key + key_suffix, value);
  benchmark::AddCustomContext(kNativeSassKey + key_suffix, native_code_ ? "yes" : "no (PTX JIT)");
  benchmark::AddCustomContext(kStreamHoldKey + key_suffix, stream_hold_works_ ? "yes" : "no (synchronous launches)");
  if (added.size() > 1) return;  // the rest is the run's, not a GPU's
  benchmark::AddCustomContext("gpubench_cuda_architectures", GPUBENCH_CUDA_ARCHITECTURES);
  benchmark::AddCustomContext("gpubench_cold_l2", g_cold_l2 ? "yes (L2 emptied before every launch)" : "no");
}

}  // namespace gpubench
