// Launching thread-block clusters (sm_90+) through the runtime's public API: cudaLaunchKernelEx with
// the cluster-dimension attribute, and the occupancy query that says how many clusters fit at once.
#pragma once

#include "common/cuda_check.h"

#include <cuda_runtime.h>

#include <utility>

namespace gpubench {

inline cudaLaunchConfig_t cluster_config(unsigned blocks, unsigned threads, int shared_bytes, unsigned cluster,
                                         cudaStream_t stream, cudaLaunchAttribute& attribute) {
  attribute = cudaLaunchAttribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = static_cast<std::size_t>(shared_bytes);
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

// `blocks` blocks (a multiple of `cluster`) of `threads` in clusters of `cluster` along x.
template <class... Params, class... Args>
void launch_clusters(void (*kernel)(Params...), unsigned blocks, unsigned threads, int shared_bytes, unsigned cluster,
                     cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config(blocks, threads, shared_bytes, cluster, stream, attribute);
  GPUBENCH_CUDA(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

// How many clusters of `cluster` blocks the GPU holds at once (0: none fits, or the size is refused).
// Clusters above the portable 8 blocks are allowed first, where the GPU has them (H100: 16).
template <class... Params>
int resident_clusters(void (*kernel)(Params...), unsigned cluster, unsigned threads, int shared_bytes) {
  if (cluster > 8)
    GPUBENCH_CUDA(
        cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = cluster_config(cluster, threads, shared_bytes, cluster, nullptr, attribute);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, reinterpret_cast<const void*>(kernel), &config) != cudaSuccess) {
    (void)cudaGetLastError();  // a size the GPU refuses is an answer, not a pending error
    return 0;
  }
  return clusters;
}

}  // namespace gpubench
