// The warp: 32 threads on every NVIDIA architecture to date. One spelling for host and device code.
#pragma once

namespace gpubench {

inline constexpr int kWarpSize = 32;

}  // namespace gpubench
