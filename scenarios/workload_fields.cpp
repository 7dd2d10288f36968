#include "scenarios/workload_fields.h"

#include <array>
#include <limits>
#include <string_view>

#include "collectives/collective_op.h"
#include "sim/packet/packet_config.h"
#include "workloads/collective_timer.h"
#include "workloads/compute_model.h"
#include "workloads/pipeline_schedule.h"

namespace weft {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr Range up_to(double most) { return {0, most}; }
constexpr double kMaxCount = 1u << 20;  // layers, widths, parallel sizes: far above any real model
constexpr double kMaxTokens = 1u << 24;

CollectiveOp to_op(std::string_view /*key*/, std::string_view text) { return parse_collective_op(text); }
std::string_view op_name(CollectiveOp op) { return to_string(op); }
std::string_view kind_name(TrafficKind kind) { return to_string(kind); }
std::string_view schedule_name(PipelineKind kind) { return to_string(kind); }
std::string_view timing_name(CollectiveTiming timing) { return to_string(timing); }
TrafficKind to_kind(std::string_view key, std::string_view text) {
  if (text == "incast") return TrafficKind::incast;
  if (text == "permutation") return TrafficKind::permutation;
  if (text == "all_to_all") return TrafficKind::all_to_all;
  if (text == "flows") return TrafficKind::flows;
  throw ConfigError(SourceLocation{}, std::string(key),
                    fmt::format("unknown pattern '{}' (expected incast, permutation, all_to_all or flows)", text));
}
PipelineKind to_schedule(std::string_view /*key*/, std::string_view text) { return parse_pipeline_kind(text); }
Precision to_precision(std::string_view /*key*/, std::string_view text) { return parse_precision(text); }
CollectiveTiming to_timing(std::string_view /*key*/, std::string_view text) { return parse_collective_timing(text); }
SoftwareStack to_software(std::string_view /*key*/, std::string_view text) { return parse_software(text); }

using C = CollectiveSpec;
constexpr std::array kCollectiveFields = {
    choice<C, to_op, op_name, &C::op>(
        "op", "all_reduce | all_gather | reduce_scatter | broadcast | reduce | all_to_all | send_recv"),
    field<C, &C::size>("size", "bytes", "the buffer (as nccl-tests counts it)"),
    field<C, &C::ring, &RingOptions::channels>("channels", "", "independent rings", Range{1, 64}),
    field<C, &C::ring, &RingOptions::chunk>("chunk", "bytes", "bytes per ring step (0 = the protocol's default)"),
    field<C, &C::ring, &RingOptions::root>("root", "", "broadcast and reduce: the root rank"),
};

using T = TrafficSpec;
constexpr std::array kTrafficFields = {
    choice<T, to_kind, kind_name, &T::kind>("traffic", "incast | permutation | all_to_all | flows"),
    field<T, &T::bytes>("bytes", "bytes", "per flow (all_to_all: per ordered pair)", Range{1, kInfinity}),
    field<T, &T::start>("start", "time", "when the (first) flows start"),
    field<T, &T::priority>("priority", "", "traffic class", up_to(packet::kPriorities - 1)),
    field<T, &T::stagger>("stagger", "time", "incast: between consecutive senders' starts"),
    field<T, &T::seed>("seed", "", "permutation: the draw's seed (default the scenario's)"),
};

using L = FlowSpec;
constexpr std::array kFlowFields = {
    field<L, &L::src>("src", "", "sending rank"),
    field<L, &L::dst>("dst", "", "receiving rank"),
    field<L, &L::bytes>("bytes", "bytes", "the flow's size", Range{1, kInfinity}),
    field<L, &L::start>("start", "time", "when it starts"),
    field<L, &L::priority>("priority", "", "traffic class", up_to(packet::kPriorities - 1)),
};

// ZeRO stage as `zero: 0..3`; `fsdp: true` is PyTorch FSDP's FULL_SHARD, ZeRO-3's traffic.
Sharding to_sharding(std::string_view key, std::string_view text) {
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '3') return static_cast<Sharding>(text[0] - '0');
  throw ConfigError(SourceLocation{}, std::string(key), fmt::format("expected 0, 1, 2 or 3, got '{}'", text));
}
std::string_view sharding_stage(Sharding s) {
  static constexpr std::array<std::string_view, 4> kStages = {"0", "1", "2", "3"};
  return kStages[static_cast<size_t>(s)];
}

using W = TrainingWorkload;
using S = TrainingSpec;
using M = ModelConfig;
using P = ParallelSizes;

constexpr Field<W> kFsdp = {
    "parallel.fsdp", "", "PyTorch FSDP FULL_SHARD (= zero: 3)",
    [](W& w, std::string_view key, std::string_view text) {
      if (parse_bool(text, key)) w.spec.sharding = Sharding::zero3;
    },
    [](const W& w) { return std::string(w.spec.sharding == Sharding::zero3 ? "true" : "false"); }};

