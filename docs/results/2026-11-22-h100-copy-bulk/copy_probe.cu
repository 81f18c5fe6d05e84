// Scratch: which copy kernel comes closest to cudaMemcpyAsync D2D (not part of the build).
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

enum Hint { kPlain, kStoreCs, kLoadL2_256, kBoth, kNcL2_256, kLoadCsStoreCs, kL2_128, kBothNa };
__device__ __forceinline__ float4 load(const float4* p, int hint) {
  float4 v;
  if (hint == kLoadL2_256 || hint == kBoth)
    asm volatile("ld.global.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  else if (hint == kL2_128)
    asm volatile("ld.global.L2::128B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  else if (hint == kNcL2_256 || hint == kBothNa)
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  else if (hint == kLoadCsStoreCs) v = __ldcs(p);
  else v = *p;
  return v;
}
__device__ __forceinline__ void store(float4* p, float4 v, int hint) {
  if (hint == kStoreCs || hint == kBoth || hint == kLoadCsStoreCs || hint == kBothNa) __stcs(p, v);
  else *p = v;
}
template <int U, int H>
__global__ void copy(const float4* a, float4* c, size_t n) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = load(a + i + k * stride, H);
#pragma unroll
    for (int k = 0; k < U; ++k) store(c + i + k * stride, v[k], H);
  }
  for (; i < n; i += stride) store(c + i, load(a + i, H), H);
}
// Each warp copies 2 KiB contiguous per step (lane pairs): 32 bytes per thread, two float4 adjacent.
template <int H>
__global__ void copy_pairs(const float4* a, float4* c, size_t n) {
  const size_t stride = (size_t)gridDim.x * blockDim.x * 2;
  size_t i = ((size_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31u)) * 2 + (threadIdx.x & 31u);
  for (; i + 32 < n; i += stride) {
    float4 x = load(a + i, H), y = load(a + i + 32, H);
    store(c + i, x, H); store(c + i + 32, y, H);
  }
  if (i < n) store(c + i, load(a + i, H), H);
}

int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int memclk, bus; CK(cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, 0)); CK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0));
  double peak = 2.0 * memclk * 1e3 * bus / 8 / 1e9;
  const size_t bytes = size_t(2) << 30, n = bytes / 16;
  float4 *a, *c; CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&c, bytes));
  CK(cudaMemset(a, 1, bytes)); CK(cudaMemset(c, 0, bytes));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto time = [&](auto launch) {
    launch(); cudaStreamSynchronize(s);
    std::vector<float> t;
    for (int r = 0; r < 30; ++r) { cudaEventRecord(e0, s); launch(); cudaEventRecord(e1, s); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms); }
    std::sort(t.begin(), t.end());
    return 2.0 * bytes / (t[t.size() / 2] * 1e-3) / 1e9;  // median, GB/s read + written
  };
  printf("peak %.1f GB/s, %d SMs\n", peak, sms);
  double memcpy_gbs = 0;
  for (int rep = 0; rep < 2; ++rep) {
    memcpy_gbs = time([&] { cudaMemcpyAsync(c, a, bytes, cudaMemcpyDeviceToDevice, s); });
    printf("memcpy %.1f GB/s (%.1f%% of peak)\n", memcpy_gbs, 100 * memcpy_gbs / peak);
  }
  const char* names[] = {"plain", "store.cs", "ld.L2::256B", "ld.L2::256B+st.cs", "ld.nc.na.L2::256B", "ldcs+stcs", "ld.L2::128B", "ld.nc.na.256+st.cs"};
#define SWEEP(KERNEL, LABEL, H) \
  for (int threads : {256, 512, 1024}) for (int bps : {1, 2, 4, 8}) { if (threads * bps > 2048) continue; \
    double g = time([&] { KERNEL<<<sms * bps, threads, 0, s>>>(a, c, n); }); \
    printf("%-8s %-20s threads %4d blocks/SM %2d: %7.1f GB/s  %.1f%% of peak  %.1f%% of memcpy\n", LABEL, names[H], threads, bps, g, 100 * g / peak, 100 * g / memcpy_gbs); }
#define HINTS(U) SWEEP((copy<U, kPlain>), "u" #U, kPlain) SWEEP((copy<U, kStoreCs>), "u" #U, kStoreCs) SWEEP((copy<U, kLoadL2_256>), "u" #U, kLoadL2_256) \
  SWEEP((copy<U, kBoth>), "u" #U, kBoth) SWEEP((copy<U, kNcL2_256>), "u" #U, kNcL2_256) SWEEP((copy<U, kLoadCsStoreCs>), "u" #U, kLoadCsStoreCs) \
  SWEEP((copy<U, kL2_128>), "u" #U, kL2_128) SWEEP((copy<U, kBothNa>), "u" #U, kBothNa)
  HINTS(4)
  HINTS(2)
  HINTS(8)
  SWEEP(copy_pairs<kPlain>, "pairs", kPlain) SWEEP(copy_pairs<kLoadL2_256>, "pairs", kLoadL2_256) SWEEP(copy_pairs<kBoth>, "pairs", kBoth)
  memcpy_gbs = time([&] { cudaMemcpyAsync(c, a, bytes, cudaMemcpyDeviceToDevice, s); });
  printf("memcpy again %.1f GB/s (%.1f%% of peak)\n", memcpy_gbs, 100 * memcpy_gbs / peak);
  return 0;
}
