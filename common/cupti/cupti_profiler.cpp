#include "common/cupti/cupti_profiler.h"

#include "common/detail/run_control.h"

#include "common/cuda_check.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

namespace gpubench {
namespace {

// CUPTI parameter blocks: zeroed, with their size set (the API's versioning scheme).
template <class Params>
Params make_params(std::size_t struct_size) {
  Params params{};
  params.structSize = struct_size;
  return params;
}

std::string result_text(CUptiResult code) {
  const char* text = nullptr;
  if (cuptiGetResultString(code, &text) != CUPTI_SUCCESS || text == nullptr)
    return "CUPTI error " + std::to_string(code);
  return text;
}

void check(CUptiResult code, const char* call) {
  if (code != CUPTI_SUCCESS) throw CuptiError(code, std::string(call) + " failed: " + result_text(code));
}

#define GPUBENCH_CUPTI(call) check((call), #call)

// The runtime's current context, without linking the driver library (CI machines have none).
CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult status{};
  GPUBENCH_CUDA(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &entry, 12000, cudaEnableDefault, &status));
  if (entry == nullptr || status != cudaDriverEntryPointSuccess)
    throw std::runtime_error("cuCtxGetCurrent is not available from the driver");
  GPUBENCH_CUDA(cudaFree(nullptr));  // make sure the primary context exists and is current
  CUcontext context = nullptr;
  if (reinterpret_cast<GetCurrent>(entry)(&context) != CUDA_SUCCESS || context == nullptr)
    throw std::runtime_error("no current CUDA context to profile");
  return context;
}

bool g_profiler_initialized = false;

void initialize_profiler() {
  if (g_profiler_initialized) return;
  auto params = make_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  GPUBENCH_CUPTI(cuptiProfilerInitialize(&params));
  g_profiler_initialized = true;
}

