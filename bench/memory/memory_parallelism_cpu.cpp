//! MemoryParallelismCPU: the host's side of memory-level parallelism. C independent chases per thread
//! (unrolled, so one core overlaps their misses) x T threads over a set far beyond the last-level
//! cache, and a plain multithreaded read of the same buffer, so the chase's best is a fraction of a
//! bandwidth measured in the same run. Runs without a GPU.
#include "bench/memory/chase/host_parallel_chase.h"
#include "bench/memory/chase/pointer_chain.h"
#include "common/arg_cache.h"
#include "common/counter_catalog.h"
#include "common/registry.h"

#include <benchmark/benchmark.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gpubench {
namespace {

constexpr std::size_t kSetBytes = std::size_t{1} << 30;  // past any last-level cache
constexpr std::size_t kNodeBytes = 64;                   // one cache line per node
constexpr std::size_t kStepsPerChain = 1 << 13;          // loads each chain makes per iteration

struct HostSet {
  HostSet() : chain(make_chase_chain(kSetBytes, kNodeBytes, 1)), words(chase_words(chain)) {}
  ChaseChain chain;
  std::vector<std::uint32_t> words;
};

HostSet& host_set() {
  static ArgCache<HostSet> cache;
  return cache.get({}, [] { return HostSet(); });
}

// The CPUs this process may run on, in order: thread t is pinned to the t-th (containers restrict the set).
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

struct TeamRun {
  double seconds;  // from the common start to the last thread's finish
  bool pinned;     // every thread ran pinned to its own CPU
};

// Runs work(t) on `threads` threads that start together.
TeamRun run_team(int threads, const std::function<void(int)>& work) {
  static const std::vector<int> cpus = allowed_cpus();
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> pinned{static_cast<int>(cpus.size()) >= threads};
  std::vector<std::thread> team;
  team.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      if (pinned.load() && !cpus.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpus[static_cast<std::size_t>(t) % cpus.size()], &set);
        if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) pinned = false;
      }
      ++ready;
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      work(t);
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  const auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread& thread : team) thread.join();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), pinned.load()};
}

void chase_chains(benchmark::State& state) {
  const int chains = static_cast<int>(arg(state, "chains"));
  const int threads = static_cast<int>(arg(state, "threads"));
  HostSet& set = host_set();
  const std::size_t total = static_cast<std::size_t>(chains) * static_cast<std::size_t>(threads);
  const std::size_t spacing = set.chain.nodes / total;  // chains evenly spaced along the one cycle
  std::vector<std::size_t> start_places(total);
  std::vector<std::uint32_t> at(total);
  for (std::size_t i = 0; i < total; ++i) {
    start_places[i] = i * spacing;
    at[i] = chase_end(set.chain, start_places[i], 0);
  }
  double seconds = 0.0;
  bool pinned = true;
  for (auto _ : state) {
    const TeamRun run = run_team(threads, [&](int t) {
      walk_chains(chains, set.words.data(), at.data() + static_cast<std::size_t>(t) * chains, kStepsPerChain);
    });
    state.SetIterationTime(run.seconds);
    seconds += run.seconds;
    pinned = pinned && run.pinned;
  }
  // Every chain stands where the host's walk of the cycle says.
  const std::size_t steps = static_cast<std::size_t>(state.iterations()) * kStepsPerChain;
  for (std::size_t i = 0; i < total; ++i)
    if (at[i] != chase_end(set.chain, start_places[i], steps))
      throw std::runtime_error("host chain " + std::to_string(i) + " ended off the cycle's order");

  const double loads = static_cast<double>(total) * static_cast<double>(steps);
  state.SetBytesProcessed(static_cast<std::int64_t>(loads * kNodeBytes));
  state.counters["loads_in_flight"] = static_cast<double>(total);  // one line per chain
  state.counters["pinned"] = pinned ? 1 : 0;
  // Per chain, the time of one load under this load: Little's law's latency, L = in flight / rate.
  state.counters["ns_per_load_per_chain"] = seconds / static_cast<double>(steps) * 1e9;
  state.counters["implied_latency_ns"] = static_cast<double>(total) / (loads / seconds) * 1e9;
  state.counters["working_set_bytes"] = static_cast<double>(kSetBytes);
}

void read_all(benchmark::State& state) {
  const int threads = static_cast<int>(arg(state, "threads"));
  HostSet& set = host_set();
  const std::size_t slice = set.words.size() / static_cast<std::size_t>(threads);
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(threads));
  bool pinned = true;
  for (auto _ : state) {
    const TeamRun run = run_team(threads, [&](int t) {
      sums[static_cast<std::size_t>(t)] = read_words(set.words.data() + static_cast<std::size_t>(t) * slice, slice);
    });
    state.SetIterationTime(run.seconds);
    pinned = pinned && run.pinned;
    benchmark::DoNotOptimize(sums.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(slice * threads * sizeof(std::uint32_t)));
  state.counters["pinned"] = pinned ? 1 : 0;
  state.counters["working_set_bytes"] = static_cast<double>(kSetBytes);
}

// 1, 2, 4, ... and every hardware thread.
std::vector<std::int64_t> thread_counts(bool quick) {
  const std::int64_t most = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::thread::hardware_concurrency()));
  std::vector<std::int64_t> counts;
  for (std::int64_t t = 1; t < most; t *= 2)
    if (!quick || t == 1) counts.push_back(t);
  counts.push_back(most);
  return counts;
}

GPUBENCH_FAMILY(MemoryParallelismCPU) {
  const bool quick = family.preset() != Preset::kFull;
  auto* chases = family.cpu("MemoryParallelismCPU/chase", {"chains", "threads"}, chase_chains)->UseManualTime();
  for (std::int64_t chains : family.pick<std::vector<std::int64_t>>({1, 16}, {1, 2, 4, 8, 16}))
    for (std::int64_t threads : thread_counts(quick)) add_point(chases, {{"chains", chains}, {"threads", threads}});
  auto* reads = family.cpu("MemoryParallelismCPU/read", {"threads"}, read_all)->UseManualTime();
  for (std::int64_t threads : thread_counts(quick)) add_point(reads, {{"threads", threads}});
}

GPUBENCH_COUNTERS(MemoryParallelismCPU,
                  {"pinned", "flag", CounterKind::kMeasured, "1: every thread ran pinned to a CPU of its own"},
                  {"ns_per_load_per_chain", "ns", CounterKind::kMeasured,
                   "wall time per dependent load of one chain (its latency under this load)", Better::kLower});

}  // namespace
}  // namespace gpubench
