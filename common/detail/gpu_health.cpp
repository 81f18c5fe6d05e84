#include "common/detail/gpu_health.h"

#include "common/detail/nvml_device.h"
#include "common/pcie_link.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <cuda_runtime_api.h>

#if GPUBENCH_HAVE_NVML
#include <nvml.h>
#endif

namespace gpubench::detail {
namespace {

#if GPUBENCH_HAVE_NVML
// The clock-event reasons that say the hardware held the clocks down (not the power cap software keeps).
nlohmann::ordered_json reason_names(unsigned long long reasons) {
  static const std::pair<unsigned long long, const char*> names[] = {
      {nvmlClocksThrottleReasonHwSlowdown, "hw_slowdown"},
      {nvmlClocksThrottleReasonHwThermalSlowdown, "hw_thermal"},
      {nvmlClocksThrottleReasonHwPowerBrakeSlowdown, "hw_power_brake"},
      {nvmlClocksThrottleReasonSwThermalSlowdown, "sw_thermal"},
      {nvmlClocksThrottleReasonSwPowerCap, "sw_power_cap"}};
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& [bit, name] : names)
    if (reasons & bit) out.push_back(name);
  return out;
}

void read_nvml(nvmlDevice_t device, nlohmann::ordered_json& r) {
  nvmlEnableState_t current = NVML_FEATURE_DISABLED, pending = NVML_FEATURE_DISABLED;
  if (nvmlDeviceGetEccMode(device, &current, &pending) == NVML_SUCCESS) r["ecc_mode"] = current == NVML_FEATURE_ENABLED;
  const std::pair<nvmlMemoryErrorType_t, const char*> types[] = {{NVML_MEMORY_ERROR_TYPE_UNCORRECTED, "uncorrected"},
                                                                 {NVML_MEMORY_ERROR_TYPE_CORRECTED, "corrected"}};
  const std::pair<nvmlEccCounterType_t, const char*> counters[] = {{NVML_VOLATILE_ECC, "volatile"},
                                                                   {NVML_AGGREGATE_ECC, "aggregate"}};
  for (const auto& [type, type_name] : types)
    for (const auto& [counter, counter_name] : counters) {
      unsigned long long count = 0;
      if (nvmlDeviceGetTotalEccErrors(device, type, counter, &count) == NVML_SUCCESS)
        r[std::string("ecc_") + type_name + "_" + counter_name] = count;
    }
  const std::pair<nvmlPageRetirementCause_t, const char*> causes[] = {
      {NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, "retired_pages_sbe"},
      {NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, "retired_pages_dbe"}};
  for (const auto& [cause, name] : causes) {
    unsigned int count = 0;
    const nvmlReturn_t status = nvmlDeviceGetRetiredPages(device, cause, &count, nullptr);
    if (status == NVML_SUCCESS || status == NVML_ERROR_INSUFFICIENT_SIZE) r[name] = count;
  }
  nvmlEnableState_t retirement = NVML_FEATURE_DISABLED;
  if (nvmlDeviceGetRetiredPagesPendingStatus(device, &retirement) == NVML_SUCCESS)
    r["retirement_pending"] = retirement == NVML_FEATURE_ENABLED;
  unsigned int correctable = 0, uncorrectable = 0, remap_pending = 0, remap_failed = 0;
  if (nvmlDeviceGetRemappedRows(device, &correctable, &uncorrectable, &remap_pending, &remap_failed) == NVML_SUCCESS) {
    r["remapped_rows_correctable"] = correctable;
    r["remapped_rows_uncorrectable"] = uncorrectable;
    r["remap_pending"] = remap_pending != 0;
    r["remap_failed"] = remap_failed != 0;
  }
  nvmlRowRemapperHistogramValues_t histogram{};
  if (nvmlDeviceGetRowRemapperHistogram(device, &histogram) == NVML_SUCCESS)
    r["remap_banks_none_left"] = histogram.none;
  int read = 0, active = 0;
  nlohmann::ordered_json crc_by_link = nlohmann::ordered_json::array();  // DCGM judges a link's CRC rate, not the sum
  unsigned long long errors[4] = {};
  bool counted[4] = {};
  const nvmlNvLinkErrorCounter_t kinds[4] = {NVML_NVLINK_ERROR_DL_CRC_FLIT, NVML_NVLINK_ERROR_DL_CRC_DATA,
                                             NVML_NVLINK_ERROR_DL_REPLAY, NVML_NVLINK_ERROR_DL_RECOVERY};
  for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t state = NVML_FEATURE_DISABLED;
    if (nvmlDeviceGetNvLinkState(device, link, &state) != NVML_SUCCESS) continue;
    ++read;
    if (state == NVML_FEATURE_ENABLED) ++active;
    unsigned long long crc = 0;
    for (int k = 0; k < 4; ++k) {
      unsigned long long value = 0;
      if (nvmlDeviceGetNvLinkErrorCounter(device, link, kinds[k], &value) == NVML_SUCCESS) {
        errors[k] += value;
        counted[k] = true;
        if (k < 2) crc += value;
      }
    }
    crc_by_link.push_back(crc);
  }
  if (counted[0] || counted[1]) r["nvlink_crc_by_link"] = crc_by_link;
  r["nvlinks_read"] = read;
  r["nvlinks_active"] = active;
  const char* error_names[4] = {"nvlink_crc_flit", "nvlink_crc_data", "nvlink_replay", "nvlink_recovery"};
  for (int k = 0; k < 4; ++k)
    if (counted[k]) r[error_names[k]] = errors[k];
  unsigned int value = 0;
  if (nvmlDeviceGetCurrPcieLinkGeneration(device, &value) == NVML_SUCCESS) r["pcie_gen"] = value;
  if (nvmlDeviceGetCurrPcieLinkWidth(device, &value) == NVML_SUCCESS) r["pcie_width"] = value;
  if (nvmlDeviceGetMaxPcieLinkGeneration(device, &value) == NVML_SUCCESS) r["pcie_gen_max"] = value;
  if (nvmlDeviceGetGpuMaxPcieLinkGeneration(device, &value) == NVML_SUCCESS) r["pcie_gen_max_gpu"] = value;
  if (nvmlDeviceGetMaxPcieLinkWidth(device, &value) == NVML_SUCCESS) r["pcie_width_max"] = value;
  if (nvmlDeviceGetPcieReplayCounter(device, &value) == NVML_SUCCESS) r["pcie_replays"] = value;
  unsigned long long reasons = 0;
  if (nvmlDeviceGetCurrentClocksEventReasons(device, &reasons) == NVML_SUCCESS) {
    r["clock_event_reasons"] = reasons;
    r["clock_event_names"] = reason_names(reasons);
  }
  nvmlEnableState_t persistence = NVML_FEATURE_DISABLED;
  if (nvmlDeviceGetPersistenceMode(device, &persistence) == NVML_SUCCESS)
    r["persistence_mode"] = persistence == NVML_FEATURE_ENABLED;
  char text[96] = {};
  if (nvmlSystemGetDriverVersion(text, sizeof text) == NVML_SUCCESS) r["driver"] = text;
  if (nvmlDeviceGetVbiosVersion(device, text, sizeof text) == NVML_SUCCESS) r["vbios"] = text;
  nvmlGpuFabricInfo_v2_t fabric{};
  fabric.version = nvmlGpuFabricInfo_v2;
  if (nvmlDeviceGetGpuFabricInfoV(device, reinterpret_cast<nvmlGpuFabricInfoV_t*>(&fabric)) == NVML_SUCCESS &&
      fabric.state != NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) {
    r["fabric_state"] = fabric.state == NVML_GPU_FABRIC_STATE_COMPLETED     ? "completed"
                        : fabric.state == NVML_GPU_FABRIC_STATE_IN_PROGRESS ? "in_progress"
                                                                            : "not_started";
    if (fabric.state == NVML_GPU_FABRIC_STATE_COMPLETED) r["fabric_status"] = nvmlErrorString(fabric.status);
  }
}
#endif

