// Where does a copy's DRAM write traffic get counted? Profiles a stream copy kernel by kernel
// (CUPTI auto ranges) with L2 emptied before or after the profiler starts, and followed in the same
// pass by a kernel that evicts all of L2, so the follower's range shows what was still dirty; then
// the whole-launch ranges gpubench reports. Not a test: a measurement for docs/counters.md.
#include "common/cuda_check.h"
#include "common/cupti/cupti_profiler.h"
#include "common/detail/gpu_session.h"
#include "common/detail/l2_scrub.h"
#include "common/device_memory.h"
#include "kernels/memory/stream.cuh"

#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace gpubench {
namespace {

using Split = CuptiProfiler::RangeSplit;

const std::vector<std::string> kMetrics = {"dram__bytes_write.sum", "dram__bytes_read.sum",
                                           "lts__t_sectors_srcunit_tex_op_write.sum"};

// `labels` name the kernels in launch order (auto ranges are numbered, not named).
void print_ranges(const char* variant, std::size_t mib, const std::vector<CuptiProfiler::Range>& ranges,
                  const std::vector<const char*>& labels) {
  for (std::size_t i = 0; i < ranges.size(); ++i)
    std::printf("%-26s %5zu  %-12s %11.3f %11.3f %11.3f\n", variant, mib,
                i < labels.size() ? labels[i] : ranges[i].name.c_str(), ranges[i].values[0] / 1e6,
                ranges[i].values[1] / 1e6, ranges[i].values[2] * 32 / 1e6);
}

int run() {
  GpuSession& session = GpuSession::get();
  const DeviceInfo& device = session.device();
  const cudaStream_t stream = session.stream();
  CuptiProfiler profiler(device.index, kMetrics);
  std::printf("device %s, L2 %zu MiB, %zu pass(es); MB = 1e6 bytes; 'scrub' = read 2x L2 + discard.global.L2\n",
              device.name.c_str(), device.l2_bytes >> 20, profiler.passes());
  std::printf("%-26s %5s  %-12s %11s %11s %11s\n", "variant", "MiB", "range", "dram_write", "dram_read", "l2_write");

  DeviceBuffer<int4> evict(2 * device.l2_bytes / sizeof(int4));
  evict.fill_bytes(0);
  DeviceBuffer<int> sink(1);
  const auto scrub = [&] { session.scrub_l2(); };
  const auto sync = [&] { GPUBENCH_CUDA(cudaStreamSynchronize(stream)); };

  for (std::size_t mib : {4, 16, 64, 256, 1024}) {
    const std::size_t count = (mib << 20) / sizeof(float4);
    DeviceBuffer<float4> in(count), out(count);
    in.fill_bytes(0x3C);
    out.fill_bytes(0);
    const int blocks = device.sm_count * 8;
    const auto copy = [&] {
      kernels::stream<kernels::StreamOp::kCopy, float4>
          <<<blocks, 256, 0, stream>>>({in.data(), nullptr, out.data(), nullptr}, count, 0.0f, Clocks{});
      GPUBENCH_CUDA_LAUNCHED();
    };
    // A second scrub on another buffer: its read range counts whatever the copy left dirty.
    const auto evict_l2 = [&] { launch_l2_scrub(evict.data(), evict.size(), sink.data(), device.sm_count, stream); };

    scrub();  // one pass: the same as a scrub before every pass
    print_ranges("scrub; start; copy", mib,
                 profiler.profile_ranges(
                     [&] {
                       copy();
                       sync();
                     },
                     {}, Split::per_kernel),
                 {"copy"});
    print_ranges("start; scrub; copy", mib,
                 profiler.profile_ranges(
                     [&] {
                       copy();
                       sync();
                     },
                     scrub, Split::per_kernel),
                 {"scrub-read", "scrub-discard", "copy"});
    print_ranges("start; scrub; copy, evict", mib,
                 profiler.profile_ranges(
                     [&] {
                       copy();
                       evict_l2();
                       sync();
                     },
                     scrub, Split::per_kernel),
                 {"scrub-read", "scrub-discard", "copy", "evict-read", "evict-discard"});
    print_ranges("... copy, 100 ms, evict", mib,
                 profiler.profile_ranges(
                     [&] {
                       copy();
                       sync();
                       std::this_thread::sleep_for(std::chrono::milliseconds(100));
                       evict_l2();
                       sync();
                     },
                     scrub, Split::per_kernel),
                 {"scrub-read", "scrub-discard", "copy", "evict-read", "evict-discard"});
    print_ranges("gpubench: whole launch", mib,
                 profiler.profile_ranges(
                     [&] {
                       copy();
                       sync();
                     },
                     scrub, Split::whole_launch),
                 {"copy"});
    print_ranges("whole launch incl. evict", mib,
                 profiler.profile_ranges(
                     [&] {
                       copy();
                       evict_l2();
                       sync();
                     },
                     scrub, Split::whole_launch),
                 {"copy+evict"});
  }
  return 0;
}

}  // namespace
}  // namespace gpubench

int main() {
  try {
    return gpubench::run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "writeback_probe: %s\n", e.what());
    return 1;
  }
}
