// The step of one rank: its pipeline stage's forward and backward actions in schedule order, the
// pipeline sends and recvs between them, and the data-parallel traffic (DDP buckets, ZeRO
// reduce-scatter / all-gather, ZeRO-3 per-layer gathers), then the optimizer.
#include "workloads/training.h"

#include <fmt/format.h>
#include <algorithm>

#include "sim/core/errors.h"
#include "workloads/training_builder.h"

namespace weft {

using detail::RankContext;

uint32_t micro_batches(const TrainingSpec& s) {
  const uint64_t per_step = uint64_t{s.micro_batch} * s.parallel.dp;
  return per_step == 0 ? 0 : static_cast<uint32_t>(s.global_batch / per_step);
}

namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw ConfigError(message);
}

uint32_t sequence(const TrainingSpec& s) { return s.seq_len != 0 ? s.seq_len : s.model.max_seq; }

}  // namespace

void check(const TrainingSpec& s, uint32_t gpus, const catalogue::GpuSpec& gpu) {
  check(s.model);
  const ParallelSizes& p = s.parallel;
  const ModelConfig& m = s.model;
  require(p.world() == gpus, fmt::format("parallel: dp·tp·pp·cp = {}·{}·{}·{} = {}, but the system has {} GPUs", p.dp,
                                         p.tp, p.pp, p.cp, p.world(), gpus));
  require(m.heads % p.tp == 0,
          fmt::format("parallel.tp = {}: the {} attention heads of {} do not split evenly", p.tp, m.heads, m.name));
  require(m.kv_heads % p.tp == 0 || p.tp % m.kv_heads == 0,
          fmt::format("parallel.tp = {}: the {} KV heads of {} neither split evenly nor replicate evenly", p.tp,
                      m.kv_heads, m.name));
  require(m.ffn % p.tp == 0,
          fmt::format("parallel.tp = {}: FFN width {} of {} does not split evenly", p.tp, m.ffn, m.name));
  const uint32_t chunks = s.pipeline == PipelineKind::interleaved ? s.virtual_stages : 1;
  require(s.virtual_stages == 1 || s.pipeline == PipelineKind::interleaved,
          "parallel.virtual_stages > 1 needs parallel.schedule: interleaved");
  require(
      chunks >= 1 && m.layers % (p.pp * chunks) == 0,
      fmt::format("parallel: {} layers do not split into pp·virtual_stages = {} equal parts", m.layers, p.pp * chunks));
  require(s.micro_batch > 0 && s.global_batch > 0 && s.global_batch % (s.micro_batch * p.dp) == 0,
          fmt::format("batch.global = {} must be a positive multiple of batch.micro x dp = {} x {}", s.global_batch,
                      s.micro_batch, p.dp));
  const uint32_t seq = sequence(s);
  require(seq > 0, "seq_len: expected a positive number of tokens (the model gives none)");
  require(p.cp == 1 || seq % (2 * p.cp) == 0,
          fmt::format("seq_len = {} must divide by 2·cp = {} (Megatron's load-balanced causal split)", seq, 2 * p.cp));
  require(!s.sequence_parallel || seq / p.cp % p.tp == 0,
          fmt::format("sequence_parallel: seq_len / cp = {} must divide by tp = {}", seq / p.cp, p.tp));
  require(p.ep == 1 || m.experts > 1, fmt::format("parallel.ep = {}: {} has no experts", p.ep, m.name));
  require(m.experts % p.ep == 0,
          fmt::format("parallel.ep = {}: the {} experts of {} do not split evenly", p.ep, m.experts, m.name));
  require(s.capacity_factor > 0, "capacity_factor: expected a positive number");
  peak_flops(gpu, s.precision);  // throws for a precision the GPU lacks
  if (s.pipeline == PipelineKind::interleaved) pipeline_actions(s.pipeline, 0, p.pp, micro_batches(s), chunks);
}

