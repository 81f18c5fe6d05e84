// The tensor maps the TMA rows load through (cuTensorMapEncodeTiled, reached through the runtime's
// driver entry point, so nothing links the driver library): a buffer seen as rows of 128 bytes (32
// four-byte words), loaded a box of whole rows at a time.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace gpubench {

// `rows` rows of kernels::kTmaRowBytes from `base` (16-byte aligned), a box of `box_rows` rows (1 to
// 256): tile t is rows t * box_rows ... No swizzle, no L2 promotion (the copy asks for the tile's
// lines only). Throws with the driver's code when the driver refuses.
CUtensorMap row_tile_map(const void* base, std::uint64_t rows, std::uint32_t box_rows);

}  // namespace gpubench
