// What a serving workload is: a model in a weight and KV-cache format, one replica's parallelism, how
// many replicas, a vLLM-style scheduler's limits, a request stream and the latency objectives.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "workloads/compute_model.h"
#include "workloads/model.h"
#include "workloads/serving/requests.h"

namespace weft {

// Stored weight format. int8 and int4 are weight-only quantisation (AWQ, GPTQ, W8A16): the kernels
// read the narrow weights and multiply in 16 bits, so they save bytes, not FLOPs. fp8 (W8A8) also
// runs its GEMMs at the fp8 tensor-core rate.
enum class WeightFormat : uint8_t { bf16, fp16, fp8, int8, int4 };
std::string_view to_string(WeightFormat f);
WeightFormat parse_weight_format(std::string_view text);  // ConfigError listing the five
double bytes_per_weight(WeightFormat f);                  // 2, 2, 1, 1, 0.5
Precision gemm_precision(WeightFormat f);                 // fp8 for fp8, else bf16

// vLLM's scheduler knobs, with its defaults (facts and commits in bench/serving/SOURCES.md, section a).
struct SchedulerLimits {
  // Tokens one iteration computes, prefill chunks and decodes together: V1's API-server default on
  // H100/H200 (vllm/engine/arg_utils.py, _override_v1_engine_args; 2048 on other GPUs, 16384 offline).
  uint32_t max_batched_tokens = 8192;
  // Sequences running at once: V0's default, and later V1's on A100 and GPUs under 70 GiB (V1 takes
  // 1024 on the larger ones: set it).
  uint32_t max_seqs = 256;
  bool chunked_prefill = true;          // V1 always chunks prompts
  uint32_t block_tokens = 16;           // KV-cache block (page) size on CUDA (vllm/platforms/cuda.py)
  double gpu_memory_utilization = 0.9;  // of each GPU's memory the engine may take (arg_utils.py)
  bool cuda_graphs = true;              // decode-only batches replay captured graphs
  // Automatic prefix caching, on by default in V1 (vllm/config: enable_prefix_caching): full blocks of a
  // shared prefix stay cached and a request starting with them skips their prefill.
  bool prefix_caching = true;
  uint32_t max_graph_batch = 512;  // the largest captured batch (V1: min(2 max_seqs, 512)); bigger run eagerly
};

// Latency objectives; a zero is no objective. A request meets them when all hold (vLLM
// benchmark_serving's --goodput).
struct ServingSlo {
  Time ttft;  // time to first token
  Time tpot;  // time per output token after the first
  Time e2e;   // arrival to last token
};

// Disaggregated serving (DistServe, Splitwise, vLLM's P/D connectors, Dynamo): prompts run on a
// prefill pool, which samples the first token; each sequence's KV cache then crosses the fabric to a
// decode pool that generates the rest. `after_prefill`: the decode replica reserves blocks and pulls
// the whole cache once the prompt is done (vLLM's NixlConnector); `layerwise`: the prefill pushes each
// layer's KV as it is computed, into a receive buffer on the decode GPUs (vLLM's P2pNcclConnector,
// Mooncake), so most of the transfer hides behind the prefill.
enum class KvTransferMode : uint8_t { after_prefill, layerwise };
std::string_view to_string(KvTransferMode m);
KvTransferMode parse_kv_transfer(std::string_view text);  // ConfigError listing both

struct Disaggregation {
  uint32_t prefill_tp = 0;  // 0: not disaggregated (one pool of `tp` x `replicas`)
  uint32_t prefill_replicas = 1;
  uint32_t decode_tp = 1;
  uint32_t decode_replicas = 1;
  uint32_t prefill_ep = 1;  // expert-parallel GPUs per replica of each pool (ServingSpec::ep)
  uint32_t decode_ep = 1;
  // Pipeline stages per replica of each pool (ServingSpec::pp): the KV of a layer goes from the prefill
  // stage that computed it to the decode stage that holds it. A pipelined prefill pool hands its caches
  // off after the prefill (kv_transfer: after_prefill).
  uint32_t prefill_pp = 1;
  uint32_t decode_pp = 1;
  KvTransferMode transfer = KvTransferMode::layerwise;
  bool enabled() const { return prefill_tp > 0; }
};

struct ServingSpec {
  ModelConfig model;
  WeightFormat weights = WeightFormat::bf16;
  Precision kv = Precision::bf16;  // KV-cache elements: bf16, fp16 or fp8
  uint32_t tp = 1;                 // tensor-parallel GPUs per replica (per pipeline stage)
  // Pipeline stages per replica (vLLM's pipeline_parallel_size): each stage holds a run of layers on
  // its own tp GPUs, the activations cross the fabric between stages, and up to pp batches are in
  // flight at once (V1's batch queue: the host schedules the next while the earlier ones run). The replica has tp x pp
  // GPUs, stage-major (rank = stage x tp + tp rank, as vLLM lays them out).
  uint32_t pp = 1;
  // Expert-parallel GPUs per replica, for a mixture of experts (DP attention + EP: vLLM's
  // --data-parallel-size ep --enable-expert-parallel with tp 1, SGLang's --enable-dp-attention). Each of
  // the ep GPUs is an attention engine of its own (scheduler, KV cache, whole attention weights) and
  // holds experts / ep whole experts; every MoE layer dispatches each token to the GPUs of its top-k
  // experts and combines their outputs (DeepEP's kernels, collectives/ep_exchange.h), so the ep engines
  // step in lockstep, an idle one running a dummy batch (vLLM's execute_dummy_batch). 1: no expert
  // parallelism (experts split tp ways with the rest).
  uint32_t ep = 1;
  uint32_t replicas = 1;  // data-parallel copies, each with its own scheduler and KV cache (ep of them)
  SchedulerLimits limits;
  ServingSlo slo;
  // The client's limit on requests in flight (vLLM benchmark_serving's --max-concurrency): a request
  // that arrives while this many are unfinished waits at the client, and its latencies count from
  // when it is sent. 0: no limit (open loop).
  uint32_t max_concurrency = 0;
  Disaggregation disaggregated;
};

// The pools a spec serves with: itself (one pool of mixed replicas), or its prefill pool then its
// decode pool (each with its own tp and replicas, not disaggregated).
std::vector<ServingSpec> pool_specs(const ServingSpec& spec);
uint64_t serving_gpus(const ServingSpec& spec);  // over the pools

// The layers of each of `pp` stages, as vLLM splits them (vllm/distributed/utils.py, get_pp_indices):
// layers / pp each, the remainder one more each on the stages just before the last (which also holds
// the output layer).
std::vector<uint32_t> stage_layers(uint32_t layers, uint32_t pp);

// Throws ConfigError: heads or KV heads not divisible by a pool's tp (nor tp by KV heads), a pool's pp
// of zero or above the layers, parallel.pp with disaggregated pools, a pipelined prefill pool pushing
// layerwise, a pool's ep of zero, above 1 for a dense model, not
// dividing the experts, or with tp or pp, the pools' GPUs above the system's, a KV format other than
// bf16/fp16/fp8, the GPU lacking fp8 for fp8 weights, limits of zero, a utilisation outside (0, 1].
void check(const ServingSpec& spec, uint32_t gpus, const catalogue::GpuSpec& gpu);

}  // namespace weft
