#include "workloads/serving/iteration_cost.h"

#include <algorithm>
#include <cmath>

#include "collectives/host_issue.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

constexpr double kActivationBytes = 2;  // bf16/fp16 activations, whatever the weights' format
// Kernels one eager decoder layer launches in vLLM (model_executor/models/llama.py, LlamaDecoderLayer:
// input norm, QKV projection, rotary embedding, KV-cache write, attention, output projection,
// post-attention fused add + norm, gate-up projection, SiLU-and-mul, down projection), plus one
// all-reduce after each of the two row-parallel projections under tensor parallelism; after the
// layers: the final norm, the logits projection, their gather and the sampler.
constexpr uint32_t kLayerKernels = 10;
constexpr uint32_t kLayerCollectives = 2;
constexpr uint32_t kTailKernels = 4;

// vLLM's captured decode batch sizes: 1, 2, 4, then every multiple of 8 (vllm/config.py,
// _BATCH_SIZES_TO_CAPTURE).
uint32_t padded_graph_batch(uint32_t tokens) {
  if (tokens <= 2) return tokens;
  if (tokens <= 4) return 4;
  return (tokens + 7) / 8 * 8;
}

// Per GPU: the linear layers' parameters one token passes through, and the attention heads held.
double linear_params_per_gpu(const ModelConfig& m, uint32_t tp) {
  return (static_cast<double>(attention_params(m)) + m.top_k * static_cast<double>(mlp_params_per_expert(m))) / tp +
         static_cast<double>(router_params(m));
}

}  // namespace

double stage_activation_bytes_per_token(const ModelConfig& m) { return 2.0 * m.hidden * kActivationBytes; }

double iteration_flops(const ServingSpec& spec, const BatchShape& b, StageSpan span) {
  const ModelConfig& m = spec.model;
  const double q = static_cast<double>(m.heads) / spec.tp * head_dim(m);
  const double per_layer = 2.0 * b.tokens() * linear_params_per_gpu(m, spec.tp) +
                           4 * (b.prefill_pairs + static_cast<double>(b.decode_context)) * q;
  const uint32_t layers = span.layers > 0 ? span.layers : m.layers;
  return per_layer * layers + (span.last ? 2.0 * b.sampled * m.hidden * m.vocab / spec.tp : 0);
}

