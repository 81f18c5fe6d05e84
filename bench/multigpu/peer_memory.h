// Memory on another GPU of the host, for the Peer family and its tests: a scoped current device,
// buffers owned by a chosen device (allocated and freed with it current), peer access,
// and the host's topology as the driver and nvidia-smi report it.
#pragma once

#include "common/device_memory.h"

#include <cuda_runtime_api.h>

#include <string>

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

// A buffer in `owner`'s memory (filled with `fill` bytes), released with its owner current.
template <class T>
struct OwnedBuffer {
  OwnedBuffer(int owner_device, std::size_t count, int fill) : owner(owner_device) {
    ScopedDevice on(owner);
    buffer = DeviceBuffer<T>(count);
    buffer.fill_bytes(fill);
  }
  OwnedBuffer(OwnedBuffer&&) = default;
  ~OwnedBuffer() {
    ScopedDevice on(owner);
    buffer = DeviceBuffer<T>();
  }
  int owner;
  DeviceBuffer<T> buffer;
};

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

// One line for the context: per ordered pair, peer access and the driver's performance rank.
std::string peer_topology();

}  // namespace gpubench
