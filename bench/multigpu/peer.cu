//! Talking to another GPU: copy bandwidth between the GPU under test and a peer (cudaMemcpyPeerAsync,
//! each way and both at once), a kernel reading and writing the peer's memory over peer access, and
//! load-to-use latency of a pointer chase in the peer's memory against the same chase in local memory.
//! Bandwidths are per direction against the NVLink links' sum (nvidia-smi), where there are links.
#include "bench/memory/bandwidth.h"
#include "bench/memory/chase/device_chain.cuh"
#include "bench/multigpu/peer_memory.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/experiment.h"
#include "common/link_turn.h"
#include "common/registry.h"
#include "kernels/memory/pointer_chase.cuh"
#include "kernels/memory/stream.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {
namespace {

constexpr std::int64_t kLocalToPeer = 0, kPeerToLocal = 1, kBothWays = 2;
constexpr std::uint32_t kWarmupLoads = 2048;
constexpr std::uint32_t kTimedLoads = 4096;
constexpr int kStreamBlocksPerSm = 4;  // the read's best grid on an H100 (docs/experiments/stream.md)
constexpr int kStreamThreads = 256;

// The peer a row talks to, or a skip with the reason.
bool peer_usable(benchmark::State& state, int peer) {
  const int local = device().index;
  const int count = cuda_device_count();
  if (peer >= count) {
    skip_benchmark(state, "needs GPU " + std::to_string(peer) + "; this host has " + std::to_string(count));
    return false;
  }
  if (peer == local) {
    skip_benchmark(state, "GPU " + std::to_string(peer) + " is the GPU under test (--gpubench_device)");
    return false;
  }
  // Both ways, as nvbandwidth does: the way back of a two-way copy runs on the peer's stream, and
  // without the peer's access to this GPU it took the slow path (both ways moved no more than one).
  if (!enable_peer_access(local, peer) || !enable_peer_access(peer, local)) {
    skip_benchmark(state, "GPU " + std::to_string(local) + " cannot access GPU " + std::to_string(peer) + "'s memory");
    return false;
  }
  return true;
}

// In a node run, the row waits for its turn on the peer's link (link_turn.h); a skip says why none came.
bool turn_granted(benchmark::State& state, const LinkTurn& turn) {
  if (!turn.granted()) skip_benchmark(state, turn.why_not());
  return turn.granted();
}

// The NVLink links of the GPU under test (nvidia-smi, once a process: asked before a node's turn, not during it).
NvlinkStatus links_of_local() { return nvlink_status(device().index); }

// Bandwidth against the link: per direction for one-way rows, both directions' sum for two-way ones.
void report_link_share(benchmark::State& state, double bytes_per_launch, int directions) {
  const NvlinkStatus links = links_of_local();
  state.counters["nvlink_links"] = links.links;
  if (links.gbs_per_direction > 0)
    state.counters["fraction_of_link"] = benchmark::Counter(
        bytes_per_launch * static_cast<double>(state.iterations()) / (links.gbs_per_direction * 1e9 * directions),
        benchmark::Counter::kIsRate);
}

// The two GPUs' buffers of a pair's copies: allocated before the row asks for its turn on the link (no traffic on
// either GPU, which may be measuring), filled once the turn is given.
struct CopyPair {
  CopyPair(int local, int peer, std::size_t bytes)
      : local_a(local, bytes / sizeof(float4)),
        local_b(local, bytes / sizeof(float4)),
        peer_a(peer, bytes / sizeof(float4)),
        peer_b(peer, bytes / sizeof(float4)) {}
  void fill_once() {
    if (filled) return;
    for (auto [buffer, value] : {std::pair{&local_a, 0x3C}, {&local_b, 0}, {&peer_a, 0x3D}, {&peer_b, 0}}) {
      ScopedDevice on(buffer->owner);
      (*buffer)->fill_bytes(value);
    }
    filled = true;
  }
  OwnedBuffer<float4> local_a, local_b, peer_a, peer_b;
  bool filled = false;
};

// The way back of a two-way copy runs on a stream of the peer (its own copy engine, as nvbandwidth's
// bidirectional copies do), forked from and joined into the timed stream.
struct WayBack {
  explicit WayBack(int peer) : fork(std::make_unique<Event>()) {
    ScopedDevice on(peer);
    stream = std::make_unique<Stream>();
    join = std::make_unique<Event>();
  }
  std::unique_ptr<Event> fork;
  std::unique_ptr<Stream> stream;
  std::unique_ptr<Event> join;
};

// A link's set-up where this process opens the peer (a run of one GPU, a quick or full node run, or a node check's link
// whose peer offered nothing): by peer, the copies' buffers of one size and the way back's stream, and the chase's
// chain of one size. A node run's child keeps every link's; elsewhere a row makes its peer's and frees the others' (a
// full run's 8 GiB copies to seven peers would not fit together).
struct LinkSetup {
  std::map<int, CopyPair> pairs;
  std::map<int, WayBack> ways_back;
  std::map<int, OnDevice<DirectChain>> chains;
};
ArgCache<LinkSetup> g_copy_setup, g_chase_setup;  // keyed by the copy's MiB, the chain's bytes

constexpr std::size_t kChaseStride = 128;
// The node check's chase to a peer's memory: at 4 MiB, the link's limit (links.py).
constexpr std::int64_t kLinkChaseBytes = std::int64_t{4} << 20;

// A node check's link whose memory on the peer the peer's own process makes (CUDA IPC: no process opens another's
// GPU, 6 contexts fewer on four GPUs). The two-way copy's way back is queued by the peer's process on its own copy
// engine, as the peer's stream does in a run of one GPU: from one GPU's engines both ways move one way's bytes (396.6
// against 782 GB/s on two H200s, .ci/device-probe-ipc).
struct SharedLink {
  SharedLink(std::size_t bytes, int peer)
      : local_a(bytes / sizeof(float4)), offered(std::make_shared<Offered>(bytes / sizeof(float4))) {
    local_a.fill_bytes(0x3C);
    offered->local_b.fill_bytes(0);
    node_offer(peer, "back_to", memory_handle(offered->local_b.data()));  // the way back's destination
    node_offer(peer, "fork", offered->fork.handle());
    hold_until_unmapped(offered);  // the peer's process maps them until the parent's "bye" to it
  }
  // The peer's offers, taken once (before the link's first turn: only this GPU's mappings change). False where the
  // peer offered nothing usable: its rows then make their own set-up, a context on the peer included.
  bool take_offers(int peer) {
    if (!taken) {
      taken = true;
      for (auto [memory, name] : {std::pair{&peer_a, "a"}, {&peer_b, "b"}, {&chain, "chain"}})
        *memory = std::make_unique<ImportedMemory>(node_offered(peer, name));
      join = std::make_unique<SharedEvent>(node_offered(peer, "join"));
      usable = peer_a->get() && peer_b->get() && chain->get() && join->get();
      if (!usable)
        std::fprintf(stderr, "gpubench: warning: GPU %d's process offered no memory for its link; the link opens it\n",
                     peer);
    }
    return usable;
  }
  // What the peer's process maps: kept past this process's GPU session until the peer has closed it (link_turn.h).
  struct Offered {
    explicit Offered(std::size_t count) : local_b(count) {}
    DeviceBuffer<float4> local_b;  // written by the copies from the peer, and by the way back
    SharedEvent fork;              // recorded before each two-way copy; the peer's way back waits for it
  };
  DeviceBuffer<float4> local_a;
  std::shared_ptr<Offered> offered;
  std::unique_ptr<ImportedMemory> peer_a, peer_b, chain;
  std::unique_ptr<SharedEvent> join;  // the peer's, recorded after its way back
  bool taken = false, usable = false;
};
struct SharedLinks {
  std::int64_t copy_mib = 0;
  std::map<int, SharedLink> by_peer;
};
ArgCache<SharedLinks> g_shared_links;  // one entry: freed with the GPU session, before the child says "done"

// The link to `peer` whose memory the peer's process made, where this is a node check's child and the row's size is
// the shared one (copies of `copy_mib`, or the 4 MiB chase: copy_mib 0); else null.
SharedLink* shared_link(int peer, std::int64_t copy_mib) {
  if (!g_shared_links.holds({0})) return nullptr;
  SharedLinks& links = g_shared_links.get({0}, [] { return SharedLinks(); });
  const auto found = links.by_peer.find(peer);
  if (found == links.by_peer.end() || (copy_mib != 0 && copy_mib != links.copy_mib)) return nullptr;
  return found->second.take_offers(peer) ? &found->second : nullptr;
}

// This GPU's side of the links its measurers' processes measure: their memory here, and their two-way copies' way back.
struct ServedLink {
  ServedLink(std::size_t bytes, int measurer)
      : a(bytes / sizeof(float4)), b(bytes / sizeof(float4)), chain(static_cast<std::size_t>(kLinkChaseBytes)) {
    a.fill_bytes(0x3D);
    b.fill_bytes(0);
    for (auto [memory, name] :
         {std::pair<const void*, const char*>{a.data(), "a"}, {b.data(), "b"}, {chain.data(), "chain"}})
      node_offer(measurer, name, memory_handle(memory));
    node_offer(measurer, "join", join.handle());
  }
  DeviceBuffer<float4> a, b;  // read by the copies to the measurer (and the way back), written by those from it
  DeviceBuffer<char> chain;   // the chase's chain, laid out by the measurer inside its turn
  SharedEvent join;
  std::unique_ptr<ImportedMemory> back_to;  // the measurer's, from its offers at the first way back
  std::unique_ptr<SharedEvent> fork;
};
struct ServedLinks {
  explicit ServedLinks(std::size_t copy_bytes) : bytes(copy_bytes) {}
  // Its way backs end before their measurers' memory is unmapped (the links, destroyed before the stream).
  ~ServedLinks() { GPUBENCH_CUDA_NOEXCEPT(cudaStreamSynchronize(stream.get())); }
  ServedLinks(const ServedLinks&) = delete;
  ServedLinks& operator=(const ServedLinks&) = delete;
  // Queues the way back of `measurer`'s two-way copy: after its fork, `a` here to its `back_to`, then the join.
  bool way_back(int measurer) {
    const auto found = links.find(measurer);
    if (found == links.end()) return false;
    ServedLink& link = found->second;
    if (!link.back_to) {
      link.back_to = std::make_unique<ImportedMemory>(node_offered(measurer, "back_to"));
      link.fork = std::make_unique<SharedEvent>(node_offered(measurer, "fork"));
    }
    if (!link.back_to->get() || !link.fork->get()) return false;
    GPUBENCH_CUDA(cudaStreamWaitEvent(stream.get(), link.fork->get(), 0));
    GPUBENCH_CUDA(cudaMemcpyAsync(link.back_to->get(), link.a.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    GPUBENCH_CUDA(cudaEventRecord(link.join.get(), stream.get()));
    return true;
  }
  std::size_t bytes;
  Stream stream;
  std::map<int, ServedLink> links;
};

template <class Value>
void keep_only(std::map<int, Value>& made, int peer) {
  if (!node_peers().empty()) return;  // a node's child keeps every link's
  for (auto at = made.begin(); at != made.end();) at = at->first == peer ? std::next(at) : made.erase(at);
}

CopyPair& copy_pair(LinkSetup& setup, int local, int peer, std::size_t bytes) {
  keep_only(setup.pairs, peer);
  auto at = setup.pairs.find(peer);
  if (at == setup.pairs.end()) at = setup.pairs.emplace(peer, CopyPair(local, peer, bytes)).first;
  return at->second;
}

WayBack& way_back(LinkSetup& setup, int peer) {
  keep_only(setup.ways_back, peer);
  auto at = setup.ways_back.find(peer);
  if (at == setup.ways_back.end()) at = setup.ways_back.emplace(peer, WayBack(peer)).first;
  return at->second;
}

DirectChain& chain_on(LinkSetup& setup, int memory_on, std::size_t bytes) {
  keep_only(setup.chains, memory_on);
  auto at = setup.chains.find(memory_on);
  if (at == setup.chains.end())
    at = setup.chains.emplace(memory_on, OnDevice<DirectChain>(memory_on, bytes, kChaseStride, nullptr)).first;
  return *at->second;
}

// The chase's chain in the memory the peer's process made (SharedLink), laid out from this GPU.
DirectChain& chain_in(LinkSetup& setup, int memory_on, std::size_t bytes, SharedLink& link) {
  auto at = setup.chains.find(memory_on);
  if (at == setup.chains.end())
    at = setup.chains
             .emplace(memory_on, OnDevice<DirectChain>(device().index, bytes, kChaseStride, nullptr,
                                                       static_cast<char*>(link.chain->get()),
                                                       static_cast<std::size_t>(kLinkChaseBytes)))
             .first;
  return *at->second;
}

// In a node run, what touches a link's peer (its buffers, its stream, the chain in its memory) is made where the peer
// measures nothing: inside the turn, which the link's first row then takes before its set-up.
bool made_before_the_rows(const LinkSetup& setup, int peer) {
  return node_peers().empty() || (setup.pairs.count(peer) && setup.ways_back.count(peer));
}

void report_copies(benchmark::State& state, const RunResult& result, std::size_t bytes, std::int64_t direction) {
  const int directions = direction == kBothWays ? 2 : 1;
  report_bandwidth(state, result, static_cast<double>(bytes) * directions, false);
  report_link_share(state, static_cast<double>(bytes) * directions, directions);
}

// The copies of a link whose memory the peer's process made (SharedLink): the way back by that process.
void shared_copy_rows(benchmark::State& state, SharedLink& link, int peer, std::int64_t mib, std::int64_t direction) {
  const LinkTurn turn(peer);
  if (!turn_granted(state, turn)) return;
  const std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  RunOptions options;
  options.stamps_cycles = false;
  const RunResult result = run(
      state,
      [&](cudaStream_t s, Clocks) {
        if (direction == kBothWays) {  // the peer queues its way back after the fork, before the first copy is queued
          GPUBENCH_CUDA(cudaEventRecord(link.offered->fork.get(), s));
          std::string why_not;
          if (!node_way_back(peer, why_not)) throw std::runtime_error(why_not);
        }
        if (direction == kPeerToLocal)
          GPUBENCH_CUDA(cudaMemcpyAsync(link.offered->local_b.data(), link.peer_a->get(), bytes, cudaMemcpyDefault, s));
        else
          GPUBENCH_CUDA(cudaMemcpyAsync(link.peer_b->get(), link.local_a.data(), bytes, cudaMemcpyDefault, s));
        if (direction == kBothWays) GPUBENCH_CUDA(cudaStreamWaitEvent(s, link.join->get(), 0));
      },
      options);
  report_copies(state, result, bytes, direction);
}

void copy_rows(benchmark::State& state) {
  const int peer = static_cast<int>(arg(state, "peer"));
  const std::int64_t mib = arg(state, "MiB");
  const std::int64_t direction = arg(state, "direction");
  links_of_local();
  if (SharedLink* shared = shared_link(peer, mib)) {
    shared_copy_rows(state, *shared, peer, mib, direction);
    return;
  }
  LinkSetup& setup = g_copy_setup.get({mib}, [] { return LinkSetup(); });
  std::optional<LinkTurn> turn;
  if (!made_before_the_rows(setup, peer)) turn.emplace(peer);
  if (turn && !turn_granted(state, *turn)) return;
  if (!peer_usable(state, peer)) return;
  const int local = device().index;
  const std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  CopyPair& p = copy_pair(setup, local, peer, bytes);
  WayBack& back = way_back(setup, peer);
  if (!turn) turn.emplace(peer);
  if (!turn_granted(state, *turn)) return;
  p.fill_once();
  RunOptions options;
  options.stamps_cycles = false;
  const RunResult result = run(
      state,
      [&](cudaStream_t s, Clocks) {
        if (direction == kBothWays) {  // forked before the first copy is queued, so the two run together
          GPUBENCH_CUDA(cudaEventRecord(back.fork->get(), s));
          GPUBENCH_CUDA(cudaStreamWaitEvent(back.stream->get(), back.fork->get(), 0));
          GPUBENCH_CUDA(
              cudaMemcpyPeerAsync(p.local_b->data(), local, p.peer_a->data(), peer, bytes, back.stream->get()));
          GPUBENCH_CUDA(cudaEventRecord(back.join->get(), back.stream->get()));
        }
        if (direction == kPeerToLocal)
          GPUBENCH_CUDA(cudaMemcpyPeerAsync(p.local_b->data(), local, p.peer_a->data(), peer, bytes, s));
        else
          GPUBENCH_CUDA(cudaMemcpyPeerAsync(p.peer_b->data(), peer, p.local_a->data(), local, bytes, s));
        if (direction == kBothWays)
          GPUBENCH_CUDA(cudaStreamWaitEvent(s, back.join->get(), 0));  // joined into the timed stream
      },
      options);
  report_copies(state, result, bytes, direction);
}

// The Stream family's read and write kernels, on the GPU under test, over the peer's memory.
template <kernels::StreamOp Op>
void kernel_rows(benchmark::State& state) {
  static ArgCache<OwnedBuffer<float4>> remote;
  static ArgCache<DeviceBuffer<float>> partial;
  const int peer = static_cast<int>(arg(state, "peer"));
  const std::int64_t mib = arg(state, "MiB");
  links_of_local();
  if (!peer_usable(state, peer)) return;  // peer access needs no turn
  const LinkTurn turn(peer);
  if (!turn_granted(state, turn)) return;
  const std::size_t count = (static_cast<std::size_t>(mib) << 20) / sizeof(float4);
  float4* memory = remote.get({peer, mib}, [&] { return owned_buffer<float4>(peer, count, 0x3C); })->data();
  const int blocks = device().sm_count * kStreamBlocksPerSm;
  float* sums =
      partial.get({blocks}, [&] { return DeviceBuffer<float>(static_cast<std::size_t>(blocks) * kStreamThreads); })
          .data();
  const kernels::StreamArrays<float4> arrays{memory, memory, memory, sums};
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) {
    kernels::stream<Op, float4><<<blocks, kStreamThreads, 0, s>>>(arrays, count, 1.0f, c);
  });
  report_bandwidth(state, result, static_cast<double>(count * sizeof(float4)), false);
  report_link_share(state, static_cast<double>(count * sizeof(float4)), 1);
}

// PointerChase/direct's load-to-use chase, run on SM 0 of the GPU under test, over a chain in the
// memory of GPU `memory_on` (the GPU under test itself: the local baseline in the same run).
void chase_rows(benchmark::State& state) {
  static unsigned long long launch_id = 0;
  const int memory_on = static_cast<int>(arg(state, "memory_on"));
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  const bool remote = memory_on != device().index;
  LinkSetup& setup = g_chase_setup.get({arg(state, "bytes")}, [] { return LinkSetup(); });
  // The chain is built inside the turn: no traffic on a peer that may be measuring, and the chain in its L2 as a run of
  // one GPU has it.
  SharedLink* shared = remote && arg(state, "bytes") == kLinkChaseBytes ? shared_link(memory_on, 0) : nullptr;
  const LinkTurn turn(remote ? memory_on : -1);
  if (remote && !turn_granted(state, turn)) return;
  if (remote && !shared && !peer_usable(state, memory_on)) return;
  DirectChain& chain = shared ? chain_in(setup, memory_on, bytes, *shared) : chain_on(setup, memory_on, bytes);
  constexpr auto kernel = kernels::pointer_chase_direct<kernels::LoadPath::kCached>;
  const unsigned blocks = 2 * static_cast<unsigned>(device().sm_count);  // one lands on SM 0
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) {
    kernel<<<blocks, 1, 0, s>>>(chain.position(), kWarmupLoads, kTimedLoads, c, 0, ++launch_id);
  });
  report_per(state, result, "load", kTimedLoads);

  DeviceBuffer<std::uint64_t> check = chain.position_at(0);  // the walk ends where the host says
  kernel<<<blocks, 1, 0, stream()>>>(check.data(), kWarmupLoads, kTimedLoads, Clocks{}, 0, ++launch_id);
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream()));
  chain.expect_walked(check, 0, kWarmupLoads + kTimedLoads);
}