constexpr std::array kTrainingFields = {
    field<W, &W::spec, &S::model, &M::name>("model.label", "", "the model's name in reports"),
    field<W, &W::spec, &S::model, &M::layers>("model.layers", "", "transformer layers", up_to(kMaxCount)),
    field<W, &W::spec, &S::model, &M::hidden>("model.hidden", "", "residual-stream width h", up_to(kMaxCount)),
    field<W, &W::spec, &S::model, &M::heads>("model.heads", "", "query heads", up_to(kMaxCount)),
    field<W, &W::spec, &S::model, &M::kv_heads>("model.kv_heads", "", "key/value heads (default: heads)",
                                                up_to(kMaxCount)),
    field<W, &W::spec, &S::model, &M::head_dim>("model.head_dim", "", "per head (0 = hidden / heads)",
                                                up_to(kMaxCount)),
    field<W, &W::spec, &S::model, &M::ffn>("model.ffn", "", "MLP inner width (per expert)", up_to(kMaxCount)),
    field<W, &W::spec, &S::model, &M::vocab>("model.vocab", "", "vocabulary", up_to(kMaxCount)),
    field<W, &W::spec, &S::model, &M::experts>("model.experts", "", "routed experts per MoE layer (1 = dense)",
                                               up_to(kMaxCount)),
    field<W, &W::spec, &S::model, &M::top_k>("model.top_k", "", "experts each token visits", up_to(kMaxCount)),
    field<W, &W::spec, &S::model, &M::max_seq>("model.max_seq", "tokens", "trained context length", up_to(kMaxTokens)),
    field<W, &W::spec, &S::model, &M::gated_mlp>("model.gated_mlp", "", "SwiGLU (3 matrices), else GELU (2)"),
    field<W, &W::spec, &S::model, &M::tied_embeddings>("model.tied_embeddings", "",
                                                       "output layer reuses the input embedding"),
    field<W, &W::spec, &S::model, &M::learned_positions>("model.learned_positions", "",
                                                         "a learned position table (GPT-2/3), not RoPE"),
    field<W, &W::spec, &S::parallel, &P::tp>("parallel.tp", "", "tensor parallel", up_to(kMaxCount)),
    field<W, &W::spec, &S::parallel, &P::pp>("parallel.pp", "", "pipeline stages", up_to(kMaxCount)),
    field<W, &W::spec, &S::parallel, &P::cp>("parallel.cp", "", "context parallel (ring attention)", up_to(kMaxCount)),
    field<W, &W::spec, &S::parallel, &P::ep>("parallel.ep", "", "expert parallel (divides dp)", up_to(kMaxCount)),
    field<W, &W::spec, &S::parallel, &P::dp>("parallel.dp", "", "data parallel (default: GPUs / (tp pp cp))",
                                             up_to(kMaxCount)),
    choice<W, to_sharding, sharding_stage, &W::spec, &S::sharding>("parallel.zero", "ZeRO stage 0 | 1 | 2 | 3"),
    kFsdp,
    field<W, &W::spec, &S::sequence_parallel>("parallel.sequence_parallel", "",
                                              "TP all-reduces as reduce-scatter + all-gather"),
    choice<W, to_schedule, schedule_name, &W::spec, &S::pipeline>(
        "parallel.schedule", "gpipe | 1f1b | interleaved (default 1f1b; interleaved with virtual_stages > 1)"),
    field<W, &W::spec, &S::virtual_stages>("parallel.virtual_stages", "", "model chunks per stage", up_to(1024)),
    field<W, &W::spec, &S::recompute>("parallel.recompute", "", "full activation recomputation"),
    field<W, &W::spec, &S::order>("parallel.order", "", "rank placement, fastest-varying first"),
    field<W, &W::spec, &S::global_batch>("batch.global", "sequences", "per step", up_to(1u << 30)),
    field<W, &W::spec, &S::micro_batch>("batch.micro", "sequences", "per micro-batch", up_to(kMaxCount)),
    field<W, &W::spec, &S::seq_len>("seq_len", "tokens", "per sequence (default: the model's max_seq)",
                                    up_to(kMaxTokens)),
    choice<W, to_precision, precision_name, &W::spec, &S::precision>("precision", "fp32 | tf32 | bf16 | fp16 | fp8"),
    field<W, &W::spec, &S::bucket>("bucket", "bytes", "DDP gradient bucket"),
    field<W, &W::spec, &S::grad_bytes>("grad_bytes", "bytes", "per gradient element reduced over dp", up_to(8)),
    field<W, &W::spec, &S::capacity_factor>("capacity_factor", "", "MoE: tokens per expert over an even share"),
    field<W, &W::spec, &S::causal_skip>("causal_skip", "", "causal attention at half the score products"),
    field<W, &W::spec, &S::flash_attention>("flash_attention", "", "false: scores through HBM (pre-FlashAttention)"),
    field<W, &W::spec, &S::metric_passes>(
        "metric_passes", "", "cross-entropy passes over the logits per micro-batch for training metrics", up_to(16u)),
    field<W, &W::spec, &S::linear_biases>("linear_biases", "",
                                          "the linear layers carry biases (backward sums their gradients)"),
    choice<W, to_software, software_name, &W::profile, &ComputeProfile::software>(
        "software",
        "2025 | 2023 | 2021: the generation compute efficiencies come from (flash-attention 3/2 or 2/1; fused norms, "
        "PyTorch's eager LayerNorm, or apex's 2020 LayerNorm as Megatron-LM of 2021 ran it)"),
    choice<W, to_timing, timing_name, &W::timing>(
        "collective_timing",
        "shared (on the step's fabric) | isolated (each distinct one alone, reused) | model (NCCL's own estimate, no "
        "simulation; all-to-all isolated)"),
    field<W, &W::token_budget>("tokens", "tokens", "to train on, for time and cost to train (above 0)"),
    field<W, &W::allow_oom>("allow_oom", "", "simulate a plan that does not fit in GPU memory (marked)"),
};

}  // namespace

std::span<const Field<CollectiveSpec>> collective_fields() { return kCollectiveFields; }
std::span<const Field<TrafficSpec>> traffic_fields() { return kTrafficFields; }
std::span<const Field<FlowSpec>> flow_fields() { return kFlowFields; }
std::span<const Field<TrainingWorkload>> training_fields() { return kTrainingFields; }

}  // namespace weft
