// One transformer layer's ops on one rank: Megatron tensor parallelism (an all-reduce after the
// attention block and after the MLP, forward and backward; reduce-scatter + all-gather with sequence
// parallelism), ring attention for context parallelism (K/V blocks passed around the cp ring while
// each block's attention runs), and MoE dispatch / combine all-to-alls for expert parallelism.
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>

#include "workloads/training_builder.h"

namespace weft::detail {

GemmDevice RankContext::gemm() const {
  const double rate = compute_rate(gpu, spec.precision, OpClass::gemm, efficiency);
  GemmDevice device = gemm_device(gpu, rate, gemm_output_bytes(spec.precision));
  device.flops_per_gradient = unhidden_write_seconds(gpu, 2 * spec.grad_bytes) * rate;
  return device;
}

uint32_t RankContext::compute(const char* label, Phase phase, double gemm_flops, double attention_flops, double bytes,
                              const std::vector<uint32_t>& after, double useful_flops) {
  // The gemm and attention parts run as their own kernels; the memory-bound part (norms, residual
  // adds, activation functions) moves `bytes` through HBM.
  // Unfused attention runs its score and AV products as batched GEMMs.
  const OpClass attention = shape.flash_attention ? OpClass::attention : OpClass::gemm;
  const Time t = op_time(gpu, spec.precision, OpClass::gemm, gemm_flops, 0, efficiency) +
                 op_time(gpu, spec.precision, attention, attention_flops, 0, efficiency) +
                 op_time(gpu, spec.precision, OpClass::memory_bound, 0, bytes, efficiency);
  Op op;
  op.kind = OpKind::compute;
  op.stream = kCompute;
  op.phase = phase;
  op.duration = t;
  op.flops = useful_flops;
  op.label = workload.label(label);
  return program.add(op, after);
}

uint32_t RankContext::collective(const char* label, Phase phase, CommGroup group, int32_t comm, uint8_t stream,
                                 CollectiveOp kind, double bytes, const std::vector<uint32_t>& after) {
  Op op;
  op.kind = OpKind::collective;
  op.stream = stream;
  op.group = group;
  op.phase = phase;
  op.collective = kind;
  op.comm = static_cast<uint32_t>(comm);
  // nccl-tests' size; all-gather / reduce-scatter / all-to-all buffers split evenly over the ranks.
  const auto ranks = static_cast<uint64_t>(workload.communicators[op.comm].ranks.size());
  const uint64_t granule = kind == CollectiveOp::all_reduce ? element_bytes : element_bytes * ranks;
  op.bytes = Bytes((static_cast<uint64_t>(std::ceil(bytes)) + granule - 1) / granule * granule);
  op.label = workload.label(label);
  return program.add(op, after);
}

uint32_t RankContext::p2p(const char* label, Phase phase, CommGroup group, bool send, uint32_t peer, uint32_t tag,
                          uint8_t stream, double bytes, const std::vector<uint32_t>& after) {
  Op op;
  op.kind = send ? OpKind::send : OpKind::recv;
  op.stream = stream;
  op.group = group;
  op.phase = phase;
  op.peer = peer;
  op.tag = tag;
  op.bytes = Bytes(static_cast<uint64_t>(std::ceil(bytes)));
  op.label = workload.label(label);
  return program.add(op, after);
}

namespace {

bool moe(const TrainingSpec& s) { return s.model.experts > 1; }

// One block's norm and residual add, as bytes at the streaming rate: the norm's own bytes (forward
// x and y; backward x, dy and dx, as a fused kernel moves them) over the stack's norm efficiency,
// which is relative to that rate (compute_model.h). `b.norms` holds a layer's two norms.
double block_stream_bytes(const RankContext& c, const LayerBytes& b, bool backward) {
  const double norm = b.norms / 2;
  if (!backward) return norm / c.efficiency.norm + b.residual / 2;
  return 1.5 * norm / c.efficiency.norm_backward + backward_bytes(b.residual / 2);
}

// Activations of one micro-batch on one rank: b (s/c) h elements (nccl size of the TP collectives).
double activation_bytes(const RankContext& c) {
  return static_cast<double>(c.shape.micro_batch) * static_cast<double>(c.shape.seq) / c.shape.cp *
         c.spec.model.hidden * c.element_bytes;
}

// The tensor-parallel exchange closing a block: all-reduce, or reduce-scatter with sequence
// parallelism. No op when tp = 1.
uint32_t tp_close(RankContext& c, const char* label, Phase phase, uint32_t after) {
  if (c.comms.tp[c.rank] < 0) return after;
  const CollectiveOp op = c.spec.sequence_parallel ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
  return c.collective(label, phase, CommGroup::tp, c.comms.tp[c.rank], kTpStream, op, activation_bytes(c), {after});
}

// The all-gather opening a block under sequence parallelism.
uint32_t tp_open(RankContext& c, const char* label, Phase phase, uint32_t after) {
  if (c.comms.tp[c.rank] < 0 || !c.spec.sequence_parallel) return after;
  return c.collective(label, phase, CommGroup::tp, c.comms.tp[c.rank], kTpStream, CollectiveOp::all_gather,
                      activation_bytes(c), {after});
}

// The backward GEMMs of a block ending in a column-parallel layer whose input (`width` columns per
// token) sequence parallelism saved sharded: Megatron all-gathers that input again while the
// input-gradient GEMMs run, and the weight-gradient GEMM waits for it. Returns {input gradient
// ready, weight gradient ready}; one op for both without sequence parallelism.
struct BackwardWork {
  double dgrad_gemm = 0, attention = 0, bytes = 0, wgrad_gemm = 0, useful = 0;
};
std::pair<uint32_t, uint32_t> block_backward(RankContext& c, const char* label, const BackwardWork& w, uint32_t after) {
  const int32_t tp = c.comms.tp[c.rank];
  if (tp < 0 || !c.spec.sequence_parallel) {
    const uint32_t op =
        c.compute(label, Phase::backward, w.dgrad_gemm + w.wgrad_gemm, w.attention, w.bytes, {after}, w.useful);
    return {op, op};
  }
  const std::string name(label);
  const uint32_t input = c.collective((name + " input re-gather").c_str(), Phase::backward, CommGroup::tp, tp,
                                      kTpStream, CollectiveOp::all_gather, activation_bytes(c), {after});
  const double share = w.useful * w.wgrad_gemm / (w.dgrad_gemm + w.wgrad_gemm + w.attention);
  const uint32_t dgrad = c.compute((name + " dgrad").c_str(), Phase::backward, w.dgrad_gemm, w.attention, w.bytes,
                                   {after}, w.useful - share);
  const uint32_t wgrad =
      c.compute((name + " wgrad").c_str(), Phase::backward, w.wgrad_gemm, 0, 0, {dgrad, input}, share);
  return {dgrad, wgrad};
}

// Neighbours in the context-parallel ring.
std::pair<uint32_t, uint32_t> cp_neighbours(const RankContext& c) {
  auto next = c.coords, prev = c.coords;
  const uint32_t n = c.layout.extent[kCp];
  next[kCp] = (c.coords[kCp] + 1) % n;
  prev[kCp] = (c.coords[kCp] + n - 1) % n;
  return {c.layout.rank_of(next), c.layout.rank_of(prev)};
}

// Ring attention (Liu et al. 2023; Megatron CP): c blocks of attention, each over the K/V block
// that arrived from the previous rank while the block before ran. `scale` 1 forward, 2 backward
// (backward passes K/V and their gradients: twice the bytes and the FLOPs); `attention_bytes` is
// the whole pass's HBM traffic, split evenly over the blocks.
uint32_t ring_attention(RankContext& c, Phase phase, double attention_flops, double attention_bytes, double scale,
                        uint32_t after) {
  const ModelConfig& m = c.spec.model;
  const uint32_t n = c.layout.extent[kCp];
  const auto [next, prev] = cp_neighbours(c);
  // K and V of this rank's s/c tokens: 2 b (s/c) a_kv d bytes, heads split over tp.
  const double kv = 2.0 * static_cast<double>(c.shape.micro_batch) * static_cast<double>(c.shape.seq) / n * m.kv_heads *
                    head_dim(m) * c.element_bytes / c.shape.tp * scale;
  const uint32_t tag = phase == Phase::backward ? 2 : 1;
  const char* name = phase == Phase::backward ? "bwd attention (cp block)" : "fwd attention (cp block)";
  uint32_t block = after, arrived = after;
  for (uint32_t j = 0; j < n; ++j) {
    uint32_t recv = arrived;
    if (j + 1 < n) {
      c.p2p("cp send K/V", phase, CommGroup::cp, true, next, tag, kCpSend, kv, {arrived});
      recv = c.p2p("cp recv K/V", phase, CommGroup::cp, false, prev, tag, kCpRecv, kv, {});
    }
    block = c.compute(name, phase, 0, scale * attention_flops / n, attention_bytes / n, {block, arrived});
    arrived = recv;
  }
  return block;
}

}  // namespace

uint32_t emit_layer_forward(RankContext& c, Phase phase, uint32_t /*layer*/, uint32_t /*micro_batch*/, uint32_t input) {
  const auto f = layer_forward_flops(c.spec.model, c.shape);
  const LayerFlops g = layer_gemm_cost(c.spec.model, c.shape, c.gemm()).forward;  // f's GEMMs, by their waves
  const auto b = layer_forward_bytes(c.spec.model, c.shape);
  const bool useful = phase == Phase::forward;
  const double block_bytes = block_stream_bytes(c, b, false);
  uint32_t x = tp_open(c, "fwd attn all-gather", phase, input);
  if (c.comms.cp[c.rank] >= 0) {
    x = c.compute("fwd qkv", phase, g.qkv, 0, block_bytes, {x}, useful ? f.qkv : 0);
    x = ring_attention(c, phase, f.attention, b.attention_io + b.scores, 1.0, x);
    x = c.compute("fwd out-proj", phase, g.out_proj, 0, b.casts_attention, {x}, useful ? f.out_proj + f.attention : 0);
  } else {
    x = c.compute("fwd attention", phase, g.qkv + g.out_proj, f.attention,
                  block_bytes + b.attention_io + b.scores + b.casts_attention, {x},
                  useful ? f.qkv + f.out_proj + f.attention : 0);
  }
  x = tp_close(c, "fwd attn all-reduce", phase, x);
  x = tp_open(c, "fwd mlp all-gather", phase, x);
  if (moe(c.spec)) {
    const double cf = c.spec.capacity_factor;
    const double dispatch = activation_bytes(c) * c.spec.model.top_k * cf / (c.spec.sequence_parallel ? c.shape.tp : 1);
    x = c.compute("fwd router", phase, f.router, 0, block_bytes, {x}, useful ? f.router : 0);
    if (c.comms.ep[c.rank] >= 0) {
      x = c.collective("fwd moe dispatch", phase, CommGroup::ep, c.comms.ep[c.rank], kEpStream,
                       CollectiveOp::all_to_all, dispatch, {x});
    }
    const double experts = expert_gemm_cost(c.spec.model, c.shape, c.spec.parallel.ep, cf, c.gemm()).forward;
    x = c.compute("fwd experts", phase, experts, 0, (b.activation + b.casts_mlp) * cf, {x}, useful ? f.mlp : 0);
    if (c.comms.ep[c.rank] >= 0) {
      x = c.collective("fwd moe combine", phase, CommGroup::ep, c.comms.ep[c.rank], kEpStream, CollectiveOp::all_to_all,
                       dispatch, {x});
    }
  } else {
    x = c.compute("fwd mlp", phase, g.mlp, 0, block_bytes + b.activation + b.casts_mlp, {x}, useful ? f.mlp : 0);
  }
  return tp_close(c, "fwd mlp all-reduce", phase, x);
}

uint32_t emit_layer_backward(RankContext& c, uint32_t /*layer*/, uint32_t /*micro_batch*/, uint32_t grad_in,
                             uint32_t& weights_done) {
  const auto f = layer_forward_flops(c.spec.model, c.shape);
  const LayerGemmCost cost = layer_gemm_cost(c.spec.model, c.shape, c.gemm());
  const LayerFlops& in = cost.input_grad;
  const LayerFlops& wg = cost.weight_grad;
  const auto b = layer_forward_bytes(c.spec.model, c.shape);
  const double block_bytes = block_stream_bytes(c, b, true);
  const Phase bwd = Phase::backward;
  uint32_t g = tp_open(c, "bwd mlp all-gather", bwd, grad_in);
  if (moe(c.spec)) {
    const double cf = c.spec.capacity_factor;
    const double dispatch = activation_bytes(c) * c.spec.model.top_k * cf / (c.spec.sequence_parallel ? c.shape.tp : 1);
    const int32_t ep = c.comms.ep[c.rank];
    if (ep >= 0)
      g = c.collective("bwd moe combine", bwd, CommGroup::ep, ep, kEpStream, CollectiveOp::all_to_all, dispatch, {g});
    const GemmPasses experts = expert_gemm_cost(c.spec.model, c.shape, c.spec.parallel.ep, cf, c.gemm());
    g = c.compute("bwd experts", bwd, experts.input_grad + experts.weight_grad, 0,
                  (backward_bytes(b.activation) + b.casts_mlp_backward) * cf, {g}, 2 * f.mlp);
    if (ep >= 0)
      g = c.collective("bwd moe dispatch", bwd, CommGroup::ep, ep, kEpStream, CollectiveOp::all_to_all, dispatch, {g});
    g = c.compute("bwd router", bwd, 2 * f.router, 0, block_bytes, {g}, 2 * f.router);
  } else {
    const auto [dgrad, wgrad] =
        block_backward(c, "bwd mlp",
                       {.dgrad_gemm = in.mlp,
                        .bytes = block_bytes + backward_bytes(b.activation) + b.casts_mlp_backward + b.bias_grads_mlp,
                        .wgrad_gemm = wg.mlp,
                        .useful = 2 * f.mlp},
                       g);
    g = dgrad;
    weights_done = wgrad;
  }
  g = tp_close(c, "bwd mlp all-reduce", bwd, g);
  g = tp_open(c, "bwd attn all-gather", bwd, g);
  if (c.comms.cp[c.rank] >= 0) {
    g = c.compute("bwd out-proj", bwd, in.out_proj + wg.out_proj, 0, b.casts_attention_backward, {g}, 2 * f.out_proj);
    g = ring_attention(c, bwd, f.attention, backward_bytes(b.attention_io) + b.scores_backward, 2.0, g);
    std::tie(g, weights_done) = block_backward(c, "bwd qkv",
                                               {.dgrad_gemm = in.qkv,
                                                .bytes = block_bytes + b.bias_grads_attention,
                                                .wgrad_gemm = wg.qkv,
                                                .useful = 2 * (f.qkv + f.attention)},
                                               g);
  } else {
    std::tie(g, weights_done) =
        block_backward(c, "bwd attention",
                       {.dgrad_gemm = in.out_proj + wg.out_proj + in.qkv,
                        .attention = 2 * f.attention,
                        .bytes = block_bytes + backward_bytes(b.attention_io) + b.scores_backward +
                                 b.casts_attention_backward + b.bias_grads_attention,
                        .wgrad_gemm = wg.qkv,
                        .useful = 2 * (f.qkv + f.out_proj + f.attention)},
                       g);
  }
  return tp_close(c, "bwd attn all-reduce", bwd, g);
}

LayerParams rank_layer_params(const TrainingSpec& s) {
  const ModelConfig& m = s.model;
  const double tp = s.parallel.tp;
  LayerParams p;
  p.dense = static_cast<double>(attention_params(m)) / tp + static_cast<double>(router_params(m));
  if (moe(s)) {
    p.expert = static_cast<double>(m.experts / s.parallel.ep) * static_cast<double>(mlp_params_per_expert(m)) / tp;
  } else {
    p.dense += static_cast<double>(mlp_params_per_expert(m)) / tp;
  }
  return p;
}

}  // namespace weft::detail
