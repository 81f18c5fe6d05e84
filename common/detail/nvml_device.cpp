#include "common/detail/nvml_device.h"

#include <chrono>

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

void* nvml_handle_of(int cuda_index, std::string* why) {
  char bus_id[64] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_index) != cudaSuccess) {
    (void)cudaGetLastError();
    *why = "no PCI bus id for CUDA device " + std::to_string(cuda_index);
    return nullptr;
  }
  nvmlDevice_t device = nullptr;
  const nvmlReturn_t status = nvmlDeviceGetHandleByPciBusId_v2(bus_id, &device);
  if (status != NVML_SUCCESS) {
    *why = std::string("NVML has no device at ") + bus_id + ": " + nvmlErrorString(status);
    return nullptr;
  }
  return device;
}

NvmlDevice::NvmlDevice(int cuda_index) {
  nvmlReturn_t status = nvmlInit_v2();
  if (status != NVML_SUCCESS) {
    why_ = std::string("NVML did not start: ") + nvmlErrorString(status);
    return;
  }
  initialized_ = true;
  std::string why;
  const auto device = static_cast<nvmlDevice_t>(nvml_handle_of(cuda_index, &why));
  if (device == nullptr) {
    why_ = why;
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

LoadSample NvmlDevice::load_sample() const {
  LoadSample s;
  s.power = sample();
  if (handle_ == nullptr) return s;
  const auto device = static_cast<nvmlDevice_t>(handle_);
  unsigned int mhz = 0;
  if (nvmlDeviceGetClockInfo(device, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS) s.sm_mhz = mhz;
  if (nvmlDeviceGetClockInfo(device, NVML_CLOCK_MEM, &mhz) == NVML_SUCCESS) s.memory_mhz = mhz;
  nvmlTemperature_t temperature{};
  temperature.version = nvmlTemperature_v1;
  temperature.sensorType = NVML_TEMPERATURE_GPU;
  if (nvmlDeviceGetTemperatureV(device, &temperature) == NVML_SUCCESS) s.temperature_c = temperature.temperature;
  nvmlFieldValue_t field{};
  field.fieldId = NVML_FI_DEV_MEMORY_TEMP;
  if (nvmlDeviceGetFieldValues(device, 1, &field) == NVML_SUCCESS && field.nvmlReturn == NVML_SUCCESS) {
    switch (field.valueType) {
      case NVML_VALUE_TYPE_UNSIGNED_INT: s.memory_temperature_c = static_cast<std::int32_t>(field.value.uiVal); break;
      case NVML_VALUE_TYPE_SIGNED_INT: s.memory_temperature_c = field.value.siVal; break;
      case NVML_VALUE_TYPE_UNSIGNED_LONG: s.memory_temperature_c = static_cast<std::int32_t>(field.value.ulVal); break;
      case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
        s.memory_temperature_c = static_cast<std::int32_t>(field.value.ullVal);
        break;
      case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
        s.memory_temperature_c = static_cast<std::int32_t>(field.value.sllVal);
        break;
      default: break;
    }
  }
  return s;
}

#else

void* nvml_handle_of(int, std::string* why) {
  *why = "this build has no NVML";
  return nullptr;
}

NvmlDevice::NvmlDevice(int) {
  why_ = "this build has no NVML (the CUDA toolkit's nvml.h and CUDA::nvml were not found at configure)";
}

NvmlDevice::~NvmlDevice() = default;

PowerSample NvmlDevice::sample() const {
  PowerSample s;
  s.host_seconds = now_seconds();
  return s;
}

LoadSample NvmlDevice::load_sample() const {
  LoadSample s;
  s.power = sample();
  return s;
}

#endif

}  // namespace gpubench
