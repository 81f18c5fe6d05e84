#include "common/detail/nvml_device.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#if GPUBENCH_HAVE_NVML
#include <cuda_runtime_api.h>
#include <nvml.h>
#endif

namespace gpubench {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

#if GPUBENCH_HAVE_NVML

NvmlDevice::NvmlDevice(int cuda_index) {
  nvmlReturn_t status = nvmlInit_v2();
  if (status != NVML_SUCCESS) {
    why_ = std::string("NVML did not start: ") + nvmlErrorString(status);
    return;
  }
  initialized_ = true;
  char bus_id[64] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_index) != cudaSuccess) {
    (void)cudaGetLastError();
    why_ = "no PCI bus id for CUDA device " + std::to_string(cuda_index);
    return;
  }
  nvmlDevice_t device = nullptr;
  status = nvmlDeviceGetHandleByPciBusId_v2(bus_id, &device);
  if (status != NVML_SUCCESS) {
    why_ = std::string("NVML has no device at ") + bus_id + ": " + nvmlErrorString(status);
    return;
  }
  handle_ = device;
  unsigned long long energy = 0;
  unsigned int power = 0;
  const nvmlReturn_t energy_status = nvmlDeviceGetTotalEnergyConsumption(device, &energy);
  const nvmlReturn_t power_status = nvmlDeviceGetPowerUsage(device, &power);
  if (energy_status != NVML_SUCCESS && power_status != NVML_SUCCESS)
    why_ = std::string("NVML reads neither energy nor power on this GPU: ") + nvmlErrorString(energy_status);
}

NvmlDevice::~NvmlDevice() {
  if (initialized_) nvmlShutdown();
}

PowerSample NvmlDevice::sample() const {
  PowerSample s;
  s.host_seconds = now_seconds();
  if (handle_ == nullptr) return s;
  const auto device = static_cast<nvmlDevice_t>(handle_);
  unsigned long long energy = 0, reasons = 0;
  unsigned int power = 0, limit = 0;
  if (nvmlDeviceGetTotalEnergyConsumption(device, &energy) == NVML_SUCCESS) s.energy_mj = energy;
  if (nvmlDeviceGetPowerUsage(device, &power) == NVML_SUCCESS) s.power_mw = power;
  if (nvmlDeviceGetEnforcedPowerLimit(device, &limit) == NVML_SUCCESS) s.limit_mw = limit;
  if (nvmlDeviceGetCurrentClocksEventReasons(device, &reasons) == NVML_SUCCESS) s.reasons = reasons;
  nvmlViolationTime_t violation{};
  if (nvmlDeviceGetViolationStatus(device, NVML_PERF_POLICY_POWER, &violation) == NVML_SUCCESS)
    s.power_violation_ns = violation.violationTime;
  if (nvmlDeviceGetViolationStatus(device, NVML_PERF_POLICY_THERMAL, &violation) == NVML_SUCCESS)
    s.thermal_violation_ns = violation.violationTime;
  return s;
}

std::optional<std::uint32_t> NvmlDevice::instant_power_mw() const {
#ifdef NVML_FI_DEV_POWER_INSTANT
  if (handle_ == nullptr) return std::nullopt;
  nvmlFieldValue_t field{};
  field.fieldId = NVML_FI_DEV_POWER_INSTANT;
  if (nvmlDeviceGetFieldValues(static_cast<nvmlDevice_t>(handle_), 1, &field) != NVML_SUCCESS ||
      field.nvmlReturn != NVML_SUCCESS)
    return std::nullopt;
  return field.value.uiVal;
#else
  return std::nullopt;
#endif
}

#else

NvmlDevice::NvmlDevice(int) {
  why_ = "this build has no NVML (the CUDA toolkit's nvml.h and CUDA::nvml were not found at configure)";
}

NvmlDevice::~NvmlDevice() = default;

PowerSample NvmlDevice::sample() const {
  PowerSample s;
  s.host_seconds = now_seconds();
  return s;
}

std::optional<std::uint32_t> NvmlDevice::instant_power_mw() const { return std::nullopt; }

#endif

struct InstantPowerSampler::State {
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  InstantPower readings;
  std::thread thread;
};

InstantPowerSampler::InstantPowerSampler(const NvmlDevice* device, double period_seconds)
    : state_(std::make_unique<State>()) {
  if (device == nullptr || device->unavailable() || !device->instant_power_mw()) return;
  State* state = state_.get();
  state->thread = std::thread([state, device, period_seconds] {
    const auto period = std::chrono::duration<double>(period_seconds);
    std::unique_lock<std::mutex> lock(state->mutex);
    while (!state->wake.wait_for(lock, period, [state] { return state->stopping; })) {
      lock.unlock();
      const std::optional<std::uint32_t> mw = device->instant_power_mw();
      lock.lock();
      if (!mw) continue;
      state->readings.sum_mw += *mw;
      ++state->readings.samples;
    }
  });
}

InstantPower InstantPowerSampler::stop() {
  if (state_->thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->stopping = true;
    }
    state_->wake.notify_all();
    state_->thread.join();
  }
  return state_->readings;
}

InstantPowerSampler::~InstantPowerSampler() { stop(); }

}  // namespace gpubench