namespace {

// Gradient buckets of one rank: filled in backward order as layers' weight gradients become
// ready on the last micro-batch; each full bucket is reduced at once on the data-parallel stream.
struct GradBuckets {
  RankContext& ctx;
  double dense = 0, expert = 0;  // bytes waiting
  uint32_t ready = 0;            // the op after which the waiting gradients exist
  uint32_t last_dp = UINT32_MAX;

  void add(const detail::LayerParams& p, uint32_t ready_op) {
    dense += p.dense * ctx.spec.grad_bytes;
    expert += p.expert * ctx.spec.grad_bytes;
    ready = ready_op;
    if (dense + expert >= static_cast<double>(ctx.spec.bucket.count())) flush();
  }
  void flush() {
    const CollectiveOp op =
        ctx.spec.sharding == Sharding::none ? CollectiveOp::all_reduce : CollectiveOp::reduce_scatter;
    if (dense > 0 && ctx.comms.dp[ctx.rank] >= 0) {
      last_dp = ctx.collective("dp gradient bucket", Phase::backward, CommGroup::dp, ctx.comms.dp[ctx.rank],
                               detail::kDpStream, op, dense, {ready});
    }
    if (expert > 0 && ctx.comms.edp[ctx.rank] >= 0) {
      last_dp = ctx.collective("dp expert gradient bucket", Phase::backward, CommGroup::dp, ctx.comms.edp[ctx.rank],
                               detail::kDpStream, op, expert, {ready});
    }
    dense = expert = 0;
  }
};

struct StageRun {
  RankContext& ctx;
  GradBuckets buckets;
  uint32_t stages, chunks, layers_per_chunk;
  std::vector<std::vector<uint32_t>> forward_out;  // [micro-batch][chunk]
  std::vector<uint32_t> backwards_left;            // per chunk
  std::vector<uint32_t> params_gathered;           // zero1/2: per chunk, the all-gather its forward needs
  uint32_t last_compute = UINT32_MAX;

  uint32_t peer(uint32_t stage) const {
    auto c = ctx.coords;
    c[kPp] = stage;
    return ctx.layout.rank_of(c);
  }
  uint32_t virtual_stages() const { return stages * chunks; }
  uint32_t tag(uint32_t mb, uint32_t vs, bool backward) const { return (mb * virtual_stages() + vs) * 2 + backward; }
  double pp_bytes() const {
    const double sp = ctx.spec.sequence_parallel ? ctx.shape.tp : 1;
    return tokens() * ctx.spec.model.hidden * ctx.element_bytes / sp;
  }
  double tokens() const {
    return static_cast<double>(ctx.shape.micro_batch) * static_cast<double>(ctx.shape.seq) / ctx.shape.cp;
  }
  bool first_stage() const { return ctx.coords[kPp] == 0; }
  bool last_stage() const { return ctx.coords[kPp] + 1 == stages; }
  // The vocabulary-parallel embedding's rows on this rank (learned positions are replicated).
  double embedding_params() const {
    const ModelConfig& m = ctx.spec.model;
    return static_cast<double>(m.vocab) * m.hidden / ctx.shape.tp +
           (m.learned_positions ? static_cast<double>(m.max_seq) * m.hidden : 0.0);
  }
  // The output layer's: its own weights, or with tied embeddings a copy of the embedding on the last
  // stage (none when that stage is also the first: one tensor serves both).
  double output_params() const {
    const ModelConfig& m = ctx.spec.model;
    return m.tied_embeddings && first_stage() ? 0.0 : static_cast<double>(m.vocab) * m.hidden / ctx.shape.tp;
  }
  // Parameters outside the layers: the embedding on the first stage, the output layer on the last.
  double outer_params() const {
    return (first_stage() ? embedding_params() : 0) + (last_stage() ? output_params() : 0);
  }
  // A zero-time op on the compute stream that waits for `a` and `b` (joins two dependencies).
  uint32_t join(uint32_t a, uint32_t b, Phase phase) {
    return ctx.compute("wait for parameters", phase, 0, 0, 0, {a, b});
  }

