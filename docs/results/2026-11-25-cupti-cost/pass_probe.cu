// Where a CUPTI range-profiler case's time goes: each call of enable, set-config, start, stop, decode and
// disable timed on its own, for a one-pass and a three-pass metric set, in user replay (gpubench's way) and in
// kernel replay. Build and run on the GPU machine:
//   nvcc -O2 -arch=sm_90a -I/usr/local/cuda/include pass_probe.cu -lcupti -lcuda -o pass_probe && ./pass_probe
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#define CHECK(call)                                                                  \
  do {                                                                               \
    CUptiResult r_ = (call);                                                         \
    if (r_ != CUPTI_SUCCESS) {                                                       \
      const char* t_ = nullptr;                                                      \
      cuptiGetResultString(r_, &t_);                                                 \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, t_);         \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

__global__ void touch(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 1.0001f + 1.0f;
}

using Clock = std::chrono::steady_clock;
std::map<std::string, std::vector<double>> g_ms;
template <class F>
void timed(const char* name, F f) {
  auto t0 = Clock::now();
  f();
  g_ms[name].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
}

struct Config {
  std::vector<uint8_t> image;
  std::vector<const char*> metrics;
  CUpti_Profiler_Host_Object* host;
};

Config make_config(const char* chip, std::vector<uint8_t>& availability, std::vector<const char*> metrics) {
  Config c;
  c.metrics = metrics;
  CUpti_Profiler_Host_Initialize_Params init{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip;
  init.pCounterAvailabilityImage = availability.data();
  CHECK(cuptiProfilerHostInitialize(&init));
  c.host = init.pHostObject;
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = c.host;
  add.ppMetricNames = c.metrics.data();
  add.numMetrics = c.metrics.size();
  CHECK(cuptiProfilerHostConfigAddMetrics(&add));
  CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = c.host;
  CHECK(cuptiProfilerHostGetConfigImageSize(&size));
  c.image.resize(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get.pHostObject = c.host;
  get.configImageSize = c.image.size();
  get.pConfigImage = c.image.data();
  CHECK(cuptiProfilerHostGetConfigImage(&get));
  return c;
}

// One case: returns the passes it took.
int one_case(CUcontext ctx, Config& c, CUpti_ProfilerReplayMode replay, float* data, int n, bool sync_first,
             CUpti_RangeProfiler_Object* kept) {
  CUpti_RangeProfiler_Object* profiler = kept;
  if (!kept)
    timed("enable", [&] {
      CUpti_RangeProfiler_Enable_Params e{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
      e.ctx = ctx;
      CHECK(cuptiRangeProfilerEnable(&e));
      profiler = e.pRangeProfilerObject;
    });
  std::vector<uint8_t> data_image;
  timed("set-config", [&] {
    CUpti_RangeProfiler_GetCounterDataSize_Params s{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    s.pRangeProfilerObject = profiler;
    s.pMetricNames = c.metrics.data();
    s.numMetrics = c.metrics.size();
    s.maxNumOfRanges = 4;
    s.maxNumRangeTreeNodes = 4;
    CHECK(cuptiRangeProfilerGetCounterDataSize(&s));
    data_image.resize(s.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params i{
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    i.pRangeProfilerObject = profiler;
    i.counterDataSize = data_image.size();
    i.pCounterData = data_image.data();
    CHECK(cuptiRangeProfilerCounterDataImageInitialize(&i));
    CUpti_RangeProfiler_SetConfig_Params p{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = profiler;
    p.configSize = c.image.size();
    p.pConfig = c.image.data();
    p.counterDataImageSize = data_image.size();
    p.pCounterDataImage = data_image.data();
    p.range = replay == CUPTI_KernelReplay ? CUPTI_AutoRange : CUPTI_UserRange;
    p.replayMode = replay;
    p.maxRangesPerPass = 4;
    p.numNestingLevels = 1;
    p.minNestingLevel = 1;
    p.passIndex = 0;
    p.targetNestingLevel = 1;
    CHECK(cuptiRangeProfilerSetConfig(&p));
  });
  int passes = 0;
  for (bool done = false; !done && passes < 10; ++passes) {
    if (sync_first) timed("sync before start", [&] { cudaDeviceSynchronize(); });
    timed("start", [&] {
      CUpti_RangeProfiler_Start_Params s{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
      s.pRangeProfilerObject = profiler;
      CHECK(cuptiRangeProfilerStart(&s));
    });
    timed("launch", [&] {
      if (replay == CUPTI_UserReplay) {
        CUpti_RangeProfiler_PushRange_Params push{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
        push.pRangeProfilerObject = profiler;
        push.pRangeName = "launch";
        CHECK(cuptiRangeProfilerPushRange(&push));
      }
      touch<<<(n + 255) / 256, 256>>>(data, n);
      cudaDeviceSynchronize();
      if (replay == CUPTI_UserReplay) {
        CUpti_RangeProfiler_PopRange_Params pop{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
        pop.pRangeProfilerObject = profiler;
        CHECK(cuptiRangeProfilerPopRange(&pop));
      }
    });
    timed("stop", [&] {
      CUpti_RangeProfiler_Stop_Params s{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
      s.pRangeProfilerObject = profiler;
      CHECK(cuptiRangeProfilerStop(&s));
      done = s.isAllPassSubmitted != 0;
    });
  }
  timed("decode", [&] {
    CUpti_RangeProfiler_DecodeData_Params d{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    d.pRangeProfilerObject = profiler;
    CHECK(cuptiRangeProfilerDecodeData(&d));
  });
  if (!kept)
    timed("disable", [&] {
      CUpti_RangeProfiler_Disable_Params d{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
      d.pRangeProfilerObject = profiler;
      cuptiRangeProfilerDisable(&d);
    });
  return passes;
}

void report(const char* title, int passes) {
  std::printf("%s (%d passes a case):", title, passes);
  for (auto& [name, ms] : g_ms) {
    double sum = 0, first = ms.front();
    for (double v : ms) sum += v;
    std::printf(" %s %.2f ms (first %.2f, %zu calls);", name.c_str(), sum / ms.size(), first, ms.size());
  }
  std::printf("\n");
  g_ms.clear();
}

int main() {
  const int n = 1 << 20;
  float* data = nullptr;
  cudaMalloc(&data, n * sizeof(float));
  cudaMemset(data, 0, n * sizeof(float));
  touch<<<(n + 255) / 256, 256>>>(data, n);
  cudaDeviceSynchronize();
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);
  CUpti_Profiler_Initialize_Params pi{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CHECK(cuptiProfilerInitialize(&pi));
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = 0;
  CHECK(cuptiDeviceGetChipName(&chip));
  CUpti_Profiler_GetCounterAvailability_Params av{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  av.ctx = ctx;
  CHECK(cuptiProfilerGetCounterAvailability(&av));
  std::vector<uint8_t> availability(av.counterAvailabilityImageSize);
  av.pCounterAvailabilityImage = availability.data();
  CHECK(cuptiProfilerGetCounterAvailability(&av));

  Config one = make_config(chip.pChipName, availability, {"dram__bytes_read.sum"});
  Config three = make_config(chip.pChipName, availability,
                             {"sm__inst_executed_pipe_tensor.sum", "sm__ops_path_tensor_src_fp16.sum",
                              "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"});
  int p = 0;
  for (int i = 0; i < 10; ++i) p = one_case(ctx, one, CUPTI_UserReplay, data, n, false, nullptr);
  report("user replay, 1-pass set, enabled per case", p);
  for (int i = 0; i < 10; ++i) p = one_case(ctx, three, CUPTI_UserReplay, data, n, false, nullptr);
  report("user replay, 3-pass set, enabled per case", p);
  for (int i = 0; i < 10; ++i) p = one_case(ctx, one, CUPTI_UserReplay, data, n, true, nullptr);
  report("user replay, 1-pass set, device synchronized before start", p);
  for (int i = 0; i < 10; ++i) p = one_case(ctx, three, CUPTI_KernelReplay, data, n, false, nullptr);
  report("kernel replay, 3-pass set, enabled per case", p);
  // Idle gaps between cases (as Google Benchmark's timed launches leave the profiler idle).
  for (int i = 0; i < 5; ++i) {
    touch<<<(n + 255) / 256, 256>>>(data, n);
    cudaDeviceSynchronize();
    p = one_case(ctx, one, CUPTI_UserReplay, data, n, false, nullptr);
  }
  report("user replay, 1-pass set, a launch between cases", p);
  {
    CUpti_RangeProfiler_Enable_Params e{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    e.ctx = ctx;
    CHECK(cuptiRangeProfilerEnable(&e));
    for (int i = 0; i < 10; ++i) p = one_case(ctx, one, CUPTI_UserReplay, data, n, false, e.pRangeProfilerObject);
    report("user replay, 1-pass set, enabled once", p);
    CUpti_RangeProfiler_Disable_Params d{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    d.pRangeProfilerObject = e.pRangeProfilerObject;
    cuptiRangeProfilerDisable(&d);
  }
  return 0;
}
