// The SM clock, measured: clock64 against %globaltimer while every SM spins, so cycles convert to
// time at the clock the part really runs at (boost, power and thermal limits included).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpubench {

// Median over one spinning block per SM; spins about spin_ns on each. Throws CudaError.
double measure_sm_clock_mhz(cudaStream_t stream, int sm_count, std::uint64_t spin_ns);

// cudaSuccess when this binary holds code that can run on the current device.
cudaError_t probe_kernel_image();

}  // namespace gpubench
