// Probe: does the order in which the TMA copy's blocks take chunks (interleaved, one contiguous span per
// block, claimed from a counter), the chunk size (up to 96 KiB), or the copy's size change how close the
// SM-side copy comes to cudaMemcpyAsync D2D (the copy engines)? Median of 30 launches each, memcpy timed
// next to every variant. Build: nvcc -arch=sm_90 -O3 -std=c++17 order_probe.cu && ./a.out
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__device__ __forceinline__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

enum Order { kInterleaved, kContiguous, kClaimed };

template <int kStages, Order kOrder>
__global__ void bulk_copy(const char* src, char* dst, size_t chunks, unsigned chunk, unsigned long long* counter,
                          unsigned long long* trace = nullptr) {
  unsigned long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  extern __shared__ __align__(128) char stage_memory[];
  __shared__ __align__(8) unsigned long long full[kStages];
  __shared__ size_t chunk_in[kStages];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < kStages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_addr(&full[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const size_t per = (chunks + gridDim.x - 1) / gridDim.x;
  const size_t first = blockIdx.x * per, last = first + per < chunks ? first + per : chunks;
  size_t taken = 0;
  auto next = [&]() -> size_t {  // the next chunk of this block, or `chunks` when none is left
    size_t c;
    if constexpr (kOrder == kInterleaved) c = blockIdx.x + taken * gridDim.x;
    else if constexpr (kOrder == kContiguous) c = first + taken < last ? first + taken : chunks;
    else c = atomicAdd(counter, 1ull);
    ++taken;
    return c < chunks ? c : chunks;
  };
  size_t issued = 0;
  bool more = true;
  auto load = [&]() {
    if (!more) return;
    const size_t c = next();
    if (c == chunks) { more = false; return; }
    const int s = issued % kStages;
    chunk_in[s] = c;
    unsigned long long state;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(smem_addr(&full[s])), "r"(chunk) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem_addr(stage_memory + s * chunk)), "l"(src + c * chunk), "r"(chunk), "r"(smem_addr(&full[s])) : "memory");
    ++issued;
  };
  for (int s = 0; s < kStages; ++s) load();
  for (size_t k = 0; k < issued; ++k) {
    const int s = k % kStages;
    const unsigned parity = (k / kStages) & 1;
    unsigned done = 0;
    while (!done)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(smem_addr(&full[s])), "r"(parity) : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(dst + chunk_in[s] * chunk), "r"(smem_addr(stage_memory + s * chunk)), "r"(chunk) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    if (k >= 1) {  // the previous chunk's store has read its stage: refill it
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
      load();
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  if (trace) {  // when this block started and ended, on which SM, how many chunks it copied
    unsigned long long t1; unsigned sm;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    trace[4 * blockIdx.x] = t0; trace[4 * blockIdx.x + 1] = t1; trace[4 * blockIdx.x + 2] = sm; trace[4 * blockIdx.x + 3] = issued;
  }
}

// The load/store copy with the same two schedules: tiles of blockDim * 8 float4, taken interleaved or claimed.
template <bool kClaimed>
__global__ void tile_copy(const float4* a, float4* c, size_t n, unsigned long long* counter) {
  __shared__ size_t tile;
  const size_t tile_elems = (size_t)blockDim.x * 8, tiles = (n + tile_elems - 1) / tile_elems;
  for (size_t k = 0;; ++k) {
    if (threadIdx.x == 0) tile = kClaimed ? atomicAdd(counter, 1ull) : blockIdx.x + k * gridDim.x;
    __syncthreads();
    const size_t t = tile;
    __syncthreads();
    if (t >= tiles) break;
    const size_t base = t * tile_elems + threadIdx.x;
    if (base + 7 * blockDim.x < n) {
      float4 v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) v[u] = a[base + u * blockDim.x];
#pragma unroll
      for (int u = 0; u < 8; ++u) c[base + u * blockDim.x] = v[u];
    } else {
      for (size_t i = base; i < n && i < (t + 1) * tile_elems; i += blockDim.x) c[i] = a[i];
    }
  }
}

__global__ void plain_copy(const float4* a, float4* c, size_t n) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 7 * stride < n; i += 8 * stride) {
    float4 v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = a[i + k * stride];
#pragma unroll
    for (int k = 0; k < 8; ++k) c[i + k * stride] = v[k];
  }
  for (; i < n; i += stride) c[i] = a[i];
}
__global__ void fill(unsigned* a, size_t n) { for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) a[i] = (unsigned)(i * 2654435761u); }
__global__ void mismatches(const unsigned* a, const unsigned* c, size_t n, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) mine += a[i] != c[i];
  if (mine) atomicAdd(bad, mine);
}

