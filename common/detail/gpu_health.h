// A GPU's health state as NVML reads it without root, at a run's start and end: what DCGM's level 1 and Azure's node
// checks read (ECC, retired pages, remapped rows, NVLinks and their error counters, the PCIe link and its replays,
// clock-event reasons, persistence, driver and VBIOS, Fabric Manager), the critical Xid events NVML reports while the
// run lasts and the Xids the kernel log holds where it is readable. The verdict judges them
// (analysis/verdict/health.py). A fault no lent GPU can be ordered to show is planted over the readings
// (GPUBENCH_PLANT_HEALTH, docs/verdicts.md); the real readings stay beside the planted ones.
#pragma once

#include "common/detail/gpu_session.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace gpubench::detail {

inline constexpr const char* kPlantHealthVariable = "GPUBENCH_PLANT_HEALTH";

// One reading of CUDA device `cuda_index` now: the fields NVML answers on this board ({"unavailable": why} without
// NVML).
nlohmann::ordered_json read_health(int cuda_index);

// The critical Xid events NVML reports on a GPU from construction on (nvmlEventTypeXidCriticalError).
class XidWatch {
 public:
  explicit XidWatch(int cuda_index);
  ~XidWatch();
  XidWatch(const XidWatch&) = delete;
  XidWatch& operator=(const XidWatch&) = delete;
  // The Xids reported so far (each once per event), or {"unavailable": why}.
  nlohmann::ordered_json seen();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The Xids the kernel log holds for the GPU at `pci_bus_id` ("NVRM: Xid (PCI:0000:18:00): 79, ..."), read from
// `log_text` (/dev/kmsg or dmesg's lines): [{"xid": 79, "line": "..."}].
nlohmann::ordered_json kernel_log_xids(const std::string& log_text, const std::string& pci_bus_id);

// The kernel log as this process may read it (/dev/kmsg, without waiting), or {"unreadable": why} in `why`.
bool read_kernel_log(std::string* text, std::string* why);

// The health of the GPUs a run opens: a GPU's reading when it is first opened, and its Xid watch from then on
// (again for an opened GPU: nothing).
void start_health_watch(int cuda_index);

// A GPU's record for the report ({} where no watch started): its start and end readings (the end's with the PCIe link
// as HostLink read it under load), the Xids during the run and in the kernel log, a GPUBENCH_PLANT_HEALTH fault over
// them where one names this GPU.
nlohmann::ordered_json health_record(int cuda_index);

// Plants `spec` over a GPU's health record {"start", "end", "xid_during", ...} when it names this GPU: "FIELD=VALUE"
// items, comma-separated, setting FIELD in both readings ("end.FIELD=VALUE": the end reading only, a counter that
// climbed; "FIELD.N=VALUE": element N of a list, a link's count), "xid=N" an Xid during the run; "@GPU" at the end
// limits it to that GPU. The real record is kept under "real". Throws std::invalid_argument on a spec it cannot read.
// `form_only`: reads the whole spec whatever GPU it names, and leaves a list's element unchecked (no reading yet).
void plant_health(nlohmann::ordered_json& record, const std::string& spec, int gpu, bool form_only = false);

}  // namespace gpubench::detail
