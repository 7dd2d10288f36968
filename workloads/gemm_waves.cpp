#include "workloads/gemm_waves.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace weft {

namespace {

struct Tile {
  uint64_t rows, cols;
};

// cuBLAS's tiles for large GEMMs: 256x128 and 128x256, its most efficient ("larger tiles have more
// data reuse", the guide's section 2.3), and 128x128, the next. Each is taken to compute the same
// outputs per second per SM, so a wave of a tile costs its area: the tiles' own speeds are not
// published per GPU. The two simplifications pull opposite ways: 128x128 is in truth slower per
// output than the large tiles (the model's loss is too small where it picks 128x128), and the
// smaller tiles and split-K kernels cuBLAS may pick for an awkward shape are left out (too large
// there).
constexpr Tile kTiles[] = {{256, 128}, {128, 256}, {128, 128}};
constexpr uint64_t kSmallestEdge = 128;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Tensor dimensions are whole numbers of elements; the formulas give them as doubles.
uint64_t whole(double x) { return static_cast<uint64_t>(std::llround(x)); }

double cost(double m, double n, double k, const GemmDevice& device, uint64_t groups) {
  return gemm_cost(whole(m), whole(n), whole(k), device, groups);
}

// The three GEMMs of a linear layer of `in` x `out` weights over `tokens` rows (of each of `groups`
// such layers run as one grouped GEMM).
GemmPasses linear(double tokens, double in, double out, const GemmDevice& device, uint64_t groups = 1) {
  const GemmDevice accumulating{.sms = device.sms, .flops_per_output = device.flops_per_gradient};
  return {.forward = cost(tokens, out, in, device, groups),
          .input_grad = cost(tokens, in, out, device, groups),
          .weight_grad = cost(in, out, tokens, accumulating, groups)};
}

GemmPasses operator+(const GemmPasses& a, const GemmPasses& b) {
  return {a.forward + b.forward, a.input_grad + b.input_grad, a.weight_grad + b.weight_grad};
}

// The MLP's first GEMM computes the gate and the up projection together (Megatron's linear_fc1).
double fc1_columns(const ModelConfig& m, double tp) { return static_cast<double>(m.ffn) * (m.gated_mlp ? 2 : 1) / tp; }

}  // namespace

double wave_efficiency(uint64_t m, uint64_t n, uint32_t sms, uint64_t groups) {
  if (sms == 0 || m < kSmallestEdge || n < kSmallestEdge) return 1.0;
  uint64_t least_slots = std::numeric_limits<uint64_t>::max();  // SM-tile slots x tile area, elements
  for (const Tile& t : kTiles) {
    const uint64_t tiles = groups * ceil_div(m, t.rows) * ceil_div(n, t.cols);
    least_slots = std::min(least_slots, ceil_div(tiles, sms) * sms * t.rows * t.cols);
  }
  return static_cast<double>(groups * m) * static_cast<double>(n) / static_cast<double>(least_slots);
}

double full_wave_flops(uint64_t m, uint64_t n, uint64_t k, uint32_t sms, uint64_t groups) {
  const double flops = 2.0 * static_cast<double>(groups * m) * static_cast<double>(n) * static_cast<double>(k);
  return flops / wave_efficiency(m, n, sms, groups);
}

double unhidden_write_seconds(const catalogue::GpuSpec& gpu, uint32_t output_bytes) {
  return gpu.memory_bandwidth > 0 ? kUnhiddenOutputWrite * output_bytes / gpu.memory_bandwidth : 0.0;
}

GemmDevice gemm_device(const catalogue::GpuSpec& gpu, double flops_per_s, uint32_t output_bytes) {
  return {.sms = static_cast<uint32_t>(gpu.sms),
          .flops_per_output = unhidden_write_seconds(gpu, output_bytes) * flops_per_s};
}

double gemm_cost(uint64_t m, uint64_t n, uint64_t k, const GemmDevice& device, uint64_t groups) {
  const double outputs = static_cast<double>(groups * m) * static_cast<double>(n);
  return full_wave_flops(m, n, k, device.sms, groups) + device.flops_per_output * outputs;
}

LayerGemmCost layer_gemm_cost(const ModelConfig& m, const LayerShape& shape, const GemmDevice& device) {
  const double t = shape.tp;
  const double tokens = static_cast<double>(shape.micro_batch) * static_cast<double>(shape.seq) / shape.cp;
  const double h = m.hidden, q = static_cast<double>(m.heads) * head_dim(m);
  const double kv = static_cast<double>(m.kv_heads) * head_dim(m);
  const GemmPasses qkv = linear(tokens, h, (q + 2 * kv) / t, device), out = linear(tokens, q / t, h, device);
  const GemmPasses mlp = linear(tokens, h, fc1_columns(m, t), device) + linear(tokens, m.ffn / t, h, device);
  const LayerFlops plain = layer_forward_flops(m, shape);
  const auto pass = [&](double GemmPasses::*p) {
    LayerFlops f = plain;
    f.qkv = qkv.*p;
    f.out_proj = out.*p;
    f.mlp = mlp.*p;
    return f;
  };
  return {pass(&GemmPasses::forward), pass(&GemmPasses::input_grad), pass(&GemmPasses::weight_grad)};
}

GemmPasses expert_gemm_cost(const ModelConfig& m, const LayerShape& shape, uint32_t ep, double capacity_factor,
                            const GemmDevice& device) {
  const double t = shape.tp;
  const double tokens = static_cast<double>(shape.micro_batch) * static_cast<double>(shape.seq) / shape.cp;
  const uint64_t local = m.experts / ep;
  const double capacity = std::ceil(tokens * m.top_k * capacity_factor * ep / m.experts);
  return linear(capacity, m.hidden, fc1_columns(m, t), device, local) +
         linear(capacity, m.ffn / t, m.hidden, device, local);
}

GemmPasses logits_gemm_cost(const ModelConfig& m, const LayerShape& shape, const GemmDevice& device) {
  const double tokens = static_cast<double>(shape.micro_batch) * static_cast<double>(shape.seq) / shape.cp;
  return linear(tokens, m.hidden, static_cast<double>(m.vocab) / shape.tp, device);
}

}  // namespace weft