// "0000:18:00.0" -> "0000:18:00", as the kernel's Xid lines name a GPU.
std::string xid_bus_id(const std::string& bus_id) {
  std::string lowered;
  for (char c : bus_id) lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto dot = lowered.rfind('.');
  return dot == std::string::npos ? lowered : lowered.substr(0, dot);
}

nlohmann::ordered_json value_of(const std::string& text) {
  if (text == "true" || text == "false") return text == "true";
  char* end = nullptr;
  const long long number = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && end && *end == '\0') return number;
  return text;
}

}  // namespace

nlohmann::ordered_json read_health(int cuda_index) {
  nlohmann::ordered_json reading = nlohmann::ordered_json::object();
  reading["unix_seconds"] =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();  // counters' rates
  char bus_id[64] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_index) == cudaSuccess) reading["pci_bus_id"] = bus_id;
  (void)cudaGetLastError();
#if GPUBENCH_HAVE_NVML
  const nvmlReturn_t started = nvmlInit_v2();
  if (started != NVML_SUCCESS) return {{"unavailable", std::string("NVML did not start: ") + nvmlErrorString(started)}};
  std::string why;
  if (auto device = static_cast<nvmlDevice_t>(nvml_handle_of(cuda_index, &why))) {
    read_nvml(device, reading);
  } else {
    reading["unavailable"] = why;
  }
  nvmlShutdown();
