// Burn (the burn preset, an administrator's): the GPU under tensor-core GEMM (cuBLAS, FP16 operands, FP32 products)
// and memory traffic (the memory test's patterns) for the preset's duration, every answer verified; each second its
// GEMM rate, memory rate, clocks, power, temperatures and clock-event reasons, as the row's series. In a node run
// every GPU burns at once. docs/experiments/burn.md.
#include "bench/planted.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/cuda_check.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/load_watch.h"
#include "common/registry.h"
#include "kernels/compute/burn.cuh"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gpubench {
namespace {

constexpr int kMatrix = 8192;                               // M = N = K: 1.1 TFLOP a product, about 1.5 ms on an H100
constexpr int kGemmsPerBatch = 16;                          // about 25 ms of GEMM, then the memory test's round
constexpr std::size_t kMemoryBytes = std::size_t{2} << 30;  // each round's 8 passes move 16 GiB
constexpr int kSampledElements = 1024;                      // of the first product, against the host's sums
constexpr std::uint64_t kSeedA = 0xA5A5F00Dull;
constexpr std::uint64_t kSeedB = 0x5EEDB0B5ull;
constexpr int kBlocksPerSm = 8;
constexpr int kThreads = 256;

// cublasGemmEx as the library exports it (the header overloads the name for C++).
using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                  const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                  cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

// cuBLAS, opened when a burn runs: the check and the other presets start without loading its libraries.
class Cublas {
 public:
  explicit Cublas(cudaStream_t stream) {
    const std::string name = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    library_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) {
      const std::string by_name = dlerror();
      library_ = dlopen((std::string(GPUBENCH_CUDA_LIBRARY_DIR) + "/" + name).c_str(), RTLD_NOW | RTLD_LOCAL);
      if (library_ == nullptr)
        throw std::runtime_error("the burn needs the CUDA toolkit's cuBLAS (" + name + ", also looked for in " +
                                 GPUBENCH_CUDA_LIBRARY_DIR + "): " + by_name);
    }
    create_ = symbol<decltype(&cublasCreate_v2)>("cublasCreate_v2");
    destroy_ = symbol<decltype(&cublasDestroy_v2)>("cublasDestroy_v2");
    set_stream_ = symbol<decltype(&cublasSetStream_v2)>("cublasSetStream_v2");
    gemm_ex_ = symbol<GemmEx>("cublasGemmEx");
    check(create_(&handle_), "cublasCreate");
    check(set_stream_(handle_, stream), "cublasSetStream");  // every GEMM goes on gpubench's stream
  }
  ~Cublas() {
    if (handle_ != nullptr) destroy_(handle_);
    // The library stays loaded: cuBLAS keeps state per context that outlives the handle.
  }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;