  uint32_t output_layer_forward(uint32_t x);
  uint32_t output_layer_backward(uint32_t stashed);
  void forward(const PipelineAction& a);
  void backward(const PipelineAction& a);
  void gather_parameters_ahead();
  void finish_step();
};

void StageRun::gather_parameters_ahead() {
  // ZeRO-1/2: each step begins with the all-gather of the parameters the optimizer updated (sharded) at the end of the
  // previous step; Megatron overlaps it with the first forward. ZeRO-3/FSDP gathers the layers one by one (forward,
  // backward) and the embedding and output layer here, once: FSDP's root unit keeps them gathered through the step.
  params_gathered.assign(chunks, UINT32_MAX);
  if (ctx.spec.sharding == Sharding::none || ctx.comms.dp[ctx.rank] < 0) return;
  const bool zero3 = ctx.spec.sharding == Sharding::zero3;
  const detail::LayerParams p = detail::rank_layer_params(ctx.spec);
  for (uint32_t c = 0; c < chunks; ++c) {
    double params = zero3 ? 0.0 : (p.dense + p.expert) * layers_per_chunk;
    if (c == 0 && first_stage()) params += embedding_params();
    if (c + 1 == chunks && last_stage()) params += output_params();
    if (params == 0) continue;
    const double bytes = params * ctx.element_bytes;
    params_gathered[c] = ctx.collective("dp parameter all-gather", Phase::forward, CommGroup::dp,
                                        ctx.comms.dp[ctx.rank], detail::kDpStream, CollectiveOp::all_gather, bytes, {});
  }
}

// The last stage's output layer: under sequence parallelism its input is gathered from the tp ranks
// first; vocabulary-parallel logits; the cross-entropy sums its max, its sum of exponentials and
// the target logits over tp (Megatron's three all-reduces of one fp32 value per token).
// Bytes: the logits written (e) then read by the fp32 softmax, which keeps its result (4) for backward.
uint32_t StageRun::output_layer_forward(uint32_t x) {
  const double logits = logits_forward_flops(ctx.spec.model, ctx.shape);
  const double vocab = tokens() * ctx.spec.model.vocab / ctx.shape.tp;
  const int32_t tp = ctx.comms.tp[ctx.rank];
  const double hidden = tokens() * ctx.spec.model.hidden * ctx.element_bytes;
  if (tp >= 0 && ctx.spec.sequence_parallel) {
    x = ctx.collective("fwd output all-gather", Phase::forward, CommGroup::tp, tp, detail::kTpStream,
                       CollectiveOp::all_gather, hidden, {x});
  }
  const double gemm = logits_gemm_cost(ctx.spec.model, ctx.shape, ctx.gemm()).forward;
  x = ctx.compute("fwd logits + loss", Phase::forward, gemm, 0, vocab * (2 * ctx.element_bytes + 4), {x}, logits);
  if (tp >= 0) {
    for (const char* what :
         {"fwd loss all-reduce (max)", "fwd loss all-reduce (target)", "fwd loss all-reduce (sum)"}) {
      x = ctx.collective(what, Phase::forward, CommGroup::tp, tp, detail::kTpStream, CollectiveOp::all_reduce,
                         tokens() * 4, {x});
    }
  }
  return x;
}

// Backward: the softmax's gradient (read 4, write e per logit) and the training metrics' passes, the logits'
// two GEMMs, and the sum of the input gradient's partial sums over tp (column-parallel layer): an all-reduce,
// or under sequence parallelism a reduce-scatter back to sequence shards.
uint32_t StageRun::output_layer_backward(uint32_t stashed) {
  const double logits = logits_forward_flops(ctx.spec.model, ctx.shape);
  const double vocab = tokens() * ctx.spec.model.vocab / ctx.shape.tp;
  const GemmPasses gemm = logits_gemm_cost(ctx.spec.model, ctx.shape, ctx.gemm());
  uint32_t g = ctx.compute("bwd logits", Phase::backward, gemm.input_grad + gemm.weight_grad, 0,
                           vocab * logits_backward_bytes(ctx.spec, ctx.element_bytes), {stashed}, 2 * logits);
  const int32_t tp = ctx.comms.tp[ctx.rank];
  if (tp >= 0) {
    const bool sp = ctx.spec.sequence_parallel;
    g = ctx.collective(sp ? "bwd output reduce-scatter" : "bwd output all-reduce", Phase::backward, CommGroup::tp, tp,
                       detail::kTpStream, sp ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce,
                       tokens() * ctx.spec.model.hidden * ctx.element_bytes, {g});
  }
  return g;
}

void StageRun::forward(const PipelineAction& a) {
  const uint32_t stage = ctx.coords[kPp], vs = a.chunk * stages + stage;
  const double embed_bytes = pp_bytes() * 2;  // read the embedding rows, write the activations
  uint32_t x;
  if (vs == 0) {
    x = ctx.compute("fwd embedding", Phase::forward, 0, 0, embed_bytes, {});
    // Vocabulary-parallel embedding: each tp rank looked up its rows only, the sum completes them
    // (a reduce-scatter into sequence shards under sequence parallelism).
    if (const int32_t tp = ctx.comms.tp[ctx.rank]; tp >= 0) {
      const bool sp = ctx.spec.sequence_parallel;
      x = ctx.collective(sp ? "fwd embedding reduce-scatter" : "fwd embedding all-reduce", Phase::forward,
                         CommGroup::tp, tp, detail::kTpStream,
                         sp ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce,
                         tokens() * ctx.spec.model.hidden * ctx.element_bytes, {x});
    }
  } else {
    x = ctx.p2p("pp recv activation", Phase::forward, CommGroup::pp, false, peer((stage + stages - 1) % stages),
                tag(a.micro_batch, vs, false), detail::kPpRecv, pp_bytes(), {});
  }
  if (params_gathered[a.chunk] != UINT32_MAX) x = join(x, params_gathered[a.chunk], Phase::forward);
  const detail::LayerParams p = detail::rank_layer_params(ctx.spec);
  std::vector<uint32_t> outputs;
  for (uint32_t l = 0; l < layers_per_chunk; ++l) {
    if (ctx.spec.sharding == Sharding::zero3 && ctx.comms.dp[ctx.rank] >= 0) {
      // FSDP's rate limiter: the gather for layer l waits until layer l - 2 is done (two in flight).
      const uint32_t gate = outputs.size() >= 2 ? outputs[outputs.size() - 2] : x;
      const uint32_t ag =
          ctx.collective("dp layer all-gather (fwd)", Phase::forward, CommGroup::dp, ctx.comms.dp[ctx.rank],
                         detail::kDpStream, CollectiveOp::all_gather, (p.dense + p.expert) * ctx.element_bytes, {gate});
      x = join(x, ag, Phase::forward);
    }
    x = detail::emit_layer_forward(ctx, Phase::forward, vs * layers_per_chunk + l, a.micro_batch, x);
    outputs.push_back(x);
  }
  if (vs + 1 == virtual_stages()) {
    x = output_layer_forward(x);
  } else {
    ctx.p2p("pp send activation", Phase::forward, CommGroup::pp, true, peer((stage + 1) % stages),
            tag(a.micro_batch, vs + 1, false), detail::kPpSend, pp_bytes(), {x});
  }
  forward_out[a.micro_batch][a.chunk] = x;
}

void StageRun::backward(const PipelineAction& a) {
  const uint32_t stage = ctx.coords[kPp], vs = a.chunk * stages + stage;
  const uint32_t stashed = forward_out[a.micro_batch][a.chunk];
  const bool last_micro_batch = --backwards_left[a.chunk] == 0;
  uint32_t g;
  if (vs + 1 == virtual_stages()) {
    g = output_layer_backward(stashed);
    if (last_micro_batch) buckets.add({.dense = output_params()}, g);
  } else {
    g = ctx.p2p("pp recv gradient", Phase::backward, CommGroup::pp, false, peer((stage + 1) % stages),
                tag(a.micro_batch, vs, true), detail::kPpRecv, pp_bytes(), {});
    g = join(g, stashed, Phase::backward);
  }
  const detail::LayerParams p = detail::rank_layer_params(ctx.spec);
  const bool zero3 = ctx.spec.sharding == Sharding::zero3 && ctx.comms.dp[ctx.rank] >= 0;
  for (uint32_t l = layers_per_chunk; l-- > 0;) {
    const uint32_t layer = vs * layers_per_chunk + l;
    if (zero3) {
      const uint32_t ag =
          ctx.collective("dp layer all-gather (bwd)", Phase::backward, CommGroup::dp, ctx.comms.dp[ctx.rank],
                         detail::kDpStream, CollectiveOp::all_gather, (p.dense + p.expert) * ctx.element_bytes, {g});
      g = join(g, ag, Phase::backward);
    }
    if (ctx.spec.recompute) g = detail::emit_layer_forward(ctx, Phase::recompute, layer, a.micro_batch, g);
    uint32_t weights = 0;
    g = detail::emit_layer_backward(ctx, layer, a.micro_batch, g, weights);
    if (zero3) {
      buckets.last_dp = ctx.collective("dp layer reduce-scatter", Phase::backward, CommGroup::dp,
                                       ctx.comms.dp[ctx.rank], detail::kDpStream, CollectiveOp::reduce_scatter,
                                       (p.dense + p.expert) * ctx.spec.grad_bytes, {weights});
    } else if (last_micro_batch) {
      buckets.add(p, weights);
    }
    last_compute = weights;
  }
  if (vs == 0) {
    last_compute = g = ctx.compute("bwd embedding", Phase::backward, 0, 0, pp_bytes() * 2, {g});
    if (last_micro_batch) buckets.add({.dense = embedding_params()}, g);
  } else {
    ctx.p2p("pp send gradient", Phase::backward, CommGroup::pp, true, peer((stage + stages - 1) % stages),
            tag(a.micro_batch, vs - 1, true), detail::kPpSend, pp_bytes(), {g});
  }
  if (last_micro_batch && !zero3 && a.chunk == 0) buckets.flush();
}

void StageRun::finish_step() {
  buckets.flush();
  // Adam (fp32 master weights): read the gradient, read and write master weights, m and v (4 B
  // each), write the bf16 parameters; sharded over data parallelism with ZeRO.
  const detail::LayerParams p = detail::rank_layer_params(ctx.spec);
  double params = (p.dense + p.expert) * layers_per_chunk * chunks + outer_params();
  if (ctx.spec.sharding != Sharding::none) params /= ctx.spec.parallel.dp;
  const double bytes = params * (ctx.spec.grad_bytes + 24 + ctx.element_bytes);
  std::vector<uint32_t> after{last_compute};
  if (buckets.last_dp != UINT32_MAX) after.push_back(buckets.last_dp);
  // Tied embeddings over pipeline stages: the first and the last stage sum their two gradients of
  // the one tensor (Megatron's embedding group, after the data-parallel reduction).
  if (const int32_t group = ctx.comms.embedding[ctx.rank]; group >= 0) {
    after = {ctx.collective(
        "embedding gradient all-reduce (tied)", Phase::backward, CommGroup::pp, group, detail::kDpStream,
        CollectiveOp::all_reduce,
        static_cast<double>(ctx.spec.model.vocab) * ctx.spec.model.hidden / ctx.shape.tp * ctx.spec.grad_bytes, after)};
  }
  ctx.compute("optimizer step", Phase::optimizer, 0, 0, bytes, after);
}

void emit_rank(RankContext& ctx) {
  const TrainingSpec& s = ctx.spec;
  const uint32_t chunks = s.pipeline == PipelineKind::interleaved ? s.virtual_stages : 1;
  const uint32_t m = micro_batches(s);
  StageRun run{ctx, GradBuckets{ctx}, s.parallel.pp, chunks, s.model.layers / (s.parallel.pp * chunks), {}, {}, {}};
  run.forward_out.assign(m, std::vector<uint32_t>(chunks, 0));
  run.backwards_left.assign(chunks, m);
  run.gather_parameters_ahead();
  for (const PipelineAction& a : pipeline_actions(s.pipeline, ctx.coords[kPp], s.parallel.pp, m, chunks)) {
    if (a.forward) {
      run.forward(a);
    } else {
      run.backward(a);
    }
  }
  run.finish_step();
}

}  // namespace

