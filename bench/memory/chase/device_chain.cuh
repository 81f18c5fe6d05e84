// A pointer-chase chain laid out in device memory (kernels/memory/pointer_chase.cuh reads it), with
// the host's copy of the cycle order kept to check where a chase on the device must end.
#pragma once

#include "bench/memory/chase/pointer_chain.h"
#include "common/cuda_check.h"
#include "common/device_memory.h"
#include "kernels/memory/pointer_chase.cuh"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpubench {

// Every chain of the chase families is this seed's cycle, so indexed and direct chases walk the same order.
inline constexpr std::uint64_t kChainSeed = 1;

class DeviceChain {
 public:
  // index_bytes: 4 for word indices, or the stride for node indices (sets beyond 2^32 words).
  // copies: how many words of each node hold the link (32 for warp-wide chases).
  DeviceChain(std::size_t bytes, std::size_t stride, std::size_t index_bytes, std::uint32_t copies, cudaStream_t stream)
      : host_(make_chase_chain(bytes, stride, kChainSeed)),
        value_scale_(static_cast<std::uint32_t>(stride / index_bytes)),
        words_(host_.word_count()),
        position_(2),
        stream_(stream) {
    if (index_bytes != 4 && index_bytes != stride)
      throw std::invalid_argument("chain index unit must be a word or the stride");
    if (copies > host_.stride_words) throw std::invalid_argument("more link copies than words in a node");
    if (index_bytes == 4 && host_.word_count() > UINT32_MAX)
      throw std::invalid_argument("set too large for word indices; index by node");
    words_.fill_bytes(0, stream);
    DeviceBuffer<std::uint32_t> next(host_.nodes);
    next.upload(host_.next, stream);
    kernels::place_chain_nodes<<<1024, 256, 0, stream>>>(words_.data(), next.data(), host_.nodes, host_.stride_words,
                                                         value_scale_, copies);
    GPUBENCH_CUDA_LAUNCHED();
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    set_position(0);
  }

  const ChaseChain& host() const { return host_; }
  const std::uint32_t* words() const { return words_.data(); }
  std::uint32_t* position() const { return position_.data(); }
  // The value (index) of the node at place `at` of the walk, and of the node `steps` loads later.
  std::uint32_t value_at(std::size_t at) const { return host_.order[at % host_.nodes] * value_scale_; }
  std::uint32_t value_after(std::size_t at, std::size_t steps) const { return value_at(at + steps); }
  // Puts the single-thread walk at place `at` of the cycle.
  void set_position(std::size_t at) { position_.upload({value_at(at), 0}, stream_); }
  // The SM the last single-thread chase ran on (-1 before any).
  int last_sm() const { return static_cast<int>(position_.download(stream_)[1]) - 1; }
  // Throws unless the single-thread walk, started at place 0 `steps` loads ago, stands where the host says.
  void expect_position(std::size_t steps) const { expect_walked(position_, 0, steps); }
  // A position of its own at place `at`: for checks that must not move (or restart) the main walk.
  DeviceBuffer<std::uint32_t> position_at(std::size_t at) const {
    DeviceBuffer<std::uint32_t> position(2);
    position.upload({value_at(at), 0}, stream_);
    return position;
  }
  // Throws unless `position`, started at place `from`, stands `steps` loads further on, as the host says.
  void expect_walked(const DeviceBuffer<std::uint32_t>& position, std::size_t from, std::size_t steps) const {
    const std::uint32_t device = position.download(stream_).front();
    if (device != value_after(from, steps))
      throw std::runtime_error("pointer chase ended on index " + std::to_string(device) +
                               " but the host's chase of the " + "same chain ends on " +
                               std::to_string(value_after(from, steps)));
  }

 private:
  ChaseChain host_;
  std::uint32_t value_scale_;
  DeviceBuffer<std::uint32_t> words_;
  DeviceBuffer<std::uint32_t> position_;
  cudaStream_t stream_;  // the stream the chain's kernels run on
};