void check_device_supported(int device) {
  auto params = make_params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  params.cuDevice = device;
  params.api = CUPTI_PROFILER_RANGE_PROFILING;
  GPUBENCH_CUPTI(cuptiProfilerDeviceSupported(&params));
  if (params.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
  std::string why;
  if (params.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "architecture";
  else if (params.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "virtual GPU (profiling disabled by the host)";
  else if (params.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "confidential computing";
  else if (params.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "SLI";
  else if (params.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "CMP device";
  else if (params.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "WSL";
  else
    why = "unknown reason";
  throw CuptiError(CUPTI_ERROR_NOT_SUPPORTED, "range profiling is not supported on this device: " + why);
}

std::vector<const char*> c_strings(const std::vector<std::string>& names) {
  std::vector<const char*> pointers;
  for (const std::string& name : names) pointers.push_back(name.c_str());
  return pointers;
}

class HostObject {
 public:
  HostObject(const std::string& chip, const std::vector<std::uint8_t>& availability) {
    auto params = make_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    params.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    params.pChipName = chip.c_str();
    params.pCounterAvailabilityImage = availability.data();
    GPUBENCH_CUPTI(cuptiProfilerHostInitialize(&params));
    object_ = params.pHostObject;
  }
  ~HostObject() {
    auto params =
        make_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    params.pHostObject = object_;
    cuptiProfilerHostDeinitialize(&params);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const { return object_; }

  CUptiResult add_metrics(const std::vector<std::string>& metrics) {
    std::vector<const char*> names = c_strings(metrics);
    auto params = make_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    params.pHostObject = object_;
    params.ppMetricNames = names.data();
    params.numMetrics = names.size();
    return cuptiProfilerHostConfigAddMetrics(&params);
  }

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

// Enabled for one profiled launch; disabled again even when the launch throws.
class EnabledRangeProfiler {
 public:
  explicit EnabledRangeProfiler(CUcontext context) {
    const detail::TimedPart timed("counter enable/disable");
    auto params = make_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    params.ctx = context;
    GPUBENCH_CUPTI(cuptiRangeProfilerEnable(&params));
    object_ = params.pRangeProfilerObject;
  }
  ~EnabledRangeProfiler() {
    const detail::TimedPart timed("counter enable/disable");
    auto params = make_params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    params.pRangeProfilerObject = object_;
    cuptiRangeProfilerDisable(&params);
  }
  EnabledRangeProfiler(const EnabledRangeProfiler&) = delete;
  EnabledRangeProfiler& operator=(const EnabledRangeProfiler&) = delete;
  CUpti_RangeProfiler_Object* get() const { return object_; }

 private:
  CUpti_RangeProfiler_Object* object_ = nullptr;
};

// The range profiler stays enabled on a context while consecutive cases profile the same set of counters the
// same way: the first Start after Enable programs the configuration (~140 ms on an H100), a later Start of the
// same one ~5 ms, and Disable ~12 ms (docs/results/2026-11-25-cupti-cost: README command 1 spent 44 s of its 150
// in Start). Another set, split or context enables it afresh; reading counter availability needs none enabled.
struct KeptProfiler {
  std::unique_ptr<EnabledRangeProfiler> profiler;
  CUcontext context = nullptr;
  const void* owner = nullptr;  // the CuptiProfiler (its set of counters) it was configured for
  bool per_kernel = false;
};

KeptProfiler& kept_profiler() {
  static auto* kept = new KeptProfiler;  // never destroyed: profilers destroyed at exit still ask it
  return *kept;
}

// `fresh`: enabled now, so its first Start programs the configuration (and leaves CUPTI's writes in L2).
CUpti_RangeProfiler_Object* enabled_range_profiler(CUcontext context, const void* owner, bool per_kernel, bool& fresh) {
  KeptProfiler& kept = kept_profiler();
  if (kept.profiler && (kept.context != context || kept.owner != owner || kept.per_kernel != per_kernel))
    kept.profiler.reset();
  fresh = !kept.profiler;
  if (fresh) {
    kept.profiler = std::make_unique<EnabledRangeProfiler>(context);
    kept.context = context;
    kept.owner = owner;
    kept.per_kernel = per_kernel;
  }
  return kept.profiler->get();
}

}  // namespace

void disable_range_profiler() noexcept { kept_profiler().profiler.reset(); }

bool CuptiError::profiling_unavailable() const noexcept {
  switch (code_) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_DISABLED: return true;
    default: return false;
  }
}

struct CuptiProfiler::State {
  int device = 0;
  std::string chip;
  std::vector<std::string> metrics;
  std::vector<std::uint8_t> availability;
  std::unique_ptr<HostObject> host;
  std::vector<std::uint8_t> config_image;
  std::size_t passes = 0;
};

CuptiProfiler::CuptiProfiler(int device, std::vector<std::string> perfworks_metrics) : state_(new State) {
  State& s = *state_;
  s.device = device;
  s.metrics = std::move(perfworks_metrics);
  if (s.metrics.empty()) throw std::invalid_argument("CuptiProfiler needs at least one metric");
  GPUBENCH_CUDA(cudaSetDevice(device));
  const CUcontext context = current_context();
  disable_range_profiler();  // CUPTI refuses the availability query while one is enabled (INVALID_PARAMETER)
  initialize_profiler();
  check_device_supported(device);

  auto chip = make_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<std::size_t>(device);
  GPUBENCH_CUPTI(cuptiDeviceGetChipName(&chip));
  s.chip = chip.pChipName;

  auto availability = make_params<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  availability.ctx = context;
  GPUBENCH_CUPTI(cuptiProfilerGetCounterAvailability(&availability));
  s.availability.resize(availability.counterAvailabilityImageSize);
  availability.pCounterAvailabilityImage = s.availability.data();
  GPUBENCH_CUPTI(cuptiProfilerGetCounterAvailability(&availability));

  s.host = std::make_unique<HostObject>(s.chip, s.availability);
  if (s.host->add_metrics(s.metrics) != CUPTI_SUCCESS) {
    // Name the culprit: try each metric alone on a scratch host object.
    for (const std::string& metric : s.metrics) {
      HostObject probe(s.chip, s.availability);
      const CUptiResult code = probe.add_metrics({metric});
      if (code != CUPTI_SUCCESS)
        throw UnsupportedMetric(metric,
                                "metric '" + metric + "' is not available on " + s.chip + ": " + result_text(code));
    }
    throw CuptiError(CUPTI_ERROR_UNKNOWN, "cuptiProfilerHostConfigAddMetrics rejected the metric set together");
  }

  auto size = make_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = s.host->get();
  GPUBENCH_CUPTI(cuptiProfilerHostGetConfigImageSize(&size));
  s.config_image.resize(size.configImageSize);
  auto image =
      make_params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = s.host->get();
  image.configImageSize = s.config_image.size();
  image.pConfigImage = s.config_image.data();
  GPUBENCH_CUPTI(cuptiProfilerHostGetConfigImage(&image));

  auto passes =
      make_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = s.config_image.size();
  passes.pConfigImage = s.config_image.data();
  GPUBENCH_CUPTI(cuptiProfilerHostGetNumOfPasses(&passes));
  s.passes = passes.numOfPasses;
}

CuptiProfiler::~CuptiProfiler() {
  // A later profiler may reuse this address: the kept range profiler must not take it for this set.
  if (state_ && kept_profiler().owner == state_.get()) disable_range_profiler();
}
CuptiProfiler::CuptiProfiler(CuptiProfiler&&) noexcept = default;
CuptiProfiler& CuptiProfiler::operator=(CuptiProfiler&&) noexcept = default;

const std::string& CuptiProfiler::chip() const { return state_->chip; }
std::size_t CuptiProfiler::passes() const { return state_->passes; }

namespace {

// A counter-data image sized for the metrics and up to kMaxRanges ranges, bound to the profiler
// together with the configuration image.
std::vector<std::uint8_t> configured_counter_data(CUpti_RangeProfiler_Object* profiler, std::vector<const char*>& names,
                                                  std::vector<std::uint8_t>& config_image, bool per_kernel) {
  auto size = make_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = profiler;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = CuptiProfiler::kMaxRanges;
  size.maxNumRangeTreeNodes = CuptiProfiler::kMaxRanges;
  GPUBENCH_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
  std::vector<std::uint8_t> counter_data(size.counterDataSize);

  auto init = make_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = profiler;
  init.counterDataSize = counter_data.size();
  init.pCounterData = counter_data.data();
  GPUBENCH_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&init));

  auto config = make_params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  config.pRangeProfilerObject = profiler;
  config.configSize = config_image.size();
  config.pConfig = config_image.data();
  config.counterDataImageSize = counter_data.size();
  config.pCounterDataImage = counter_data.data();
  config.range = per_kernel ? CUPTI_AutoRange : CUPTI_UserRange;
  config.replayMode = CUPTI_UserReplay;
  config.maxRangesPerPass = CuptiProfiler::kMaxRanges;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  GPUBENCH_CUPTI(cuptiRangeProfilerSetConfig(&config));
  return counter_data;
}

// One replay pass: `prepare`, then the launch (inside one user range unless CUPTI cuts a range per
// kernel). Returns whether CUPTI has every pass it needs.
bool run_pass(CUpti_RangeProfiler_Object* profiler, const std::function<void()>& launch_and_sync,
              const std::function<void()>& prepare, bool per_kernel) {
  std::optional<detail::TimedPart> starting("counter start");
  auto start = make_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = profiler;
  GPUBENCH_CUPTI(cuptiRangeProfilerStart(&start));
  starting.reset();
  // After Start: the first Start after Enable leaves ~20 MB of CUPTI's own writes dirty in L2 (H100),
  // which a scrub run before it would not clear and the launch would then evict as if they were its own.
  if (prepare) prepare();
  if (per_kernel) {
    launch_and_sync();
  } else {
    auto push = make_params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
    push.pRangeProfilerObject = profiler;
    push.pRangeName = "launch";
    GPUBENCH_CUPTI(cuptiRangeProfilerPushRange(&push));
    launch_and_sync();
    auto pop = make_params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
    pop.pRangeProfilerObject = profiler;
    GPUBENCH_CUPTI(cuptiRangeProfilerPopRange(&pop));
  }
  const detail::TimedPart stopping("counter stop");
  auto stop = make_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = profiler;
  GPUBENCH_CUPTI(cuptiRangeProfilerStop(&stop));
  return stop.isAllPassSubmitted != 0;
}

// Every range the counter data holds: its name and its metric values.
std::vector<CuptiProfiler::Range> evaluate_ranges(CUpti_Profiler_Host_Object* host,
                                                  std::vector<std::uint8_t>& counter_data,
                                                  std::vector<const char*>& names) {
  auto info = make_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  GPUBENCH_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&info));
  if (info.numTotalRanges == 0) throw CuptiError(CUPTI_ERROR_INVALID_OPERATION, "the profiled launch ran no kernel");

  std::vector<CuptiProfiler::Range> ranges(info.numTotalRanges);
  for (std::size_t index = 0; index < ranges.size(); ++index) {
    auto name = make_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    name.pCounterDataImage = counter_data.data();
    name.counterDataImageSize = counter_data.size();
    name.rangeIndex = index;
    name.rangeDelimiter = "/";
    GPUBENCH_CUPTI(cuptiRangeProfilerCounterDataGetRangeInfo(&name));
    if (name.rangeName != nullptr) ranges[index].name = name.rangeName;

    ranges[index].values.resize(names.size());
    auto evaluate = make_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    evaluate.pHostObject = host;
    evaluate.pCounterDataImage = counter_data.data();
    evaluate.counterDataImageSize = counter_data.size();
    evaluate.rangeIndex = index;
    evaluate.ppMetricNames = names.data();
    evaluate.numMetrics = names.size();
    evaluate.pMetricValues = ranges[index].values.data();
    GPUBENCH_CUPTI(cuptiProfilerHostEvaluateToGpuValues(&evaluate));
  }
  return ranges;
}

}  // namespace

std::vector<CuptiProfiler::Range> CuptiProfiler::profile_ranges(const std::function<void()>& launch_and_sync,
                                                                const std::function<void()>& prepare, RangeSplit split,
                                                                const std::function<void()>& after_enable) {
  const bool per_kernel = split == RangeSplit::per_kernel;
  State& s = *state_;
  std::vector<const char*> names = c_strings(s.metrics);
  std::optional<detail::TimedPart> setup("counter set-up");  // the ledger says which CUPTI step costs
  CUpti_RangeProfiler_Object* profiler = nullptr;
  std::vector<std::uint8_t> counter_data;
  std::optional<detail::TimedPart> evaluation;  // decoding and evaluating, one part of the ledger
  auto decode = make_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  try {
    bool fresh = false;
    profiler = enabled_range_profiler(current_context(), state_.get(), per_kernel, fresh);
    counter_data = configured_counter_data(profiler, names, s.config_image, per_kernel);
    setup.reset();
    const std::function<void()> first_prepare = [&] {
      if (after_enable) after_enable();
      if (prepare) prepare();
    };
    // Passes until CUPTI has every counter; a bound guards against a launch that runs no kernel.
    const std::size_t max_passes = s.passes + 2;
    for (std::size_t pass = 0;
         !run_pass(profiler, launch_and_sync, pass == 0 && fresh && after_enable ? first_prepare : prepare, per_kernel);
         ++pass) {
      if (pass + 1 == max_passes)
        throw CuptiError(CUPTI_ERROR_INVALID_OPERATION, "profiling did not finish in " + std::to_string(max_passes) +
                                                            " passes: does the launch run a kernel every time?");
    }
    decode.pRangeProfilerObject = profiler;
    evaluation.emplace("counter evaluation");
    GPUBENCH_CUPTI(cuptiRangeProfilerDecodeData(&decode));
  } catch (...) {
    disable_range_profiler();  // one left mid-pass is no use to the next case: it enables afresh
    throw;
  }

  if (decode.numOfRangeDropped > 0)
    throw CuptiError(CUPTI_ERROR_MAX_LIMIT_REACHED, "the profiled launch ran more than " + std::to_string(kMaxRanges) +
                                                        " kernels; " + std::to_string(decode.numOfRangeDropped) +
                                                        " were dropped");
  return evaluate_ranges(s.host->get(), counter_data, names);
}

std::vector<double> CuptiProfiler::profile(const std::function<void()>& launch_and_sync,
                                           const std::function<void()>& prepare,
                                           const std::function<void()>& after_enable) {
  std::vector<Range> ranges = profile_ranges(launch_and_sync, prepare, RangeSplit::whole_launch, after_enable);
  if (ranges.size() != 1)
    throw CuptiError(CUPTI_ERROR_UNKNOWN, "expected one range around the launch, got " + std::to_string(ranges.size()));
  return std::move(ranges.front().values);
}

void shutdown_cupti_profiler() noexcept {
  disable_range_profiler();
  if (!g_profiler_initialized) return;
  auto params = make_params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
  cuptiProfilerDeInitialize(&params);
  g_profiler_initialized = false;
}

}  // namespace gpubench
