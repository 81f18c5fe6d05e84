#include "bench/memory/tensor_map.h"

#include "common/cuda_check.h"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpubench {
namespace {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeTiled encode_tiled() {
  static const EncodeTiled entry = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult status{};
    GPUBENCH_CUDA(
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &status));
    if (function == nullptr || status != cudaDriverEntryPointSuccess)
      throw std::runtime_error("the driver has no cuTensorMapEncodeTiled (tensor maps need CUDA 12 and sm_90)");
    return reinterpret_cast<EncodeTiled>(function);
  }();
  return entry;
}

}  // namespace

CUtensorMap row_tile_map(const void* base, std::uint64_t rows, std::uint32_t box_rows) {
  constexpr cuuint32_t kWordsPerRow = 32;  // kernels::kTmaRowBytes / 4
  const cuuint64_t dims[2] = {kWordsPerRow, rows};
  const cuuint64_t row_stride[1] = {kWordsPerRow * 4};
  const cuuint32_t box[2] = {kWordsPerRow, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  CUtensorMap map{};
  const CUresult result =
      encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, const_cast<void*>(base), dims, row_stride, box,
                     element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                     CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled refused a map of " + std::to_string(rows) + " rows, box of " +
                             std::to_string(box_rows) + " rows (CUresult " + std::to_string(result) + ")");
  return map;
}

}  // namespace gpubench