// The GPUs a row on `under_test` talks to: every other GPU of the host (at least one, so a one-GPU
// host lists the row and skips it with the reason); the quick preset takes the first. A node run names the
// peer of each of its pairs (--gpubench_peers=N,M: docs/harness.md).
std::vector<std::int64_t> peers_of(int under_test, const Family& family) {
  std::vector<std::int64_t> peers;
  for (int named : node_peers())
    if (named != under_test) peers.push_back(named);
  if (!peers.empty()) return peers;
  for (int gpu = 0; gpu < std::max(2, cuda_device_count()); ++gpu)
    if (gpu != under_test) peers.push_back(gpu);
  return family.pick(std::vector<std::int64_t>{peers.front()}, peers);
}

// A node check's child, before its rows, while nothing measures: the memory of the links it measures (`peers`) on its
// own GPU, and that of the links its measurers measure to its GPU (SharedLink, ServedLinks), the copies' at
// `copy_mib`, each offered to the other process through the parent; no context on another GPU. The chase's chain is
// laid out inside the turn: there it is in the peer's L2 as in a run of one GPU (laid out before the rows, the peer's
// own rows had evicted it and the chase read 2.4% slower, x4l).
void prepare_links(const std::vector<int>& peers, std::int64_t copy_mib) {
  const int local = device().index;
  const std::size_t bytes = static_cast<std::size_t>(copy_mib) << 20;
  SharedLinks& shared = g_shared_links.get({0}, [] { return SharedLinks(); });
  shared.copy_mib = copy_mib;
  const auto reaches = [&](int other) {  // no context on `other`: the driver's answer only
    int can = 0;
    return other != local && other < cuda_device_count() &&
           cudaDeviceCanAccessPeer(&can, local, other) == cudaSuccess && can;
  };
  for (int peer : peers)
    if (reaches(peer)) shared.by_peer.try_emplace(peer, bytes, peer);  // else its rows say why
  auto served = std::make_shared<ServedLinks>(bytes);
  for (int measurer : node_measurers())
    if (reaches(measurer)) served->links.try_emplace(measurer, bytes, measurer);
  set_link_server([served](int measurer) { return served->way_back(measurer); });
}