  // C (n x n, FP32) = A (n x n, FP16) B (n x n, FP16), column-major, FP32 sums.
  void gemm(const __half* a, const __half* b, float* c, int n) {
    const float one = 1.0f, zero = 0.0f;
    check(gemm_ex_(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, CUDA_R_16F, n, b, CUDA_R_16F, n, &zero, c,
                   CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }

 private:
  template <class F>
  F symbol(const char* name) {
    void* found = dlsym(library_, name);
    if (found == nullptr) throw std::runtime_error(std::string("cuBLAS has no ") + name);
    return reinterpret_cast<F>(found);
  }
  static void check(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(std::string(what) + " failed: cuBLAS status " + std::to_string(status));
  }
  void* library_ = nullptr;
  cublasHandle_t handle_ = nullptr;
  decltype(&cublasCreate_v2) create_ = nullptr;
  decltype(&cublasDestroy_v2) destroy_ = nullptr;
  decltype(&cublasSetStream_v2) set_stream_ = nullptr;
  GemmEx gemm_ex_ = nullptr;
};

// Faults planted on purpose (GPUBENCH_PLANT_BURN, items joined by ",", "@G" for GPU G only):
// - wrong_at=S: a product's bit flipped S seconds into the burn, once: the verdict must name a wrong answer;
// - reasons_at=S:BITS: NVML's clock-event reasons read with BITS set from second S on (HW slowdown 0x8, thermal 0x40,
//   power brake 0x80, SW thermal 0x20): no lent GPU can be ordered to throttle; the real readings are kept beside.
struct BurnPlant {
  std::optional<double> wrong_at;
  std::optional<double> reasons_at;
  std::uint64_t reasons = 0;
  std::string spec;
};

std::invalid_argument bad_burn_plant() {
  return plant_error("GPUBENCH_PLANT_BURN",
                     "not wrong_at=SECONDS or reasons_at=SECONDS:BITS (joined by ','), @GPU optional");
}

double plant_seconds(const std::string& text) {
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(seconds >= 0.0)) throw bad_burn_plant();
  return seconds;
}

BurnPlant parse_burn_plant(const std::string& spec) {
  BurnPlant plant;
  plant.spec = spec;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string item = spec.substr(start, comma - start);
    if (item.rfind("wrong_at=", 0) == 0) {
      plant.wrong_at = plant_seconds(item.substr(9));
    } else if (item.rfind("reasons_at=", 0) == 0 && item.find(':') != std::string::npos) {
      const std::size_t colon = item.find(':');
      plant.reasons_at = plant_seconds(item.substr(11, colon - 11));
      char* end = nullptr;
      plant.reasons = std::strtoull(item.c_str() + colon + 1, &end, 0);
      if (end == item.c_str() + colon + 1 || *end != '\0' || plant.reasons == 0) throw bad_burn_plant();
    } else {
      throw bad_burn_plant();
    }
    start = comma + 1;
  }
  return plant;
}
[[maybe_unused]] const bool kBurnPlantForm = register_plant("GPUBENCH_PLANT_BURN", bad_burn_plant, parse_burn_plant);

BurnPlant planted_faults() {
  const std::optional<std::string> planted = plant_for_this_gpu("GPUBENCH_PLANT_BURN", bad_burn_plant);
  return planted ? parse_burn_plant(*planted) : BurnPlant{};
}