#else
  (void)cuda_index;
  reading["unavailable"] = "this build has no NVML";
#endif
  return reading;
}

struct XidWatch::State {
  void* set = nullptr;  // nvmlEventSet_t
  bool started = false;
  std::string why;
  nlohmann::ordered_json xids = nlohmann::ordered_json::array();
};

XidWatch::XidWatch(int cuda_index) : state_(std::make_unique<State>()) {
#if GPUBENCH_HAVE_NVML
  if (nvmlInit_v2() != NVML_SUCCESS) {
    state_->why = "NVML did not start";
    return;
  }
  state_->started = true;
  const auto device = static_cast<nvmlDevice_t>(nvml_handle_of(cuda_index, &state_->why));
  nvmlEventSet_t set = nullptr;
  if (device == nullptr) return;
  if (nvmlEventSetCreate(&set) != NVML_SUCCESS) {
    state_->why = "NVML made no event set";
    return;
  }
  const nvmlReturn_t status = nvmlDeviceRegisterEvents(device, nvmlEventTypeXidCriticalError, set);
  if (status != NVML_SUCCESS) {
    state_->why = std::string("NVML reports no Xid events here: ") + nvmlErrorString(status);
    nvmlEventSetFree(set);
    return;
  }
  state_->set = set;
#else
  (void)cuda_index;
  state_->why = "this build has no NVML";
#endif
}

XidWatch::~XidWatch() {
#if GPUBENCH_HAVE_NVML
  if (state_->set) nvmlEventSetFree(static_cast<nvmlEventSet_t>(state_->set));
  if (state_->started) nvmlShutdown();
#endif
}

nlohmann::ordered_json XidWatch::seen() {
#if GPUBENCH_HAVE_NVML
  if (state_->set) {
    nvmlEventData_t data{};
    while (nvmlEventSetWait_v2(static_cast<nvmlEventSet_t>(state_->set), &data, 0) == NVML_SUCCESS)
      if (data.eventType & nvmlEventTypeXidCriticalError) state_->xids.push_back(data.eventData);
    return state_->xids;
  }
#endif
  return {{"unavailable", state_->why}};
}

nlohmann::ordered_json kernel_log_xids(const std::string& log_text, const std::string& pci_bus_id) {
  // "NVRM: Xid (PCI:0000:18:00): 79, pid=..., GPU has fallen off the bus."
  static const std::regex xid_line(R"(NVRM: Xid \(PCI:([0-9a-fA-F:]+)\): (\d+))");
  const std::string wanted = xid_bus_id(pci_bus_id);
  nlohmann::ordered_json found = nlohmann::ordered_json::array();
  std::istringstream lines(log_text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (!std::regex_search(line, match, xid_line)) continue;
    const std::string bus = xid_bus_id(match[1].str());
    // The kernel prints the domain; an 8-digit bus id from CUDA ends with the same bus, device and function.
    if (wanted.size() < bus.size() || wanted.compare(wanted.size() - bus.size(), bus.size(), bus) != 0) continue;
    found.push_back({{"xid", std::stoi(match[2].str())}, {"line", line.substr(match.position(0))}});
  }
  return found;
}

bool read_kernel_log(std::string* text, std::string* why) {
  const int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *why = std::string("/dev/kmsg: ") + std::strerror(errno);
    return false;
  }
  char record[8192];
  while (true) {
    const ssize_t n = read(fd, record, sizeof record);
    if (n > 0) {
      text->append(record, static_cast<std::size_t>(n));
      if (record[n - 1] != '\n') *text += '\n';
      continue;
    }
    if (n < 0 && errno == EPIPE) continue;  // a record overwritten while read: the next one follows
    if (n < 0 && errno != EAGAIN) {
      *why = std::string("/dev/kmsg: ") + std::strerror(errno);
      close(fd);
      return false;
    }
    break;
  }
  close(fd);
  return true;
}

