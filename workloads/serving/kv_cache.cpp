#include "workloads/serving/kv_cache.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "sim/core/errors.h"
#include "workloads/memory_model.h"

namespace weft {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
// Activation bytes per token: 2-byte activations; the live set peaks in the MLP, where the residual
// stream and the norm's output (2h) sit beside the gate and up projections and their product (3f/t for
// SwiGLU, 2f/t for GELU). vLLM reserves the peak of a profiling forward pass of max_batched_tokens
// tokens (Worker.determine_num_available_blocks) [the live-set formula is weft's estimate of it].
double activation_bytes_per_token(const ModelConfig& m, uint32_t tp) {
  const double matrices = m.gated_mlp ? 3 : 2;
  return 2.0 * (2.0 * m.hidden + matrices * m.ffn * static_cast<double>(m.top_k) / tp);
}

}  // namespace

double kv_bytes_per_token(const ModelConfig& m, Precision kv, uint32_t tp) {
  const double heads = std::max(1.0, static_cast<double>(m.kv_heads) / tp);
  return 2.0 * m.layers * heads * head_dim(m) * element_bytes(kv);
}

double weight_bytes_per_gpu(const ModelConfig& m, WeightFormat f, uint32_t tp, uint32_t ep) {
  if (ep <= 1) return static_cast<double>(total_params(m)) * bytes_per_weight(f) / tp;
  const double experts = static_cast<double>(m.layers) * m.experts * static_cast<double>(mlp_params_per_expert(m));
  return ((static_cast<double>(total_params(m)) - experts) / tp + experts / ep) * bytes_per_weight(f);
}

double stage_weight_bytes_per_gpu(const ModelConfig& m, WeightFormat f, uint32_t tp, uint32_t stage, uint32_t pp) {
  if (pp == 1) return weight_bytes_per_gpu(m, f, tp);  // (ep > 1 runs one stage: kv_capacity)
  const uint32_t layers = stage_layers(m.layers, pp)[stage];
  const uint64_t output = output_layer_params(m) > 0 ? output_layer_params(m) : embedding_params(m);
  const uint64_t params = static_cast<uint64_t>(layers) * layer_params(m) + (stage == 0 ? embedding_params(m) : 0) +
                          (stage + 1 == pp ? output : 0);
  return static_cast<double>(params) * bytes_per_weight(f) / tp;
}

namespace {

KvCapacity stage_capacity(const ServingSpec& spec, const catalogue::GpuSpec& gpu, uint32_t stage) {
  KvCapacity c;
  c.stage = stage;
  c.stages = spec.pp;
  c.usable = static_cast<double>(gpu.memory.count()) * spec.limits.gpu_memory_utilization;
  c.weights = spec.ep > 1 ? weight_bytes_per_gpu(spec.model, spec.weights, spec.tp, spec.ep)
                          : stage_weight_bytes_per_gpu(spec.model, spec.weights, spec.tp, stage, spec.pp);
  c.activations = spec.limits.max_batched_tokens * activation_bytes_per_token(spec.model, spec.tp);
  ParallelSizes parallel;
  parallel.tp = spec.tp;
  parallel.pp = spec.pp;
  parallel.ep = spec.ep;
  c.fixed = cuda_context_bytes() + nccl_buffer_bytes(parallel);
  c.kv = c.usable - c.weights - c.activations - c.fixed;
  const double layer_share = static_cast<double>(stage_layers(spec.model.layers, spec.pp)[stage]) / spec.model.layers;
  c.bytes_per_token = kv_bytes_per_token(spec.model, spec.kv, spec.tp) * layer_share;
  c.block_tokens = spec.limits.block_tokens;
  const double block = c.bytes_per_token * c.block_tokens;
  c.blocks = c.kv > 0 ? static_cast<uint64_t>(std::floor(c.kv / block)) : 0;
  return c;
}

}  // namespace

KvCapacity kv_capacity(const ServingSpec& spec, const catalogue::GpuSpec& gpu) {
  KvCapacity fewest = stage_capacity(spec, gpu, 0);
  for (uint32_t s = 1; s < spec.pp; ++s) {
    KvCapacity c = stage_capacity(spec, gpu, s);
    if (c.blocks < fewest.blocks) fewest = c;
  }
  return fewest;
}

std::string describe(const KvCapacity& c) {
  const std::string stage = c.stages > 1 ? fmt::format(" of stage {} of {}", c.stage + 1, c.stages) : "";
  return fmt::format(
      "KV cache {:.1f} GiB = {} tokens (weights {:.1f}, activations {:.1f}, fixed {:.1f} of {:.1f} GiB "
      "usable per GPU{})",
      std::max(0.0, c.kv) / kGiB, c.tokens(), c.weights / kGiB, c.activations / kGiB, c.fixed / kGiB, c.usable / kGiB,
      stage);
}

void require_room(const KvCapacity& c, const ServingSpec& spec, const catalogue::GpuSpec& gpu,
                  uint64_t longest_request) {
  const uint64_t blocks_needed = (longest_request + c.block_tokens - 1) / c.block_tokens;
  if (c.blocks >= std::max<uint64_t>(1, blocks_needed)) return;
  const std::string what = c.blocks == 0
                               ? fmt::format("{} does not leave room for the KV cache", spec.model.name)
                               : fmt::format("the KV cache holds {} tokens, fewer than the longest request's {}",
                                             c.tokens(), longest_request);
  throw ConfigError(fmt::format(
      "{} on {} with tp {}{}: {}: {}; try a larger {}, narrower weights (fp8, int8, int4), "
      "an fp8 KV cache, fewer max_batched_tokens or a GPU with more memory",
      spec.model.name, gpu.name, spec.tp,
      spec.pp > 1 ? fmt::format(" x pp {}", spec.pp) : (spec.ep > 1 ? fmt::format(" x ep {}", spec.ep) : ""), what,
      describe(c), spec.ep > 1 ? "ep" : "tp or pp"));
}

}  // namespace weft
