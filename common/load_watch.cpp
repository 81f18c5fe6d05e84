#include "common/load_watch.h"

#include "common/detail/nvml_device.h"

namespace gpubench {

LoadWatch::LoadWatch(int cuda_index) : device_(std::make_unique<NvmlDevice>(cuda_index)) {}
LoadWatch::~LoadWatch() = default;
const std::optional<std::string>& LoadWatch::unavailable() const { return device_->unavailable(); }
LoadSample LoadWatch::sample() const { return device_->load_sample(); }

}  // namespace gpubench