// Vidur's profile of vLLM's host work per iteration (microsoft/vidur, data/profiling/a100/cpu_overheads.csv:
// Llama-2-7B, tp 1, batches of 8 to 64 sequences, medians in ms): scheduling, input preparation and the
// sampler grow from 1.35 ms to 3.50 ms, least squares 1.045 ms + 0.0376 ms per sequence; output
// processing adds 0.62 to 4.11 ms (with it: 1.202 + 0.1000 per sequence). vLLM 0.6 runs output
// processing asynchronously, beside the next iteration (blog.vllm.ai/2024/09/05/perf-update.html), so
// the 2025 stack pays the first line only. Launches (CUDA.jl documentation, "Graphs": 80 broadcast
// kernels take 260 us launched one by one, the graph's launch 3.5 us of CPU): kEagerKernelLaunch per
// eager kernel (collectives/host_issue.h) [the PyTorch dispatcher's own cost per op is not included].
HostOverheads default_host_overheads(SoftwareStack software) {
  const bool overlapped_outputs = software == SoftwareStack::y2025;
  HostOverheads h;
  h.per_iteration = Time::ns(overlapped_outputs ? 1'045'000 : 1'202'000);
  h.per_sequence = Time::ns(overlapped_outputs ? 37'600 : 100'000);
  h.kernel_launch = kEagerKernelLaunch;
  h.graph_launch = Time::ns(3'500);
  return h;
}

IterationModel::IterationModel(const ServingSpec& spec, const catalogue::GpuSpec& gpu, const Efficiencies& eff,
                               HostOverheads host, CollectiveTime collective, StageSpan span, ExchangeTime exchange)
    : spec_(spec),
      gpu_(gpu),
      eff_(eff),
      host_(host),
      collective_(std::move(collective)),
      span_(span),
      exchange_(std::move(exchange)) {
  if (span_.layers == 0) span_.layers = spec.model.layers;
  kv_heads_per_gpu_ = std::max(1.0, static_cast<double>(spec.model.kv_heads) / spec.tp);
}

uint32_t IterationModel::graph_tokens(const BatchShape& b, const ExpertGroupLoad* group) const {
  if (group != nullptr) {
    if (!spec_.limits.cuda_graphs || !group->decode_only) return 0;
  } else if (!spec_.limits.cuda_graphs || b.prefill_tokens > 0 || b.decode_seqs == 0) {
    return 0;
  }
  const uint32_t padded = padded_graph_batch(group != nullptr ? group->max_tokens : b.decode_seqs);
  return padded <= spec_.limits.max_graph_batch ? padded : 0;
}

// The layer's linear layers (one roofline op: every GEMM of a layer has the same arithmetic intensity
// in the tokens) and its elementwise ops, over `tokens` (padded for a graph).
Time IterationModel::layer_compute(uint32_t tokens) const {
  const ModelConfig& m = spec_.model;
  const double t = spec_.tp, n = tokens, h = m.hidden, d = head_dim(m), f = m.ffn;
  const double q = m.heads / t * d, kv = kv_heads_per_gpu_ * d;
  const double up = (m.gated_mlp ? 2 : 1) * f / t;
  // A MoE layer reads the experts its tokens visit; FLOPs follow the visits.
  const double experts_read = std::min<double>(m.experts, n * m.top_k);
  const double weights = (static_cast<double>(attention_params(m)) / t +
                          experts_read * static_cast<double>(mlp_params_per_expert(m)) / t) *
                             bytes_per_weight(spec_.weights) +
                         static_cast<double>(router_params(m)) * kActivationBytes;
  const double flops = 2 * n * linear_params_per_gpu(m, spec_.tp);
  // GEMM inputs and outputs: QKV h -> q + 2kv, output q -> h, gate-up h -> up, down f/t -> h.
  const double gemm_io =
      n * kActivationBytes * m.top_k * (h + up + f / t + h) + n * kActivationBytes * (h + q + 2 * kv + q + h);
  const Time linear = op_time(gpu_, gemm_precision(spec_.weights), OpClass::gemm, flops, weights + gemm_io, eff_);
  // Two fused add + norms (read x and the residual, write both), rotary on q and k, the activation
  // (read up, write f/t), the KV-cache write (read K and V, write them in the cache's format).
  const double per_token =
      kActivationBytes * (8 * h + 2 * (q + kv) + up + f / t) + 2 * kv * (kActivationBytes + element_bytes(spec_.kv));
  const Time elementwise = op_time(gpu_, Precision::fp32, OpClass::memory_bound, 0, n * per_token, eff_);
  return linear + elementwise;
}

// Under expert parallelism (tp 1): the attention projections and the router over this engine's
// `tokens`, and its experts / ep whole experts over the tokens the group routes to them: with DeepEP's
// uniform routing (collectives/ep_exchange.h) each GPU's experts see group_tokens x top_k / ep visits,
// and read the experts they visit.
Time IterationModel::expert_parallel_layer(uint32_t tokens, uint32_t group_tokens) const {
  const ModelConfig& m = spec_.model;
  const double n = tokens, h = m.hidden, d = head_dim(m), f = m.ffn;
  const double q = m.heads * d, kv = kv_heads_per_gpu_ * d, up = (m.gated_mlp ? 2 : 1) * f;
  const double visits = static_cast<double>(group_tokens) * m.top_k / spec_.ep;
  const double expert = static_cast<double>(mlp_params_per_expert(m));
  const double experts_read = std::min(static_cast<double>(m.experts) / spec_.ep, visits);
  const double dense = static_cast<double>(attention_params(m)), router = static_cast<double>(router_params(m));
  const double weights = (dense + experts_read * expert) * bytes_per_weight(spec_.weights) + router * kActivationBytes;
  const double flops = 2 * n * (dense + router) + 2 * visits * expert;
  const double gemm_io = visits * kActivationBytes * (h + up + f + h) + n * kActivationBytes * (h + q + 2 * kv + q + h);
  const Time linear = op_time(gpu_, gemm_precision(spec_.weights), OpClass::gemm, flops, weights + gemm_io, eff_);
  const double per_token =
      kActivationBytes * (8 * h + 2 * (q + kv)) + 2 * kv * (kActivationBytes + element_bytes(spec_.kv));
  const double per_visit = kActivationBytes * (up + f);
  const Time elementwise =
      op_time(gpu_, Precision::fp32, OpClass::memory_bound, 0, n * per_token + visits * per_visit, eff_);
  return linear + elementwise;
}

// One MoE layer's dispatch and combine, `tokens` per GPU (the busiest engine's: the kernels end together).
// SGLang's DeepEP "auto" mode: the low-latency kernels for decode batches, the normal ones otherwise.
Time IterationModel::exchange(const ExpertGroupLoad& group, uint32_t tokens) const {
  const EpKernel kernel = group.decode_only ? EpKernel::low_latency : EpKernel::normal;
  return exchange_(kernel, EpPhase::dispatch, tokens) + exchange_(kernel, EpPhase::combine, tokens);
}

// Prefill chunks: causal FLOPs over their pairs, reading Q, K, V, the cached K and V of earlier chunks,
// writing O. Decodes: each reads its whole cache (memory-bound at any batch).
Time IterationModel::attention(const BatchShape& b) const {
  const ModelConfig& m = spec_.model;
  const double d = head_dim(m), q = m.heads / static_cast<double>(spec_.tp) * d, kv = kv_heads_per_gpu_ * d;
  const double kvb = element_bytes(spec_.kv);
  Time out;
  if (b.prefill_tokens > 0) {
    const double flops = 4 * b.prefill_pairs * q;
    const double bytes =
        b.prefill_tokens * kActivationBytes * (2 * q + 2 * kv) + static_cast<double>(b.prefill_context) * 2 * kv * kvb;
    out += op_time(gpu_, Precision::bf16, OpClass::attention, flops, bytes, eff_);
  }
  if (b.decode_seqs > 0) {
    const double flops = 4 * static_cast<double>(b.decode_context) * q;
    const double bytes =
        static_cast<double>(b.decode_context) * 2 * kv * kvb + b.decode_seqs * 2 * q * kActivationBytes;
    out += op_time(gpu_, Precision::bf16, OpClass::attention, flops, bytes, eff_);
  }
  return out;
}

Time IterationModel::collective(CollectiveOp op, double bytes) const {
  if (spec_.tp <= 1 || bytes <= 0) return Time();
  return collective_(op, Bytes(static_cast<uint64_t>(std::ceil(bytes))));
}

IterationCost IterationModel::cost(const BatchShape& b, const ExpertGroupLoad* group) const {
  const ModelConfig& m = spec_.model;
  WEFT_ASSERT((spec_.ep > 1) == (group != nullptr));
  IterationCost c;
  const uint32_t graph = graph_tokens(b, group);
  c.graph = graph > 0;
  // An idle engine of an expert-parallel group runs a dummy batch of one token (vLLM's execute_dummy_batch).
  const uint32_t tokens = c.graph ? graph : std::max(b.tokens(), group != nullptr ? 1U : 0U);
  const Time all_reduce =
      collective(CollectiveOp::all_reduce, static_cast<double>(tokens) * m.hidden * kActivationBytes);
  Time layer = attention(b) + all_reduce * kLayerCollectives;
  Time exchanges;
  if (group != nullptr) {
    exchanges = exchange(*group, c.graph ? graph : group->max_tokens);
    layer += expert_parallel_layer(tokens, c.graph ? graph * spec_.ep : group->tokens) + exchanges;
  } else {
    layer += layer_compute(tokens);
  }
  const Time received =
      span_.first ? Time() : collective(CollectiveOp::all_gather, tokens * stage_activation_bytes_per_token(m));
  Time logits, gather;
  if (span_.last) {  // logits of the sampled sequences over the vocabulary split t ways, in fp32, gathered
    const double v = static_cast<double>(m.vocab) / spec_.tp;
    logits = op_time(gpu_, gemm_precision(spec_.weights), OpClass::gemm, 2.0 * b.sampled * m.hidden * v,
                     v * m.hidden * bytes_per_weight(spec_.weights) + b.sampled * v * 4, eff_);
    gather = collective(CollectiveOp::all_gather, static_cast<double>(b.sampled) * m.vocab * 4);
  }
  c.communication =
      received + (all_reduce * static_cast<int64_t>(kLayerCollectives) + exchanges) * span_.layers + gather;
  c.gpu = received + layer * span_.layers + logits + gather;
  const uint32_t collectives = spec_.tp > 1 || spec_.ep > 1 ? kLayerCollectives : 0;  // all-reduces, or EP's two
  const uint64_t kernels = static_cast<uint64_t>(span_.layers) * (kLayerKernels + collectives) +
                           (span_.last ? kTailKernels : 0) + (spec_.tp > 1 && !span_.first ? 1 : 0);
  c.launch = c.graph ? host_.graph_launch : host_.kernel_launch * static_cast<int64_t>(kernels);
  c.host = span_.first ? host_.per_iteration + host_.per_sequence * b.seqs : Time();
  return c;
}

float IterationModel::prefill_share(const BatchShape& shape) const {
  if (shape.prefill_tokens == 0) return 0;
  if (shape.decode_seqs == 0) return 1;
  BatchShape prefill = shape, decode;
  prefill.decode_seqs = 0;
  prefill.decode_context = 0;
  prefill.sampled = shape.sampled - shape.decode_seqs;
  prefill.seqs = shape.seqs - shape.decode_seqs;
  decode.decode_seqs = shape.decode_seqs;
  decode.decode_context = shape.decode_context;
  decode.sampled = shape.decode_seqs;
  decode.seqs = shape.decode_seqs;
  auto alone = [this](const BatchShape& part) {
    const ExpertGroupLoad group{part.tokens() * spec_.ep, part.tokens(), part.prefill_tokens == 0};
    return static_cast<double>(cost(part, spec_.ep > 1 ? &group : nullptr).total().ps());
  };
  const double p = alone(prefill), d = alone(decode);
  return static_cast<float>(p / (p + d));
}

}  // namespace weft