void plant_health(nlohmann::ordered_json& record, const std::string& spec, int gpu, bool form_only) {
  std::string items = spec;
  const auto at = spec.rfind('@');
  if (at != std::string::npos) {
    char* end = nullptr;
    const long only = std::strtol(spec.c_str() + at + 1, &end, 10);
    if (end == spec.c_str() + at + 1 || *end != '\0')
      throw std::invalid_argument(std::string(kPlantHealthVariable) + "=" + spec + ": @ takes a GPU index");
    if (only != gpu && !form_only) return;
    items = spec.substr(0, at);
  }
  const nlohmann::ordered_json real = record;
  std::istringstream list(items);
  for (std::string item; std::getline(list, item, ',');) {
    const auto equals = item.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == item.size())
      throw std::invalid_argument(std::string(kPlantHealthVariable) + "=" + spec + ": '" + item +
                                  "' is not FIELD=VALUE");
    std::string field = item.substr(0, equals);
    const nlohmann::ordered_json value = value_of(item.substr(equals + 1));
    if (field == "xid") {
      if (!value.is_number_integer())
        throw std::invalid_argument(std::string(kPlantHealthVariable) + "=" + spec + ": xid takes a number");
      if (!record["xid_during"].is_array()) record["xid_during"] = nlohmann::ordered_json::array();
      record["xid_during"].push_back(value);
      continue;
    }
    const bool end_only = field.rfind("end.", 0) == 0;
    if (end_only) field = field.substr(4);
    // "nvlink_crc_by_link.17": element 17 of a reading's list (a link's count)
    const auto dot = field.rfind('.');
    const bool element = dot != std::string::npos && dot + 1 < field.size() &&
                         field.find_first_not_of("0123456789", dot + 1) == std::string::npos;
    for (const char* when : {"start", "end"}) {
      if (end_only && std::string(when) != "end") continue;
      if (element && form_only) continue;
      if (!element) {
        record[when][field] = value;
        continue;
      }
      auto& list = record[when][field.substr(0, dot)];
      const std::size_t at = std::stoul(field.substr(dot + 1));
      if (!list.is_array() || at >= list.size())
        throw std::invalid_argument(std::string(kPlantHealthVariable) + "=" + spec + ": " + field +
                                    " is past the reading's list");
      list[at] = value;
    }
  }
  record["planted"] = items;
  record["real"] = real;
}

namespace {
struct HealthAtStart {
  nlohmann::ordered_json reading;
  std::unique_ptr<XidWatch> xids;
};
std::map<int, HealthAtStart>& health_at_start() {
  static auto* kept = new std::map<int, HealthAtStart>;  // read at the report's end, never in static destruction
  return *kept;
}
}  // namespace

void start_health_watch(int cuda_index) {
  if (!health_at_start().count(cuda_index))
    health_at_start().emplace(cuda_index,
                              HealthAtStart{read_health(cuda_index), std::make_unique<XidWatch>(cuda_index)});
}

nlohmann::ordered_json health_record(int cuda_index) {
  nlohmann::ordered_json record = nlohmann::ordered_json::object();
  const auto found = health_at_start().find(cuda_index);
  if (found == health_at_start().end()) return record;
  record["start"] = found->second.reading;
  record["end"] = read_health(cuda_index);
  // The link as it trained while the HostLink rows copied (idle, a link drops its generation): what is judged.
  if (const PcieLink link = pcie_link_under_load(cuda_index); link.gen > 0) {
    record["end"]["pcie_gen_under_load"] = link.gen;
    record["end"]["pcie_width_under_load"] = link.width;
  }
  record["xid_during"] = found->second.xids->seen();
  std::string log, why;
  const std::string bus = record["start"].value("pci_bus_id", std::string());
  record["kernel_log_xids"] =
      read_kernel_log(&log, &why) ? kernel_log_xids(log, bus) : nlohmann::ordered_json{{"unreadable", why}};
  if (const char* plant = std::getenv(kPlantHealthVariable)) plant_health(record, plant, cuda_index);
  return record;
}

}  // namespace gpubench::detail