// The exact element (i, j) of A B, summed on the host from the operands' definition.
double host_product(int i, int j) {
  long long sum = 0;
  for (int k = 0; k < kMatrix; ++k)
    sum += static_cast<long long>(
               kernels::burn_operand(static_cast<std::uint64_t>(i) + std::uint64_t{kMatrix} * k, kSeedA)) *
           kernels::burn_operand(static_cast<std::uint64_t>(k) + std::uint64_t{kMatrix} * j, kSeedB);
  return static_cast<double>(sum);
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

float as_float(std::uint64_t word) {
  const auto bits = static_cast<std::uint32_t>(word);
  float value = 0.0f;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The first product, checked at kSampledElements places against the host's exact sums (a wrong reference would make
// every later product "wrong"); the places spread over rows and columns, corners included.
void check_reference(const float* product, cudaStream_t stream) {
  std::vector<std::uint64_t> places;
  for (int s = 0; s < kSampledElements; ++s) {
    const auto i = static_cast<std::uint64_t>((s * 7919LL + (s == 1 ? kMatrix - 1 : 0)) % kMatrix);
    const auto j = static_cast<std::uint64_t>((s * 104729LL + 13 * (s > 1)) % kMatrix);
    places.push_back(i + j * kMatrix);
  }
  DeviceBuffer<std::uint64_t> where(places.size());
  DeviceBuffer<float> read(places.size());
  where.upload(places, stream);
  kernels::burn_gather<<<(kSampledElements + 255) / 256, 256, 0, stream>>>(product, where.data(), kSampledElements,
                                                                           read.data());
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<float> got = read.download(stream);
  for (std::size_t s = 0; s < places.size(); ++s) {
    const int i = static_cast<int>(places[s] % kMatrix), j = static_cast<int>(places[s] / kMatrix);
    const double want = host_product(i, j);
    if (static_cast<double>(got[s]) != want) {
      const std::string what = "wrong GEMM answer on GPU " + std::to_string(device().index) +
                               " at the burn's start: element (" + std::to_string(i) + ", " + std::to_string(j) +
                               ") of the first product read " + std::to_string(got[s]) + ", the exact sum is " +
                               std::to_string(want);
      report_wrong_result(what);
      throw std::runtime_error(what);
    }
  }
}

// One batch's events and the error counts copied out when it ends (pinned, so the copies stay asynchronous).
struct Batch {
  Event start, gemms_done, end;
  MappedHostValue<unsigned long long> gemm_wrong, memory_wrong;
  double enqueued_s = 0.0;
};

// One second of the burn: the work its finished batches did and the board's reading at its end.
struct Second {
  double at_s = 0.0;  // the reading's time, from the burn's start
  double flops = 0.0, gemm_s = 0.0, memory_bytes = 0.0, memory_s = 0.0;
  unsigned long long gemm_wrong = 0, memory_wrong = 0;  // counted so far
  LoadSample reading;
  std::optional<double> power_w;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double rate(double work, double seconds) { return seconds > 0.0 ? work / seconds : 0.0; }

void burn_row(benchmark::State& state) {
  const BurnPlant plant = planted_faults();
  const std::optional<double>& wrong_at = plant.wrong_at;
  const cudaStream_t s = stream();
  const std::size_t elements = std::size_t{kMatrix} * kMatrix;
  Cublas cublas(s);
  DeviceBuffer<__half> a(elements), b(elements);
  DeviceBuffer<float> product(elements), reference(elements);
  DeviceBuffer<std::uint64_t> words(kMemoryBytes / sizeof(std::uint64_t));
  DeviceBuffer<kernels::MemtestErrors> gemm_errors(1), memory_errors(1);
  const int blocks = device().sm_count * kBlocksPerSm;
  kernels::burn_fill<<<blocks, kThreads, 0, s>>>(a.data(), elements, kSeedA);
  kernels::burn_fill<<<blocks, kThreads, 0, s>>>(b.data(), elements, kSeedB);
  GPUBENCH_CUDA_LAUNCHED();
  gemm_errors.fill_bytes(0, s);
  memory_errors.fill_bytes(0, s);
  cublas.gemm(a.data(), b.data(), reference.data(), kMatrix);
  check_reference(reference.data(), s);

  const double flops_per_gemm = 2.0 * kMatrix * static_cast<double>(kMatrix) * kMatrix;
  const double memory_bytes_per_round = 8.0 * static_cast<double>(words.bytes());
  LoadWatch watch(device().index);
  std::array<Batch, 2> batches;
  std::deque<int> in_flight;
  std::vector<Second> seconds;
  Second current;
  double total_flops = 0, total_gemm_s = 0, total_memory_bytes = 0, total_memory_s = 0;
  std::optional<double> first_gemm_wrong_s, first_memory_wrong_s;
  bool planted = false;
  long long rounds = 0, gemms = 0;
  const double duration = preset_duration();
  const LoadSample first = watch.sample();
  LoadSample previous = first;
  const double started_unix_s =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0.0;

  const auto enqueue = [&](int slot) {
    Batch& batch = batches[static_cast<std::size_t>(slot)];
    batch.enqueued_s = seconds_since(start);
    GPUBENCH_CUDA(cudaEventRecord(batch.start.get(), s));
    for (int g = 0; g < kGemmsPerBatch; ++g) {
      cublas.gemm(a.data(), b.data(), product.data(), kMatrix);
      if (wrong_at && !planted && batch.enqueued_s >= *wrong_at) {
        kernels::memtest_flip<<<1, 1, 0, s>>>(reinterpret_cast<std::uint64_t*>(product.data()), 12345, 3);
        planted = true;
      }
      kernels::burn_compare<<<blocks, kThreads, 0, s>>>(reinterpret_cast<const std::uint32_t*>(product.data()),
                                                        reinterpret_cast<const std::uint32_t*>(reference.data()),
                                                        elements, gemm_errors.data());
    }
    GPUBENCH_CUDA_LAUNCHED();
    GPUBENCH_CUDA(cudaEventRecord(batch.gemms_done.get(), s));
    kernels::queue_memtest(words.data(), words.size(), 0x6B17ull + static_cast<std::uint64_t>(rounds), blocks, s,
                           memory_errors.data(), -1, 0, true);
    GPUBENCH_CUDA_LAUNCHED();
    GPUBENCH_CUDA(cudaMemcpyAsync(batch.gemm_wrong.device(), &gemm_errors.data()->count, sizeof(unsigned long long),
                                  cudaMemcpyDefault, s));
    GPUBENCH_CUDA(cudaMemcpyAsync(batch.memory_wrong.device(), &memory_errors.data()->count, sizeof(unsigned long long),
                                  cudaMemcpyDefault, s));
    GPUBENCH_CUDA(cudaEventRecord(batch.end.get(), s));
    ++rounds;
    gemms += kGemmsPerBatch;
    in_flight.push_back(slot);
  };
  const auto account = [&](Batch& batch) {
    float gemm_ms = 0, memory_ms = 0;
    GPUBENCH_CUDA(cudaEventElapsedTime(&gemm_ms, batch.start.get(), batch.gemms_done.get()));
    GPUBENCH_CUDA(cudaEventElapsedTime(&memory_ms, batch.gemms_done.get(), batch.end.get()));
    current.flops += flops_per_gemm * kGemmsPerBatch;
    current.gemm_s += gemm_ms * 1e-3;
    current.memory_bytes += memory_bytes_per_round;
    current.memory_s += memory_ms * 1e-3;
    current.gemm_wrong = *batch.gemm_wrong.host();
    current.memory_wrong = *batch.memory_wrong.host();
    const double now = seconds_since(start);
    if (current.gemm_wrong > 0 && !first_gemm_wrong_s) first_gemm_wrong_s = now;
    if (current.memory_wrong > 0 && !first_memory_wrong_s) first_memory_wrong_s = now;
  };
  std::vector<double> real_reasons;  // the readings under a planted reason
  const auto close_second = [&] {
    current.at_s = elapsed;
    current.reading = watch.sample();
    if (plant.reasons_at) {
      real_reasons.push_back(static_cast<double>(current.reading.power.reasons.value_or(0)));
      if (elapsed >= *plant.reasons_at)
        current.reading.power.reasons = current.reading.power.reasons.value_or(0) | plant.reasons;
    }
    const PowerSample& before = previous.power;
    const PowerSample& after = current.reading.power;
    if (before.energy_mj && after.energy_mj && after.host_seconds > before.host_seconds)
      current.power_w =
          static_cast<double>(*after.energy_mj - *before.energy_mj) * 1e-3 / (after.host_seconds - before.host_seconds);
    else if (after.power_mw)
      current.power_w = *after.power_mw * 1e-3;
    total_flops += current.flops;
    total_gemm_s += current.gemm_s;
    total_memory_bytes += current.memory_bytes;
    total_memory_s += current.memory_s;
    previous = current.reading;
    seconds.push_back(current);
    const unsigned long long gemm_wrong = current.gemm_wrong, memory_wrong = current.memory_wrong;
    current = Second{};
    current.gemm_wrong = gemm_wrong;
    current.memory_wrong = memory_wrong;
  };

  for (auto _ : state) {
    bool stopping = false;
    while (true) {
      elapsed = seconds_since(start);
      stopping = stopping || elapsed >= duration || run_interrupted();
      if (!stopping)
        for (int slot = 0; slot < 2 && in_flight.size() < 2; ++slot)
          if (std::find(in_flight.begin(), in_flight.end(), slot) == in_flight.end()) enqueue(slot);
      if (elapsed >= static_cast<double>(seconds.size() + 1)) close_second();
      if (in_flight.empty()) break;
      Batch& oldest = batches[static_cast<std::size_t>(in_flight.front())];
      const cudaError_t status = cudaEventQuery(oldest.end.get());
      if (status == cudaSuccess) {
        account(oldest);
        in_flight.pop_front();
        continue;
      }
      if (status != cudaErrorNotReady) GPUBENCH_CUDA(status);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    elapsed = seconds_since(start);
    // The last partial second's work counts in the totals, not as a second of the series.
    total_flops += current.flops;
    total_gemm_s += current.gemm_s;
    total_memory_bytes += current.memory_bytes;
    total_memory_s += current.memory_s;
    state.SetIterationTime(elapsed);
  }
  const LoadSample last = watch.sample();
  const kernels::MemtestErrors gemm_found = gemm_errors.download(s).front();
  const kernels::MemtestErrors memory_found = memory_errors.download(s).front();

  // The rate held at the end: the last quarter of the seconds (hot, and past any boost the start had).
  double end_flops = 0, end_gemm_s = 0;
  for (std::size_t i = seconds.size() * 3 / 4; i < seconds.size(); ++i) {
    end_flops += seconds[i].flops;
    end_gemm_s += seconds[i].gemm_s;
  }
  std::vector<double> at, tflops, memory_gbs, power, sm_mhz, memory_mhz, temperature, memory_temperature, reasons;
  double hottest = 0, hottest_memory = 0;
  for (const Second& second : seconds) {
    at.push_back(second.at_s);
    tflops.push_back(rate(second.flops, second.gemm_s) * 1e-12);
    memory_gbs.push_back(rate(second.memory_bytes, second.memory_s) * 1e-9);
    power.push_back(second.power_w.value_or(0.0));
    sm_mhz.push_back(second.reading.sm_mhz.value_or(0));
    memory_mhz.push_back(second.reading.memory_mhz.value_or(0));
    temperature.push_back(second.reading.temperature_c.value_or(0));
    memory_temperature.push_back(second.reading.memory_temperature_c.value_or(0));
    reasons.push_back(static_cast<double>(second.reading.power.reasons.value_or(0)));
    hottest = std::max(hottest, temperature.back());
    hottest_memory = std::max(hottest_memory, memory_temperature.back());
  }
  report_series("burn_at_s", at);
  report_series("gemm_tflops", tflops);
  report_series("memory_gbs", memory_gbs);
  report_series("power_w", power);
  report_series("nvml_sm_mhz", sm_mhz);
  report_series("nvml_memory_mhz", memory_mhz);
  report_series("temperature_c", temperature);
  report_series("memory_temperature_c", memory_temperature);
  report_series("clock_reasons", reasons);
  if (plant.reasons_at) report_series("clock_reasons_real", real_reasons);

  state.counters["gemm_tflops"] = rate(total_flops, total_gemm_s) * 1e-12;
  state.counters["gemm_tflops_end"] = rate(end_flops, end_gemm_s) * 1e-12;
  state.counters["memory_gbs"] = rate(total_memory_bytes, total_memory_s) * 1e-9;
  state.counters["gemms"] = static_cast<double>(gemms);
  state.counters["memory_rounds"] = static_cast<double>(rounds);
  state.counters["burn_s"] = elapsed;
  state.counters["started_unix_s"] = started_unix_s;
  state.counters["temperature_c_max"] = hottest;
  state.counters["memory_temperature_c_max"] = hottest_memory;
  if (first.power.energy_mj && last.power.energy_mj && last.power.host_seconds > first.power.host_seconds)
    state.counters["power_w"] = static_cast<double>(*last.power.energy_mj - *first.power.energy_mj) * 1e-3 /
                                (last.power.host_seconds - first.power.host_seconds);
  if (last.power.limit_mw) state.counters["power_limit_w"] = *last.power.limit_mw * 1e-3;
  if (first.power.power_violation_ns && last.power.power_violation_ns)
    state.counters["power_capped_s"] =
        static_cast<double>(*last.power.power_violation_ns - *first.power.power_violation_ns) * 1e-9;
  if (first.power.thermal_violation_ns && last.power.thermal_violation_ns)
    state.counters["thermal_capped_s"] =
        static_cast<double>(*last.power.thermal_violation_ns - *first.power.thermal_violation_ns) * 1e-9;
  state.counters["wrong_elements"] = static_cast<double>(gemm_found.count);
  state.counters["wrong_words"] = static_cast<double>(memory_found.count);
  if (watch.unavailable()) state.SetLabel("no clocks, power or temperatures: " + *watch.unavailable());
  if (plant.reasons_at) state.SetLabel("clock-event reasons planted: GPUBENCH_PLANT_BURN=" + plant.spec);

  const std::string gpu = "GPU " + std::to_string(device().index);
  std::string wrong;  // the row's label: what the card and the verdict name
  const auto say_wrong = [&](const std::string& what) {
    report_wrong_result(what);
    wrong += (wrong.empty() ? "" : "; ") + what;
    state.SetLabel(wrong);
  };
  if (gemm_found.count > 0) {
    const std::uint64_t index = gemm_found.index[0];
    std::string what = "wrong GEMM answer on " + gpu + " during the burn: " + std::to_string(gemm_found.count) +
                       " element(s) of " + std::to_string(gemms) + " products read other than the verified first " +
                       "product, first seen by " + std::to_string(static_cast<int>(first_gemm_wrong_s.value_or(0))) +
                       " s; element (" + std::to_string(index % kMatrix) + ", " + std::to_string(index / kMatrix) +
                       ") read " + std::to_string(as_float(gemm_found.read[0])) + " (" + hex(gemm_found.read[0]) +
                       "), expected " + std::to_string(as_float(gemm_found.expected[0])) + " (" +
                       hex(gemm_found.expected[0]) + ")";
    if (planted) what += " [planted: GPUBENCH_PLANT_BURN]";
    say_wrong(what);
  }
  if (memory_found.count > 0) {
    const std::size_t offset = memory_found.index[0] * sizeof(std::uint64_t);
    say_wrong("wrong memory on " + gpu + " during the burn: " + std::to_string(memory_found.count) +
              " word(s) read other than written, first seen by " +
              std::to_string(static_cast<int>(first_memory_wrong_s.value_or(0))) + " s; byte " + hex(offset) +
              " of the burn's buffer (device address " + hex(reinterpret_cast<std::uintptr_t>(words.data()) + offset) +
              "), bits " + hex(memory_found.expected[0] ^ memory_found.read[0]) + " differ");
  }
}

GPUBENCH_FAMILY(Burn) {
  if (family.preset() != Preset::kBurn) return;  // minutes of full load: the burn preset's alone
  only_in_preset(family.gpu("Burn/gemm_and_memory", {}, burn_row))->Iterations(1);
}

GPUBENCH_COUNTERS(
    Burn,
    {"gemm_tflops", "TFLOP/s", CounterKind::kMeasured,
     "the burn's FP16 tensor-core GEMM rate (8192^3, FP32 products), over the GEMMs' GPU time; as a series, each "
     "second's",
     Better::kHigher, false},
    {"gemm_tflops_end", "TFLOP/s", CounterKind::kMeasured, "the burn's GEMM rate over its last quarter (hot)",
     Better::kHigher, false},
    {"memory_gbs", "GB/s", CounterKind::kMeasured,
     "the burn's memory-test rate (8 passes over 2 GiB a round), over its rounds' GPU time; as a series, each "
     "second's"},
    {"gemms", "products", CounterKind::kMeasured, "GEMMs the burn ran, each verified against the first"},
    {"memory_rounds", "rounds", CounterKind::kMeasured, "memory-test rounds the burn ran, each verified"},
    {"burn_s", "s", CounterKind::kMeasured, "how long the burn ran"},
    {"burn_at_s", "s", CounterKind::kMeasured, "series: each second's reading, from the burn's start"},
    {"started_unix_s", "s", CounterKind::kMeasured,
     "when the burn started (Unix time): a node's GPUs' timelines set side by side"},
    {"power_capped_s", "s", CounterKind::kMeasured, "time the power cap held the clocks back (NVML violation time)"},
    {"thermal_capped_s", "s", CounterKind::kMeasured, "time temperature held the clocks back (NVML violation time)"},
    {"nvml_sm_mhz", "MHz", CounterKind::kMeasured, "series: the SM clock each second (NVML)"},
    {"nvml_memory_mhz", "MHz", CounterKind::kMeasured, "series: the memory clock each second (NVML)"},
    {"temperature_c", "C", CounterKind::kMeasured, "series: the GPU's temperature each second"},
    {"memory_temperature_c", "C", CounterKind::kMeasured, "series: HBM's temperature each second (0: not reported)"},
    {"temperature_c_max", "C", CounterKind::kMeasured, "the GPU's hottest second"},
    {"memory_temperature_c_max", "C", CounterKind::kMeasured, "HBM's hottest second (0: not reported)"},
    {"clock_reasons_real", "bits", CounterKind::kMeasured,
     "series: NVML's clock-event reasons as read, beside a planted clock_reasons (GPUBENCH_PLANT_BURN)"},
    {"wrong_elements", "elements", CounterKind::kMeasured,
     "GEMM product elements that read other than the verified first product (named in the wrong result)"});

}  // namespace
}  // namespace gpubench