static cudaStream_t stream;
static cudaEvent_t e0, e1;
template <class F> double gbs(size_t bytes, F launch) {
  launch(); cudaStreamSynchronize(stream);
  std::vector<float> t;
  for (int r = 0; r < 30; ++r) {
    cudaEventRecord(e0, stream); launch(); cudaEventRecord(e1, stream); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return 2.0 * bytes / (t[t.size() / 2] * 1e-3) / 1e9;
}

static const char* order_name[] = {"interleaved", "contiguous", "claimed"};
template <int kStages, Order kOrder>
int launch_bulk(const char* a, char* c, size_t bytes, unsigned chunk, int blocks, unsigned long long* counter) {
  static bool attr = false;
  if (!attr) { CK(cudaFuncSetAttribute(bulk_copy<kStages, kOrder>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024)); attr = true; }
  if (kOrder == kClaimed) cudaMemsetAsync(counter, 0, 8, stream);  // inside the timed span: a 8-byte memset, ~2 us
  bulk_copy<kStages, kOrder><<<blocks, 32, kStages * chunk, stream>>>(a, c, bytes / chunk, chunk, counter);
  return 0;
}

int main() {
  const size_t max_bytes = size_t(8) << 30;
  char *a, *c; CK(cudaMalloc(&a, max_bytes)); CK(cudaMalloc(&c, max_bytes));
  unsigned long long *counter, *bad; CK(cudaMalloc(&counter, 8)); CK(cudaMallocManaged(&bad, 8));
  CK(cudaStreamCreate(&stream)); CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount, memclk, bus;
  CK(cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, 0)); CK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0));
  const double peak = 2.0 * memclk * 1e3 * bus / 8 / 1e9;
  printf("%s, %d SMs, L2 %d MiB, theoretical %.1f GB/s\n", prop.name, sms, prop.l2CacheSize >> 20, peak);
  fill<<<sms * 8, 256, 0, stream>>>((unsigned*)a, max_bytes / 4);
  CK(cudaStreamSynchronize(stream));

  struct Variant { int stages; unsigned chunk_kib; int blocks_per_sm; Order order; };
  auto run = [&](const Variant& v, size_t bytes) -> double {
    const unsigned chunk = v.chunk_kib * 1024;
    const int blocks = sms * v.blocks_per_sm;
    auto go = [&] {
      switch (v.stages * 10 + v.order) {
        case 20: launch_bulk<2, kInterleaved>(a, c, bytes, chunk, blocks, counter); break;
        case 21: launch_bulk<2, kContiguous>(a, c, bytes, chunk, blocks, counter); break;
        case 22: launch_bulk<2, kClaimed>(a, c, bytes, chunk, blocks, counter); break;
        case 30: launch_bulk<3, kInterleaved>(a, c, bytes, chunk, blocks, counter); break;
        case 31: launch_bulk<3, kContiguous>(a, c, bytes, chunk, blocks, counter); break;
        case 32: launch_bulk<3, kClaimed>(a, c, bytes, chunk, blocks, counter); break;
        case 40: launch_bulk<4, kInterleaved>(a, c, bytes, chunk, blocks, counter); break;
        case 41: launch_bulk<4, kContiguous>(a, c, bytes, chunk, blocks, counter); break;
        case 42: launch_bulk<4, kClaimed>(a, c, bytes, chunk, blocks, counter); break;
        case 80: launch_bulk<8, kInterleaved>(a, c, bytes, chunk, blocks, counter); break;
        case 81: launch_bulk<8, kContiguous>(a, c, bytes, chunk, blocks, counter); break;
        case 82: launch_bulk<8, kClaimed>(a, c, bytes, chunk, blocks, counter); break;
      }
    };
    // Check the copy before timing it.
    cudaMemsetAsync(c, 0, bytes, stream); go(); *bad = 0;
    mismatches<<<sms * 8, 256, 0, stream>>>((unsigned*)a, (unsigned*)c, bytes / 4, bad);
    cudaStreamSynchronize(stream);
    if (cudaGetLastError() != cudaSuccess || *bad) { printf("  copy wrong: %llu words\n", *bad); return 0; }
    return gbs(bytes, go);
  };
  auto memcpy_gbs = [&](size_t bytes) { return gbs(bytes, [&] { cudaMemcpyAsync(c, a, bytes, cudaMemcpyDeviceToDevice, stream); }); };

  const size_t two = size_t(2) << 30;
  std::vector<Variant> variants;
  for (Order o : {kInterleaved, kContiguous, kClaimed}) {
    for (Variant v : {Variant{4, 32, 1, o}, Variant{3, 64, 1, o}, Variant{2, 64, 1, o}, Variant{3, 16, 2, o},
                      Variant{8, 16, 1, o}, Variant{8, 8, 2, o}, Variant{4, 16, 2, o}, Variant{3, 32, 2, o}})
      variants.push_back(v);
  }
  printf("\n2 GiB copies (bytes read + written), median of 30; memcpy timed right before each variant\n");
  double best = 0; Variant best_v{};
  for (const Variant& v : variants) {
    const double m = memcpy_gbs(two), b = run(v, two);
    printf("%-11s %d stages x %2u KiB, %d block/SM: %7.1f GB/s (%.1f%% of peak) memcpy %7.1f (%.1f%%) -> %.1f%% of memcpy\n",
           order_name[v.order], v.stages, v.chunk_kib, v.blocks_per_sm, b, 100 * b / peak, m, 100 * m / peak, 100 * b / m);
    if (b / m > best) { best = b / m; best_v = v; }
  }
  printf("\nbest: %s %d x %u KiB, %d/SM (%.1f%% of memcpy). By size (8 x L2 = %d MiB):\n", order_name[best_v.order],
         best_v.stages, best_v.chunk_kib, best_v.blocks_per_sm, 100 * best, 8 * (prop.l2CacheSize >> 20));
  const Variant reference{4, 32, 1, kInterleaved};
  for (int round = 0; round < 1; ++round)
  for (size_t mib : {256, 512, 1024, 2048, 4096, 8192}) {
    const size_t bytes = mib << 20;
    const double m = memcpy_gbs(bytes), b = run(best_v, bytes), r = run(reference, bytes);
    const double p = gbs(bytes, [&] { plain_copy<<<sms, 1024, 0, stream>>>((const float4*)a, (float4*)c, bytes / 16); });
    printf("%5zu MiB: memcpy %7.1f (%.1f%%)  best %7.1f (%.1f%% of memcpy)  4x32K interleaved %7.1f (%.1f%%)  plain %7.1f (%.1f%%)\n",
           mib, m, 100 * m / peak, b, 100 * b / m, r, 100 * r / m, p, 100 * p / m);
  }
  // Where the time goes: per-block start/end (globaltimer) and chunks, interleaved against claimed, 2 GiB.
  unsigned long long* trace; CK(cudaMallocManaged(&trace, 4 * 8 * sms * sizeof(unsigned long long)));
  for (Order o : {kInterleaved, kClaimed}) {
    CK(cudaFuncSetAttribute(bulk_copy<4, kInterleaved>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    CK(cudaFuncSetAttribute(bulk_copy<4, kClaimed>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    for (int r = 0; r < 3; ++r) {
      cudaMemsetAsync(counter, 0, 8, stream);
      if (o == kInterleaved) bulk_copy<4, kInterleaved><<<sms, 32, 4 * 32768, stream>>>(a, c, two / 32768, 32768, counter, trace);
      else bulk_copy<4, kClaimed><<<sms, 32, 4 * 32768, stream>>>(a, c, two / 32768, 32768, counter, trace);
      CK(cudaStreamSynchronize(stream));
    }
    unsigned long long first = ~0ull, last_start = 0; std::vector<double> ends; std::vector<unsigned long long> counts;
    for (int b = 0; b < sms; ++b) { first = std::min(first, trace[4 * b]); last_start = std::max(last_start, trace[4 * b]); }
    for (int b = 0; b < sms; ++b) { ends.push_back((trace[4 * b + 1] - first) * 1e-3); counts.push_back(trace[4 * b + 3]); }
    std::vector<double> se = ends; std::sort(se.begin(), se.end());
    std::vector<unsigned long long> sc = counts; std::sort(sc.begin(), sc.end());
    printf("\n%s 4 x 32 KiB, 1 block/SM, 2 GiB: blocks start within %.1f us; end at min %.1f, median %.1f, max %.1f us; chunks per block min %llu median %llu max %llu\n",
           order_name[o], (last_start - first) * 1e-3, se.front(), se[se.size() / 2], se.back(), sc.front(), sc[sc.size() / 2], sc.back());
    if (o == kClaimed) {  // chunks by SM id: which SMs copy faster
      printf("chunks by SM id:");
      std::vector<unsigned long long> by_sm(sms);
      for (int b = 0; b < sms; ++b) by_sm[trace[4 * b + 2] % sms] = counts[b];
      for (int m = 0; m < sms; ++m) printf("%s%llu", m % 22 ? " " : "\n  ", by_sm[m]);
      printf("\n");
    } else {
      printf("end time (us) by SM id:");
      std::vector<double> by_sm(sms);
      for (int b = 0; b < sms; ++b) by_sm[trace[4 * b + 2] % sms] = ends[b];
      for (int m = 0; m < sms; ++m) printf("%s%.0f", m % 22 ? " " : "\n  ", by_sm[m]);
      printf("\n");
    }
  }
  printf("\nload/store copy in tiles of 1024 threads x 8 float4 (128 KiB), 2 GiB:\n");
  for (int per_sm : {1, 2}) {
    const double m = memcpy_gbs(two);
    const double s_ = gbs(two, [&] { tile_copy<false><<<sms * per_sm, 1024, 0, stream>>>((const float4*)a, (float4*)c, two / 16, counter); });
    const double d = gbs(two, [&] { cudaMemsetAsync(counter, 0, 8, stream); tile_copy<true><<<sms * per_sm, 1024, 0, stream>>>((const float4*)a, (float4*)c, two / 16, counter); });
    cudaMemsetAsync(c, 0, two, stream); cudaMemsetAsync(counter, 0, 8, stream);
    tile_copy<true><<<sms * per_sm, 1024, 0, stream>>>((const float4*)a, (float4*)c, two / 16, counter); *bad = 0;
    mismatches<<<sms * 8, 256, 0, stream>>>((unsigned*)a, (unsigned*)c, two / 4, bad); cudaStreamSynchronize(stream);
    printf("%d block/SM: memcpy %7.1f  interleaved tiles %7.1f (%.1f%% of memcpy)  claimed tiles %7.1f (%.1f%% of memcpy)%s\n",
           per_sm, m, s_, 100 * s_ / m, d, 100 * d / m, *bad ? "  COPY WRONG" : "");
  }
  return 0;
}