GPUBENCH_FAMILY_AFTER_OTHERS(Peer) {
  static std::once_flag topology_added;  // the host's, whichever GPU is under test
  std::call_once(topology_added, [] { benchmark::AddCustomContext("gpubench_peer_topology", peer_topology()); });
  // Registered once per GPU under test, so --gpubench_device=all measures every ordered pair.
  const std::vector<std::int64_t> peers = peers_of(family.device(), family);
  // The node check takes the latency to each peer's memory at 4 MiB, the link's limit (links.py); the local
  // baseline and the 1 GiB chase, which no limit reads, would lengthen every pair's turn.
  const auto chase_sizes = family.pick<std::vector<std::int64_t>>(
      {kLinkChaseBytes, std::int64_t{1} << 30},
      {std::int64_t{1} << 20, kLinkChaseBytes, std::int64_t{64} << 20, std::int64_t{1} << 30});
  auto* local = family.gpu("Peer/chase", {"memory_on", "bytes"}, chase_rows);  // the local baseline first
  for (std::int64_t bytes : chase_sizes) add_point(local, {{"memory_on", family.device()}, {"bytes", bytes}});
  // The check copies 1 GiB, in half 2 GiB's time, since a node's check measures every pair; its rate against 2 GiB's
  // is in docs/experiments/peer.md.
  const std::vector<std::int64_t> copy_sizes =
      family.preset() == Preset::kCheck ? std::vector<std::int64_t>{1024}
                                        : family.pick<std::vector<std::int64_t>>({2048}, {32, 256, 1024, 2048, 8192});
  // Each peer's rows together, registered peer by peer: a node run's turns on that link follow one another
  // (link_turn.h). The node check measures NVLink where there is a peer: the copies, both ways, and the chase.
  // The node check's child makes its links' memory before its rows, shared with each peer's process (2 GiB a link on
  // each GPU); a quick or full node run makes each link's inside its turn, a context on the peer included (its larger
  // copies to every peer would crowd its own rows' memory).
  if ((!node_peers().empty() || !node_measurers().empty()) && family.preset() == Preset::kCheck) {
    const std::int64_t copy_mib = copy_sizes.front();
    set_link_preparation([copy_mib](const std::vector<int>& node) { prepare_links(node, copy_mib); });
  }
  for (std::int64_t peer : peers) {
    auto* copies = in_check(family.gpu("Peer/copy", {"peer", "MiB", "direction"}, copy_rows));
    for (std::int64_t mib : copy_sizes)
      for (std::int64_t direction : {kLocalToPeer, kPeerToLocal, kBothWays})
        add_point(copies, {{"peer", peer}, {"MiB", mib}, {"direction", direction}});
    for (const auto& [name, body] : {std::pair{"Peer/read", kernel_rows<kernels::StreamOp::kRead>},
                                     std::pair{"Peer/write", kernel_rows<kernels::StreamOp::kWrite>}}) {
      auto* rows = family.gpu(name, {"peer", "MiB"}, body);
      for (std::int64_t mib : family.pick<std::vector<std::int64_t>>({2048}, {32, 2048}))
        add_point(rows, {{"peer", peer}, {"MiB", mib}});
    }
    auto* chases = family.gpu("Peer/chase", {"memory_on", "bytes"}, chase_rows);
    for (std::int64_t bytes : chase_sizes)
      add_point(chases, {{"memory_on", peer}, {"bytes", bytes}}, bytes == kLinkChaseBytes ? Check::kToo : Check::kNo);
  }
}

GPUBENCH_COUNTERS(Peer,
                  {"fraction_of_link", "fraction", CounterKind::kMeasured,
                   "bytes_per_second over the NVLink links' bandwidth in the directions the copy uses",
                   Better::kHigher},
                  {"nvlink_links", "links", CounterKind::kFixed, "NVLink links between the two GPUs (NVML)"});

}  // namespace
}  // namespace gpubench
