// RAII owners of device memory, streams and events. Move-only; releasing never throws.
#pragma once

#include "common/cuda_check.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gpubench {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) GPUBENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  // Each is ordered on `stream` (the one the kernels that use the buffer run on; nullptr: the legacy
  // stream) and done before it returns: gpubench's streams do not wait for the legacy stream, and a
  // copy from pageable memory may return before its DMA ends.
  void fill_bytes(int value, cudaStream_t stream = nullptr) {
    GPUBENCH_CUDA(cudaMemsetAsync(data_, value, bytes(), stream));
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  }
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    if (host.size() != count_) throw std::invalid_argument("DeviceBuffer::upload: size mismatch");
    GPUBENCH_CUDA(cudaMemcpyAsync(data_, host.data(), bytes(), cudaMemcpyHostToDevice, stream));
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  }
  std::vector<T> download(std::size_t count, cudaStream_t stream = nullptr) const {
    if (count > count_) throw std::invalid_argument("DeviceBuffer::download: more than the buffer holds");
    std::vector<T> host(count);
    GPUBENCH_CUDA(cudaMemcpyAsync(host.data(), data_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    return host;
  }
  std::vector<T> download(cudaStream_t stream = nullptr) const { return download(count_, stream); }

 private:
  void release() noexcept {
    if (data_) GPUBENCH_CUDA_NOEXCEPT(cudaFree(data_));
    data_ = nullptr;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// Pinned host memory mapped into the device's address space: the host writes, a kernel polls.
template <class T>
class MappedHostValue {
 public:
  MappedHostValue() {
    GPUBENCH_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&host_), sizeof(T), cudaHostAllocMapped));
    GPUBENCH_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
  }
  ~MappedHostValue() {
    if (host_) GPUBENCH_CUDA_NOEXCEPT(cudaFreeHost(host_));
  }
  MappedHostValue(const MappedHostValue&) = delete;
  MappedHostValue& operator=(const MappedHostValue&) = delete;

  volatile T* host() const noexcept { return host_; }
  T* device() const noexcept { return device_; }

 private:
  T* host_ = nullptr;
  T* device_ = nullptr;
};

class Stream {
 public:
  Stream() { GPUBENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_) GPUBENCH_CUDA_NOEXCEPT(cudaStreamDestroy(stream_));
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { GPUBENCH_CUDA(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) GPUBENCH_CUDA_NOEXCEPT(cudaEventDestroy(event_));
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace gpubench