// The ranks at `coords`' pipeline stage and cp position in the other tensor-, expert- and
// data-parallel replicas, in one order for every rank.
std::vector<uint32_t> replica_copies(const RankLayout& layout, std::array<uint32_t, kDims> coords) {
  std::vector<uint32_t> out;
  for (uint32_t t = 0; t < layout.extent[kTp]; ++t) {
    for (uint32_t e = 0; e < layout.extent[kEp]; ++e) {
      for (uint32_t d = 0; d < layout.extent[kEdp]; ++d) {
        if (t == 0 && e == 0 && d == 0) continue;
        coords[kTp] = t;
        coords[kEp] = e;
        coords[kEdp] = d;
        out.push_back(layout.rank_of(coords));
      }
    }
  }
  return out;
}

Workload generate_training(const TrainingSpec& spec, const catalogue::GpuSpec& gpu, const ComputeProfile& profile,
                           RankSample sample) {
  check(spec, spec.parallel.world(), gpu);
  Workload w;
  w.name = spec.model.name;
  const RankLayout layout = make_layout(spec.parallel, spec.order);
  const PlanCommunicators comms = add_communicators(layout, w, spec.model.tied_embeddings && spec.parallel.pp > 1);
  const uint32_t world = spec.parallel.world();
  w.programs.resize(world);
  w.gpu_of_rank.resize(world);
  // Activations travel in bf16 under fp8 training too (Transformer Engine casts only GEMM inputs).
  const uint32_t e = spec.precision == Precision::fp8 ? 2 : element_bytes(spec.precision);
  const Efficiencies efficiency = profile.resolve(gpu.name);
  w.sampled = sample == RankSample::one_replica;
  if (w.sampled) w.copies.resize(world);
  for (uint32_t r = 0; r < world; ++r) {
    w.gpu_of_rank[r] = r;
    const auto coords = layout.coords_of(r);
    if (w.sampled && (coords[kTp] != 0 || coords[kEp] != 0 || coords[kEdp] != 0)) continue;
    if (w.sampled) w.copies[r] = replica_copies(layout, coords);
    LayerShape shape{.micro_batch = spec.micro_batch,
                     .seq = sequence(spec),
                     .tp = spec.parallel.tp,
                     .cp = spec.parallel.cp,
                     .causal_skip = spec.causal_skip,
                     .sequence_parallel = spec.sequence_parallel,
                     .element_bytes = e,
                     .flash_attention = spec.flash_attention,
                     .fp8_gemm_inputs = spec.precision == Precision::fp8,
                     .linear_biases = spec.linear_biases};
    RankContext ctx{spec, gpu, efficiency, layout, comms, w, r, w.programs[r], coords, shape, e};
    emit_rank(ctx);
  }
  w.modelled_compute = true;
  w.model_flops = training_step_flops(spec.model, spec.global_batch, sequence(spec), false, false);
  return w;
}

}  // namespace weft
