// gpubench's public API in one include, for a family of one's own (docs/your-kernel.md): registration over Google
// Benchmark (GPUBENCH_FAMILY, Family::gpu, add_point), the timed launch (run: CUDA-event time, clock64 cycles
// through Clocks, the measured SM clock, CUPTI counters, cold or warm L2, the stopping rule and its precision),
// declared results (GPUBENCH_COUNTERS with their direction), device buffers and CUDA error checks. gpubench's own
// families include the same headers one by one.
#pragma once

#include "common/benchmark_compat.h"
#include "common/clocks.h"
#include "common/counter_catalog.h"
#include "common/cuda_check.h"
#include "common/device_info.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/launch.h"
#include "common/registry.h"
