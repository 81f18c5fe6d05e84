// MemTest: a pattern test over every byte of the GPU's memory the run can take (its free memory less a headroom),
// own address and random patterns with their complements (kernels/memory/memtest.cuh), in a few seconds at HBM
// speed. A mismatch is a wrong result, named with the GPU, the byte offset and device address, and the bits that
// differ (docs/experiments/memtest.md).
#include "bench/planted.h"
#include "common/counter_catalog.h"
#include "common/cuda_check.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/memory/memtest.cuh"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpubench {
namespace {

constexpr std::size_t kHeadroomBytes = std::size_t{1} << 30;  // the driver's, the run's later rows', other contexts'
constexpr int kBlocksPerSm = 8;
constexpr int kPasses = 8;  // reads and writes of each word (queue_memtest)
constexpr std::uint64_t kSeed = 0x5EED6B17C0FFEEull;

// A bit flipped on purpose (GPUBENCH_PLANT_MEMORY="OFFSET:BIT", "@G" for GPU G only): the test must name it.
struct PlantedFlip {
  std::size_t offset = 0;
  int bit = 0;
};
std::invalid_argument bad_memory_plant() {
  return plant_error("GPUBENCH_PLANT_MEMORY",
                     "not OFFSET:BIT (a byte offset into the tested memory, a bit 0-63), @GPU optional");
}
PlantedFlip parse_flip(const std::string& spec) {
  PlantedFlip flip;
  char* end = nullptr;
  flip.offset = std::strtoull(spec.c_str(), &end, 0);
  if (end == spec.c_str() || *end != ':') throw bad_memory_plant();
  const char* bit = end + 1;
  flip.bit = static_cast<int>(std::strtol(bit, &end, 10));
  if (end == bit || *end != '\0' || flip.bit < 0 || flip.bit > 63) throw bad_memory_plant();
  return flip;
}
[[maybe_unused]] const bool kMemoryPlantForm = register_plant("GPUBENCH_PLANT_MEMORY", bad_memory_plant, parse_flip);

std::optional<PlantedFlip> planted_flip() {
  const std::optional<std::string> planted = plant_for_this_gpu("GPUBENCH_PLANT_MEMORY", bad_memory_plant);
  if (!planted) return std::nullopt;
  return parse_flip(*planted);
}

// The most of the free memory a buffer can take, less the headroom; a refused allocation tries 1 GiB less, thrice.
DeviceBuffer<std::uint64_t> take_free_memory(double share) {
  std::size_t free = 0, total = 0;
  GPUBENCH_CUDA(cudaMemGetInfo(&free, &total));
  if (free <= kHeadroomBytes) throw std::runtime_error("less than 1 GiB of the GPU's memory is free");
  std::size_t bytes = static_cast<std::size_t>(static_cast<double>(free - kHeadroomBytes) * share);
  for (int attempt = 0; attempt < 4 && bytes >= (std::size_t{1} << 30); ++attempt, bytes -= std::size_t{1} << 30) {
    try {
      return DeviceBuffer<std::uint64_t>(bytes / sizeof(std::uint64_t));
    } catch (const std::exception&) {
      (void)cudaGetLastError();  // out of memory: a smaller buffer
    }
  }
  throw std::runtime_error("the GPU's free memory could not be taken for the test (" + std::to_string(free >> 20) +
                           " MiB free)");
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

// The memtest preset's row: rounds of the test (a new seed each) for the preset's duration, mismatches summed.
long long memtest_for_duration(benchmark::State& state, DeviceBuffer<std::uint64_t>& words,
                               kernels::MemtestErrors* errors, int blocks, long long flip_index, int flip_bit) {
  const Event start, end;
  long long rounds = 0;
  const auto began = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(); };
  for (auto _ : state) {
    GPUBENCH_CUDA(cudaEventRecord(start.get(), stream()));
    for (; rounds == 0 || (elapsed() < preset_duration() && !run_interrupted()); ++rounds) {
      kernels::queue_memtest(words.data(), words.size(), kSeed + static_cast<std::uint64_t>(rounds), blocks, stream(),
                             errors, rounds == 0 ? flip_index : -1, flip_bit, rounds > 0);
      GPUBENCH_CUDA_LAUNCHED();
      GPUBENCH_CUDA(cudaStreamSynchronize(stream()));
    }
    GPUBENCH_CUDA(cudaEventRecord(end.get(), stream()));
    GPUBENCH_CUDA(cudaEventSynchronize(end.get()));
    float ms = 0;
    GPUBENCH_CUDA(cudaEventElapsedTime(&ms, start.get(), end.get()));
    state.SetIterationTime(ms * 1e-3);
  }
  return rounds;
}

void memtest_rows(benchmark::State& state, bool for_duration) {
  const double share = static_cast<double>(arg(state, "percent_free")) / 100.0;
  const std::optional<PlantedFlip> flip = planted_flip();
  DeviceBuffer<std::uint64_t> words = take_free_memory(share);
  DeviceBuffer<kernels::MemtestErrors> errors(1);
  const long long flip_index =
      flip && flip->offset / sizeof(std::uint64_t) < words.size() ? static_cast<long long>(flip->offset / 8) : -1;
  const int blocks = device().sm_count * kBlocksPerSm;
  long long rounds = 1;
  if (for_duration) {
    rounds = memtest_for_duration(state, words, errors.data(), blocks, flip_index, flip ? flip->bit : 0);
  } else {
    RunOptions options;
    options.stamps_cycles = false;
    options.cold_l2 = false;  // the buffer is hundreds of times the L2: a scrub would add nothing but time
    run(
        state,
        [&](cudaStream_t s, Clocks) {
          kernels::queue_memtest(words.data(), words.size(), kSeed, blocks, s, errors.data(), flip_index,
                                 flip ? flip->bit : 0);
          GPUBENCH_CUDA_LAUNCHED();
        },
        options);
  }
  const kernels::MemtestErrors found = errors.download(stream()).front();  // the last pass, or every round's
  state.SetBytesProcessed(static_cast<std::int64_t>(words.bytes()) * kPasses * rounds * state.iterations());
  state.counters["tested_bytes"] = static_cast<double>(words.bytes());
  state.counters["memtest_rounds"] = static_cast<double>(rounds);
  state.counters["wrong_words"] = static_cast<double>(found.count);
  if (found.count == 0) return;
  const std::size_t offset = found.index[0] * sizeof(std::uint64_t);
  std::string what = "wrong memory on GPU " + std::to_string(device().index) + ": " + std::to_string(found.count) +
                     " word(s) of " + std::to_string(words.bytes() >> 20) + " MiB tested read wrong; first at byte " +
                     hex(offset) + " of the test (device address " +
                     hex(reinterpret_cast<std::uintptr_t>(words.data()) + offset) + "), bits " +
                     hex(found.expected[0] ^ found.read[0]) + " differ (expected " + hex(found.expected[0]) +
                     ", read " + hex(found.read[0]) + ")";
  if (flip && flip_index >= 0) what += " [planted: GPUBENCH_PLANT_MEMORY]";
  state.SetLabel(what);
  report_wrong_result(what);
}

GPUBENCH_FAMILY(MemTest) {
  // The memtest preset repeats the test for its duration (an administrator's); every other preset runs it once.
  const bool for_duration = family.preset() == Preset::kMemtest;
  Benchmark* rows = in_check(family.gpu("MemTest/patterns", {"percent_free"}, [for_duration](benchmark::State& state) {
    memtest_rows(state, for_duration);
  }));
  if (for_duration) only_in_preset(rows);
  add_point(rows, {{"percent_free", 100}})->Iterations(1);
}

GPUBENCH_COUNTERS(MemTest,
                  {"tested_bytes", "bytes", CounterKind::kFixed,
                   "bytes of the GPU's memory the pattern test wrote and read (its free memory less 1 GiB)"},
                  {"memtest_rounds", "rounds", CounterKind::kMeasured,
                   "rounds of the test (8 passes each, a new seed each): 1, or as many as the memtest preset's "
                   "duration holds"},
                  {"wrong_words", "words", CounterKind::kMeasured,
                   "words that read other than written (the first named in the row's label)"});

}  // namespace
}  // namespace gpubench
