// A pointer-chase chain in another GPU's memory, for the Peer family and its tests.
#pragma once

#include "bench/memory/chase/device_chain.cuh"
#include "bench/multigpu/peer_memory.h"

#include <optional>

namespace gpubench {

// The load-to-use chain (PointerChase/direct's) laid out in `owner`'s memory.
struct OwnedChain {
  OwnedChain(int owner_device, std::size_t bytes, std::size_t stride) : owner(owner_device) {
    ScopedDevice on(owner);
    chain.emplace(bytes, stride, nullptr);
  }
  OwnedChain(OwnedChain&&) = default;
  ~OwnedChain() {
    ScopedDevice on(owner);
    chain.reset();
  }
  int owner;
  std::optional<DirectChain> chain;
};

}  // namespace gpubench
