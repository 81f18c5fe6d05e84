#include "common/cuda_check.h"

#include <cstdio>

namespace gpubench {

std::string describe_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  // The file's name, not its path: messages reach users, whose build trees are theirs.
  const std::string path(file);
  const std::string name = path.substr(path.find_last_of('/') + 1);
  std::string text = name + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorName(code) + " (" +
                     cudaGetErrorString(code) + ")";
  if (code == cudaErrorIllegalAddress || code == cudaErrorLaunchFailure || code == cudaErrorIllegalInstruction ||
      code == cudaErrorMisalignedAddress)
    text += "; the CUDA context is now unusable, later GPU benchmarks in this process will fail too";
  return text;
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(code, describe_cuda_error(code, call, file, line));
}

void log_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept {
  // A buffer freed after the runtime unloaded (an early exit on an error path) needs no warning: the
  // driver reclaims it. Normal runs release every buffer before the session closes.
  if (code == cudaErrorCudartUnloading) return;
  std::fprintf(stderr, "gpubench: warning: %s\n", describe_cuda_error(code, call, file, line).c_str());
}

}  // namespace gpubench
