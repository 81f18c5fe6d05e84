// CUDA error checks that throw (for code that can fail a benchmark) and a logging twin for destructors.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpubench {

// A failed CUDA runtime call: carries the code so callers can tell out-of-memory from the rest.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

// "file:line: call failed: cudaErrorName (description)".
std::string describe_cuda_error(cudaError_t code, const char* call, const char* file, int line);

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);
void log_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept;

}  // namespace gpubench

#define GPUBENCH_CUDA(call)                                                                                         \
  do {                                                                                                              \
    const cudaError_t gpubench_status_ = (call);                                                                    \
    if (gpubench_status_ != cudaSuccess) ::gpubench::throw_cuda_error(gpubench_status_, #call, __FILE__, __LINE__); \
  } while (0)

// For destructors and cleanup paths: report, never throw.
#define GPUBENCH_CUDA_NOEXCEPT(call)                                                                              \
  do {                                                                                                            \
    const cudaError_t gpubench_status_ = (call);                                                                  \
    if (gpubench_status_ != cudaSuccess) ::gpubench::log_cuda_error(gpubench_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After a <<<...>>> launch: configuration errors surface here, not at the launch statement.
#define GPUBENCH_CUDA_LAUNCHED() GPUBENCH_CUDA(cudaGetLastError())
