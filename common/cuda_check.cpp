#include "common/cuda_check.h"

#include <cstdio>

namespace gpubench {

std::string describe_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::string text = std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                     cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
  if (code == cudaErrorIllegalAddress || code == cudaErrorLaunchFailure ||
      code == cudaErrorIllegalInstruction || code == cudaErrorMisalignedAddress)
    text += "; the CUDA context is now unusable, later GPU benchmarks in this process will fail too";
  return text;
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(code, describe_cuda_error(code, call, file, line));
}

void log_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept {
  // Buffers freed while the process exits find the runtime gone; the driver reclaims them anyway.
  if (code == cudaErrorCudartUnloading) return;
  std::fprintf(stderr, "gpubench: warning: %s\n", describe_cuda_error(code, call, file, line).c_str());
}

}  // namespace gpubench
