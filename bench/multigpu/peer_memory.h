// Memory on another GPU of the host, for the Peer family and its tests: a scoped current device,
// buffers owned by a chosen device (allocated and freed with it current), peer access,
// and the host's topology as the driver and nvidia-smi report it.
#pragma once

#include "common/device_memory.h"

#include <cuda_runtime_api.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace gpubench {

// Makes `device` current for the scope, then restores the previous one.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

// A T that holds device memory of `owner` (a buffer, a chase chain): built and destroyed with its
// owner current, whichever GPU the session is on.
template <class T>
struct OnDevice {
  template <class... Args>
  explicit OnDevice(int owner_device, Args&&... args) : owner(owner_device) {
    ScopedDevice on(owner);
    value.emplace(std::forward<Args>(args)...);
  }
  OnDevice(OnDevice&& other) noexcept : owner(other.owner), value(std::move(other.value)) { other.value.reset(); }
  ~OnDevice() {
    if (!value) return;
    ScopedDevice on(owner);
    value.reset();
  }
  T& operator*() { return *value; }
  T* operator->() { return &*value; }
  int owner;
  std::optional<T> value;
};

template <class T>
using OwnedBuffer = OnDevice<DeviceBuffer<T>>;

// `count` elements in `owner`'s memory, every byte `fill`.
template <class T>
OwnedBuffer<T> owned_buffer(int owner, std::size_t count, int fill) {
  OwnedBuffer<T> owned(owner, count);
  ScopedDevice on(owner);
  owned->fill_bytes(fill);
  return owned;
}

// Memory another process made and offered (its CUDA IPC handle, hex), mapped for this process's current GPU: no
// context on the GPU it is on. Null where the handle is no handle or cannot be opened.
class ImportedMemory {
 public:
  ImportedMemory() = default;
  explicit ImportedMemory(const std::string& hex);
  ~ImportedMemory();
  ImportedMemory(ImportedMemory&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
  ImportedMemory& operator=(ImportedMemory&&) = delete;
  ImportedMemory(const ImportedMemory&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

// An event other processes may wait on (interprocess, no timing): made on the current GPU, or opened from the handle
// (hex) another process offered (null where it cannot be).
class SharedEvent {
 public:
  SharedEvent();
  explicit SharedEvent(const std::string& hex);
  ~SharedEvent();
  SharedEvent(SharedEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  SharedEvent& operator=(SharedEvent&&) = delete;
  SharedEvent(const SharedEvent&) = delete;
  cudaEvent_t get() const { return event_; }
  std::string handle() const;  // for another process

 private:
  cudaEvent_t event_ = nullptr;
};

// The handle (hex) another process opens `memory` by: the start of a cudaMalloc allocation.
std::string memory_handle(const void* memory);

// How many CUDA GPUs this host has (0 without a driver).
int cuda_device_count();

// Lets `device` (current) load and store `peer`'s memory directly; false where the pair cannot.
bool enable_peer_access(int device, int peer);

// Active NVLink links of `device` and their summed bandwidth per direction (nvidia-smi nvlink -s);
// zero links where NVLink is absent or nvidia-smi is not found.
struct NvlinkStatus {
  int links = 0;
  double gbs_per_direction = 0.0;
};
NvlinkStatus nvlink_status(int device);

// Each GPU's active links in the text of `nvidia-smi nvlink --status` ("GPU N: ..." then "Link K: 26.562 GB/s" per
// active link; an inactive link says so instead), by nvidia-smi's index.
std::map<int, NvlinkStatus> parse_nvlink_status(const std::string& text);

// One line for the context: per ordered pair, peer access and the driver's performance rank.
std::string peer_topology();

}  // namespace gpubench
