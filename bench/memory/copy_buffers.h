// Input and output of the copy-type memory experiments: the input filled with a non-zero pattern
// (zeros can hide unwritten outputs), the output zeroed, both ready on the run's stream.
#pragma once

#include "common/device_memory.h"
#include "common/experiment.h"

#include <cstddef>

namespace gpubench {

template <class T>
struct CopyBuffers {
  CopyBuffers(std::size_t in_count, std::size_t out_count) : in(in_count), out(out_count) {
    in.fill_bytes(0x3C, stream());
    out.fill_bytes(0, stream());
  }
  DeviceBuffer<T> in;
  DeviceBuffer<T> out;
};

}  // namespace gpubench
