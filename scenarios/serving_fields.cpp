#include "scenarios/serving_fields.h"

#include <array>

namespace weft {
namespace {

constexpr double kMaxCount = 1u << 20;
constexpr double kMaxTokens = 1u << 24;
constexpr Range up_to(double most) { return {0, most}; }

WeightFormat to_weights(std::string_view /*key*/, std::string_view text) { return parse_weight_format(text); }
std::string_view weights_name(WeightFormat f) { return to_string(f); }
Precision to_precision(std::string_view /*key*/, std::string_view text) { return parse_precision(text); }
ArrivalKind to_arrivals(std::string_view /*key*/, std::string_view text) { return parse_arrival_kind(text); }
std::string_view arrivals_name(ArrivalKind k) { return to_string(k); }
LengthKind to_length(std::string_view /*key*/, std::string_view text) { return parse_length_kind(text); }
std::string_view length_name(LengthKind k) { return to_string(k); }
KvTransferMode to_transfer(std::string_view /*key*/, std::string_view text) { return parse_kv_transfer(text); }
std::string_view transfer_name(KvTransferMode m) { return to_string(m); }
SoftwareStack to_software(std::string_view /*key*/, std::string_view text) { return parse_software(text); }

using W = ServingWorkload;
using S = ServingSpec;
using L = SchedulerLimits;
using R = RequestStreamSpec;
using A = ArrivalSpec;
using O = ServingSlo;
using H = HostOverheads;
using D = Disaggregation;

constexpr std::array kServingFields = {
    choice<W, to_weights, weights_name, &W::spec, &S::weights>(
        "weights", "bf16 | fp16 | fp8 | int8 | int4 (int8, int4: weight-only, 16-bit GEMMs)"),
    choice<W, to_precision, precision_name, &W::spec, &S::kv>("kv_cache", "bf16 | fp16 | fp8: KV-cache elements"),
    field<W, &W::spec, &S::tp>("parallel.tp", "", "tensor-parallel GPUs per replica (per pipeline stage)",
                               Range{1, kMaxCount}),
    field<W, &W::spec, &S::pp>("parallel.pp", "",
                               "pipeline stages per replica (activations cross the fabric between them; up to pp "
                               "batches in flight)",
                               Range{1, kMaxCount}),
    field<W, &W::spec, &S::ep>("parallel.ep", "",
                               "expert-parallel GPUs per replica, each with its own attention engine (DP "
                               "attention + EP; DeepEP dispatch and combine per MoE layer; tp 1)",
                               Range{1, kMaxCount}),
    field<W, &W::spec, &S::replicas>("parallel.replicas", "", "copies of the model, each with its own scheduler",
                                     Range{1, kMaxCount}),
    field<W, &W::spec, &S::disaggregated, &D::prefill_tp>(
        "disaggregated.prefill_tp", "", "tensor-parallel GPUs per prefill replica", Range{1, kMaxCount}),
    field<W, &W::spec, &S::disaggregated, &D::prefill_replicas>("disaggregated.prefill_replicas", "",
                                                                "prefill replicas", Range{1, kMaxCount}),
    field<W, &W::spec, &S::disaggregated, &D::decode_tp>(
        "disaggregated.decode_tp", "", "tensor-parallel GPUs per decode replica", Range{1, kMaxCount}),
    field<W, &W::spec, &S::disaggregated, &D::decode_replicas>("disaggregated.decode_replicas", "", "decode replicas",
                                                               Range{1, kMaxCount}),
    field<W, &W::spec, &S::disaggregated, &D::prefill_ep>("disaggregated.prefill_ep", "",
                                                          "expert-parallel GPUs per prefill replica (as parallel.ep)",
                                                          Range{1, kMaxCount}),
    field<W, &W::spec, &S::disaggregated, &D::decode_ep>(
        "disaggregated.decode_ep", "", "expert-parallel GPUs per decode replica (as parallel.ep)", Range{1, kMaxCount}),
    field<W, &W::spec, &S::disaggregated, &D::prefill_pp>(
        "disaggregated.prefill_pp", "", "pipeline stages per prefill replica (kv_transfer: after_prefill)",
        Range{1, kMaxCount}),
    field<W, &W::spec, &S::disaggregated, &D::decode_pp>("disaggregated.decode_pp", "",
                                                         "pipeline stages per decode replica", Range{1, kMaxCount}),
    choice<W, to_transfer, transfer_name, &W::spec, &S::disaggregated, &D::transfer>(
        "disaggregated.kv_transfer",
        "layerwise (pushed as each layer is computed) | after_prefill (pulled once the prompt is done)"),
    choice<W, to_arrivals, arrivals_name, &W::stream, &R::arrivals, &A::kind>(
        "requests.arrivals", "poisson | gamma (bursty, cv) | all_at_once (offline)"),
    field<W, &W::stream, &R::arrivals, &A::rate>("requests.rate", "1/s", "requests per second (poisson, gamma)"),
    field<W, &W::stream, &R::arrivals, &A::cv>("requests.cv", "", "gamma: coefficient of variation of the gaps"),
    field<W, &W::stream, &R::count>("requests.count", "", "requests (0: as many as arrive in duration)",
                                    up_to(1u << 30)),
    field<W, &W::stream, &R::duration>("requests.duration", "time", "of arrivals, when count is 0"),
    field<W, &W::stream, &R::prefix_tokens>("requests.prefix_tokens", "tokens",
                                            "a shared prefix (system prompt) before each prompt's own tokens",
                                            up_to(kMaxTokens)),
    field<W, &W::stream, &R::prefixes>(
        "requests.prefixes", "", "distinct shared prefixes, one drawn uniformly per request", Range{1, kMaxCount}),
    field<W, &W::spec, &S::max_concurrency>("requests.max_concurrency", "",
                                            "requests in flight at most; later ones wait at the client (0: none)",
                                            up_to(kMaxCount)),
    field<W, &W::spec, &S::limits, &L::max_batched_tokens>(
        "scheduler.max_batched_tokens", "tokens", "per iteration (vLLM max_num_batched_tokens)", Range{1, kMaxTokens}),
    field<W, &W::spec, &S::limits, &L::max_seqs>("scheduler.max_seqs", "", "running sequences (vLLM max_num_seqs)",
                                                 Range{1, kMaxCount}),
    field<W, &W::spec, &S::limits, &L::chunked_prefill>("scheduler.chunked_prefill", "",
                                                        "split prompts over iterations"),
    field<W, &W::spec, &S::limits, &L::block_tokens>("scheduler.block_tokens", "tokens", "per KV-cache block",
                                                     Range{1, 4096}),
    field<W, &W::spec, &S::limits, &L::gpu_memory_utilization>("scheduler.gpu_memory_utilization", "",
                                                               "of each GPU's memory the engine takes", Range{0, 1}),
    field<W, &W::spec, &S::limits, &L::cuda_graphs>("scheduler.cuda_graphs", "", "decode batches replay CUDA graphs"),
    field<W, &W::spec, &S::limits, &L::prefix_caching>(
        "scheduler.prefix_caching", "", "full blocks of shared prefixes stay cached for the next request (vLLM V1)"),
    field<W, &W::spec, &S::limits, &L::max_graph_batch>("scheduler.max_graph_batch", "", "largest captured batch",
                                                        up_to(kMaxCount)),
    field<W, &W::spec, &S::slo, &O::ttft>("slo.ttft", "time", "time to first token objective (0: none)"),
    field<W, &W::spec, &S::slo, &O::tpot>("slo.tpot", "time", "time per output token objective (0: none)"),
    field<W, &W::spec, &S::slo, &O::e2e>("slo.e2e", "time", "end-to-end latency objective (0: none)"),
    field<W, &W::host, &H::per_iteration>("host.per_iteration", "time",
                                          "scheduling, input preparation, sampling per iteration"),
    field<W, &W::host, &H::per_sequence>("host.per_sequence", "time", "host work per sequence of the batch"),
    field<W, &W::host, &H::kernel_launch>("host.kernel_launch", "time", "one eager kernel launch"),
    field<W, &W::host, &H::graph_launch>("host.graph_launch", "time", "one CUDA-graph replay"),
    choice<W, to_software, software_name, &W::profile, &ComputeProfile::software>(
        "software",
        "2025 | 2023 | 2021: the generation compute efficiencies come from (2023 and 2021 put output processing on "
        "the critical path, as before vLLM 0.6)"),
};

constexpr std::array kLengthFields = {
    choice<LengthSpec, to_length, length_name, &LengthSpec::kind>("distribution",
                                                                  "fixed | uniform | normal | lognormal | exponential"),
    field<LengthSpec, &LengthSpec::mean>("mean", "tokens", "the mean length", Range{1, kMaxTokens}),
    field<LengthSpec, &LengthSpec::spread>(
        "spread", "tokens", "uniform: half-width; normal, lognormal: standard deviation", up_to(kMaxTokens)),
    field<LengthSpec, &LengthSpec::min>("min", "tokens", "every draw at least", Range{1, kMaxTokens}),
    field<LengthSpec, &LengthSpec::max>("max", "tokens", "every draw at most (0: unbounded)", up_to(kMaxTokens)),
};

}  // namespace

std::span<const Field<ServingWorkload>> serving_fields() { return kServingFields; }
std::span<const Field<LengthSpec>> length_fields() { return kLengthFields; }

}  // namespace weft
