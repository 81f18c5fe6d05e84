#include "bench/compute/tensor_operands.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>

namespace gpubench {
namespace {

template <class To, class From>
To bits_as(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

// Elements per 32-bit register (a double fills a register pair: one per "word" of the layouts).
int elements_per_word(TensorInput input) { return input == TensorInput::kF64 ? 1 : 4 / kernels::input_bytes(input); }

// Writes `bits` (its low `bytes` bytes) at byte `at` of a little-endian word array.
void put_bytes(std::vector<std::uint32_t>& words, std::size_t at, std::uint64_t bits, int bytes) {
  for (int i = 0; i < bytes; ++i, ++at) {
    const std::uint32_t byte = static_cast<std::uint32_t>((bits >> (8 * i)) & 0xFFu);
    words[at / 4] = (words[at / 4] & ~(0xFFu << (8 * (at % 4)))) | (byte << (8 * (at % 4)));
  }
}

std::uint64_t get_bytes(const std::vector<std::uint32_t>& words, std::size_t at, int bytes) {
  std::uint64_t bits = 0;
  for (int i = 0; i < bytes; ++i, ++at) bits |= std::uint64_t{(words[at / 4] >> (8 * (at % 4))) & 0xFFu} << (8 * i);
  return bits;
}

// Lane after lane, `count` elements of `bytes` each per lane.
template <class Index>
std::vector<std::uint32_t> pack(int lanes, int count, int bytes, Index index_of, const Matrix& m,
                                std::uint64_t (*encode_value)(double, int), int format) {
  std::vector<std::uint32_t> words((static_cast<std::size_t>(lanes) * count * bytes + 3) / 4, 0u);
  for (int lane = 0; lane < lanes; ++lane)
    for (int e = 0; e < count; ++e) {
      const MatrixIndex at = index_of(lane, e);
      put_bytes(words, (static_cast<std::size_t>(lane) * count + e) * bytes, encode_value(m.at(at.row, at.col), format),
                bytes);
    }
  return words;
}

std::uint64_t encode_input_value(double value, int format) { return encode(static_cast<TensorInput>(format), value); }
std::uint64_t encode_acc_value(double value, int format) {
  return encode(static_cast<TensorAccumulator>(format), value);
}

}  // namespace

std::uint64_t encode(TensorInput input, double value) {
  const float f = static_cast<float>(value);
  switch (input) {
    case TensorInput::kF16: return static_cast<__half_raw>(__float2half_rn(f)).x;
    case TensorInput::kBF16: return static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(f)).x;
    case TensorInput::kTF32: return bits_as<std::uint32_t>(f);
    case TensorInput::kE4M3: return __nv_fp8_e4m3(f).__x;
    case TensorInput::kE5M2: return __nv_fp8_e5m2(f).__x;
    case TensorInput::kS8: return static_cast<std::uint8_t>(static_cast<std::int8_t>(value));
    case TensorInput::kF64: return bits_as<std::uint64_t>(value);
  }
  throw std::invalid_argument("unknown tensor input format");
}

double decode(TensorInput input, std::uint64_t bits) {
  switch (input) {
    case TensorInput::kF16: {
      __half_raw raw;
      raw.x = static_cast<unsigned short>(bits);
      return __half2float(__half(raw));
    }
    case TensorInput::kBF16: {
      __nv_bfloat16_raw raw;
      raw.x = static_cast<unsigned short>(bits);
      return __bfloat162float(__nv_bfloat16(raw));
    }
    case TensorInput::kTF32: return bits_as<float>(static_cast<std::uint32_t>(bits));
    case TensorInput::kE4M3: {
      __nv_fp8_e4m3 v;
      v.__x = static_cast<__nv_fp8_storage_t>(bits);
      return static_cast<float>(v);
    }
    case TensorInput::kE5M2: {
      __nv_fp8_e5m2 v;
      v.__x = static_cast<__nv_fp8_storage_t>(bits);
      return static_cast<float>(v);
    }
    case TensorInput::kS8: return static_cast<std::int8_t>(static_cast<std::uint8_t>(bits));
    case TensorInput::kF64: return bits_as<double>(bits);
  }
  throw std::invalid_argument("unknown tensor input format");
}

std::uint64_t encode(TensorAccumulator accumulator, double value) {
  switch (accumulator) {
    case TensorAccumulator::kF32: return bits_as<std::uint32_t>(static_cast<float>(value));
    case TensorAccumulator::kF16: return encode(TensorInput::kF16, value);
    case TensorAccumulator::kS32: return static_cast<std::uint32_t>(static_cast<std::int32_t>(value));
    case TensorAccumulator::kF64: return bits_as<std::uint64_t>(value);
  }
  throw std::invalid_argument("unknown tensor accumulator format");
}

double decode(TensorAccumulator accumulator, std::uint64_t bits) {
  switch (accumulator) {
    case TensorAccumulator::kF32: return bits_as<float>(static_cast<std::uint32_t>(bits));
    case TensorAccumulator::kF16: return decode(TensorInput::kF16, bits);
    case TensorAccumulator::kS32: return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
    case TensorAccumulator::kF64: return bits_as<double>(bits);
  }
  throw std::invalid_argument("unknown tensor accumulator format");
}

// m16n8kK: A's register r holds row g + 8 (r % 2), 32-bit column t + 4 (r / 2); B's register r holds
// 32-bit row t + 4 r of column g; C's element e: row g + 8 (e / 2), column 2t + e % 2 (g = lane / 4,
// t = lane % 4); f64 counts a register pair as one register. m8n8k4 (f64): A (g, t), B (t, g), C (g, 2t + e).
MatrixIndex mma_a_element(const TensorShape& shape, int lane, int e) {
  const int g = lane / 4, t = lane % 4;
  if (shape.m == 8) return {g, t};
  const int w = elements_per_word(shape.input), r = e / w;
  return {g + 8 * (r % 2), (t + 4 * (r / 2)) * w + e % w};
}

MatrixIndex mma_b_element(const TensorShape& shape, int lane, int e) {
  const int g = lane / 4, t = lane % 4;
  if (shape.m == 8) return {t, g};
  const int w = elements_per_word(shape.input), r = e / w;
  return {(t + 4 * r) * w + e % w, g};
}

MatrixIndex mma_c_element(const TensorShape& shape, int lane, int e) {
  const int g = lane / 4, t = lane % 4;
  if (shape.m == 8) return {g, 2 * t + e};
  return {g + 8 * (e / 2), 2 * t + e % 2};
}

// Warp w of the warpgroup holds rows 16w..16w+15 as a m16 fragment; D repeats the m16n8 C layout
// for every 8 columns.
MatrixIndex wgmma_a_element(const TensorShape& shape, int thread, int e) {
  const MatrixIndex in_warp = mma_a_element(shape, thread % 32, e);
  return {16 * (thread / 32) + in_warp.row, in_warp.col};
}

MatrixIndex wgmma_d_element(int thread, int e) {
  const int w = thread / 32, g = (thread % 32) / 4, t = thread % 4, q = e % 4;
  return {16 * w + g + 8 * (q / 2), 8 * (e / 4) + 2 * t + q % 2};
}

std::vector<std::uint32_t> mma_a_fragments(const TensorShape& shape, const Matrix& a) {
  return pack(
      32, shape.m * shape.k / 32, kernels::input_bytes(shape.input),
      [&](int lane, int e) { return mma_a_element(shape, lane, e); }, a, encode_input_value,
      static_cast<int>(shape.input));
}

std::vector<std::uint32_t> mma_b_fragments(const TensorShape& shape, const Matrix& b) {
  return pack(
      32, shape.k * shape.n / 32, kernels::input_bytes(shape.input),
      [&](int lane, int e) { return mma_b_element(shape, lane, e); }, b, encode_input_value,
      static_cast<int>(shape.input));
}

std::vector<std::uint32_t> mma_c_fragments(const TensorShape& shape, const Matrix& c) {
  return pack(
      32, shape.m * shape.n / 32, kernels::accumulator_bytes(shape.accumulator),
      [&](int lane, int e) { return mma_c_element(shape, lane, e); }, c, encode_acc_value,
      static_cast<int>(shape.accumulator));
}

Matrix mma_d_matrix(const TensorShape& shape, const std::vector<std::uint32_t>& lane_words) {
  Matrix d(shape.m, shape.n);
  const int count = shape.m * shape.n / 32, bytes = kernels::accumulator_bytes(shape.accumulator);
  for (int lane = 0; lane < 32; ++lane)
    for (int e = 0; e < count; ++e) {
      const MatrixIndex at = mma_c_element(shape, lane, e);
      d.at(at.row, at.col) =
          decode(shape.accumulator, get_bytes(lane_words, (static_cast<std::size_t>(lane) * count + e) * bytes, bytes));
    }
  return d;
}

std::vector<std::uint32_t> wgmma_a_fragments(const TensorShape& shape, const Matrix& a) {
  return pack(
      kernels::kWgmmaM * 2, kernels::kWgmmaM * shape.k / 128, kernels::input_bytes(shape.input),
      [&](int thread, int e) { return wgmma_a_element(shape, thread, e); }, a, encode_input_value,
      static_cast<int>(shape.input));
}

std::vector<std::uint32_t> wgmma_c_fragments(TensorAccumulator accumulator, const Matrix& c) {
  return pack(
      128, kernels::kWgmmaM * c.cols / 128, kernels::accumulator_bytes(accumulator),
      [&](int thread, int e) { return wgmma_d_element(thread, e); }, c, encode_acc_value,
      static_cast<int>(accumulator));
}

Matrix wgmma_d_matrix(TensorAccumulator accumulator, int n, const std::vector<std::uint32_t>& thread_words) {
  Matrix d(kernels::kWgmmaM, n);
  const int count = kernels::kWgmmaM * n / 128, bytes = kernels::accumulator_bytes(accumulator);
  for (int thread = 0; thread < 128; ++thread)
    for (int e = 0; e < count; ++e) {
      const MatrixIndex at = wgmma_d_element(thread, e);
      d.at(at.row, at.col) =
          decode(accumulator, get_bytes(thread_words, (static_cast<std::size_t>(thread) * count + e) * bytes, bytes));
    }
  return d;
}

namespace {
// rows x k elements, row r's K elements at bytes 0..31 of tile row r.
std::vector<std::uint32_t> k_major_tile(TensorInput input, int rows, int k, double (*value)(const Matrix&, int, int),
                                        const Matrix& m) {
  const int bytes = kernels::input_bytes(input);
  if (k * bytes != kernels::kWgmmaRowBytes) throw std::invalid_argument("a wgmma tile row holds 32 bytes of K");
  std::vector<std::uint32_t> words(static_cast<std::size_t>(rows) * kernels::kWgmmaRowBytes / 4, 0u);
  for (int r = 0; r < rows; ++r)
    for (int kk = 0; kk < k; ++kk)
      put_bytes(words, kernels::wgmma_tile_offset(r, kk * bytes), encode(input, value(m, r, kk)), bytes);
  return words;
}
}  // namespace

std::vector<std::uint32_t> wgmma_a_tile(TensorInput input, const Matrix& a) {
  return k_major_tile(
      input, a.rows, a.cols, [](const Matrix& m, int r, int k) { return m.at(r, k); }, a);
}

std::vector<std::uint32_t> wgmma_b_tile(TensorInput input, const Matrix& b) {
  return k_major_tile(
      input, b.cols, b.rows, [](const Matrix& m, int n, int k) { return m.at(k, n); }, b);
}

Matrix make_matrix(int rows, int cols, TensorInput input, Fill fill, std::mt19937& rng) {
  Matrix m(rows, cols);
  if (fill == Fill::kZero) return m;
  std::uniform_int_distribution<int> small(-3, 3), byte(-128, 127);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (double& v : m.values) {
    if (fill == Fill::kSmallIntegers)
      v = small(rng);
    else
      v = input == TensorInput::kS8 ? byte(rng) : decode(input, encode(input, unit(rng)));
  }
  return m;
}

bool compiled_here(const void* probe_kernel, cudaStream_t stream) {
  static std::map<std::pair<int, const void*>, bool> known;
  int device = 0;
  GPUBENCH_CUDA(cudaGetDevice(&device));
  const auto key = std::make_pair(device, probe_kernel);
  if (const auto at = known.find(key); at != known.end()) return at->second;
  DeviceBuffer<int> flag(1);
  flag.fill_bytes(0, stream);
  int* flag_pointer = flag.data();
  void* args[] = {&flag_pointer};
  GPUBENCH_CUDA(cudaLaunchKernel(probe_kernel, dim3(1), dim3(1), args, 0, stream));
  return known[key] = flag.download(stream)[0] == 1;
}

DeviceBuffer<std::uint32_t> upload_words(const std::vector<std::uint32_t>& words, cudaStream_t stream) {
  DeviceBuffer<std::uint32_t> buffer(words.size());
  buffer.upload(words, stream);
  return buffer;
}

Matrix reference_product(const Matrix& a, const Matrix& b, const Matrix& c, int times) {
  Matrix d = c;
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < b.cols; ++j) {
      double sum = 0.0;
      for (int k = 0; k < a.cols; ++k) sum += a.at(i, k) * b.at(k, j);
      d.at(i, j) += times * sum;
    }
  return d;
}

}  // namespace gpubench