// The same cycle laid out for the load-to-use chase: each node holds the next node's address, and
// the walk's position is an address (kernels::pointer_chase_direct).
class DirectChain {
 public:
  // The chain in memory of its own, or laid out in `memory` (`memory_bytes` of it, owned elsewhere: another process's
  // memory mapped into this one).
  DirectChain(std::size_t bytes, std::size_t stride, cudaStream_t stream, char* memory = nullptr,
              std::size_t memory_bytes = 0)
      : host_(make_chase_chain(bytes, stride, kChainSeed)),
        owned_(memory != nullptr ? 0 : host_.word_count() * 4),
        nodes_(memory != nullptr ? memory : owned_.data()),
        position_(kernels::kDirectPositionWords),
        stream_(stream) {
    if (stride % sizeof(std::uint64_t) != 0) throw std::invalid_argument("address chains need 8-byte-aligned nodes");
    if (memory != nullptr && memory_bytes < host_.word_count() * 4)
      throw std::invalid_argument("the chain needs " + std::to_string(host_.word_count() * 4) + " bytes; " +
                                  std::to_string(memory_bytes) + " were given");
    GPUBENCH_CUDA(cudaMemsetAsync(nodes_, 0, host_.word_count() * 4, stream));
    DeviceBuffer<std::uint32_t> next(host_.nodes);
    next.upload(host_.next, stream);
    kernels::place_chain_addresses<<<1024, 256, 0, stream>>>(nodes_, next.data(), host_.nodes, stride);
    GPUBENCH_CUDA_LAUNCHED();
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    position_.upload({address_at(0), 0, 0}, stream);
  }

  const ChaseChain& host() const { return host_; }
  std::uint64_t* position() const { return position_.data(); }
  const DeviceBuffer<std::uint64_t>& position_buffer() const { return position_; }
  // The SM the last launch chased on (-1 before any).
  int last_sm() const { return static_cast<int>(position_.download(stream_)[2]) - 1; }
  // The address of the node at place `at` of the walk.
  std::uint64_t address_at(std::size_t at) const {
    return reinterpret_cast<std::uint64_t>(nodes_) +
           static_cast<std::uint64_t>(host_.order[at % host_.nodes]) * host_.stride_words * 4;
  }
  DeviceBuffer<std::uint64_t> position_at(std::size_t at) const {
    DeviceBuffer<std::uint64_t> position(kernels::kDirectPositionWords);
    position.upload({address_at(at), 0, 0}, stream_);
    return position;
  }
  // Back to place 0, after a read of every node from `sm` in walk order (touch_in_walk_order): the next
  // chase from that SM starts in the state a whole walk from it leaves, whichever SM walked before.
  void restart_touched_from(int sm, unsigned blocks, unsigned long long launch_id) {
    if (order_.size() == 0) {
      order_ = DeviceBuffer<std::uint32_t>(host_.nodes);
      order_.upload(host_.order, stream_);
    }
    position_.upload({address_at(0), 0, 0}, stream_);
    kernels::touch_in_walk_order<<<blocks, kTouchThreads, 0, stream_>>>(
        nodes_, order_.data(), static_cast<std::uint32_t>(host_.nodes), host_.stride_words * 4, sm,
        reinterpret_cast<unsigned long long*>(position_.data() + 1), launch_id, position_.data() + 2);
    GPUBENCH_CUDA_LAUNCHED();
  }

  // Throws unless `position`, started at place `from`, stands `steps` loads further on, as the host says.
  void expect_walked(const DeviceBuffer<std::uint64_t>& position, std::size_t from, std::size_t steps) const {
    const std::uint64_t device = position.download(stream_).front();
    if (device != address_at(from + steps))
      throw std::runtime_error("direct pointer chase ended at node offset " +
                               std::to_string(device - reinterpret_cast<std::uint64_t>(nodes_)) +
                               " but the host's chase of the same chain ends at " +
                               std::to_string(address_at(from + steps) - reinterpret_cast<std::uint64_t>(nodes_)));
  }

 private:
  ChaseChain host_;
  DeviceBuffer<char> owned_;  // empty where the chain is laid out in memory owned elsewhere
  char* nodes_;
  DeviceBuffer<std::uint64_t> position_;
  DeviceBuffer<std::uint32_t> order_;  // host_.order on the device, uploaded on first use
  cudaStream_t stream_;
  static constexpr unsigned kTouchThreads = 512;
};

}  // namespace gpubench
