// What one iteration (one forward pass of the batch the scheduler formed) of a serving replica costs on
// one of its GPUs (every tensor-parallel GPU does the same work). Per layer: the linear layers as one
// roofline op over the tokens (compute-bound GEMMs for a long prefill, a read of the layer's weights for
// a small decode batch), attention over the prompt chunks (causal FLOPs) and over the decodes' KV caches
// (their bytes), the elementwise ops and KV-cache writes, and the two tensor-parallel all-reduces of the
// layer's output, timed by the collective model on the fabric (not a constant). Then the logits of the
// sequences that sample and their gather. The host launches the kernels one by one (eager) or replays a
// captured CUDA graph; the GPU waits for whichever is slower, and each iteration adds the engine's
// scheduling and sampling time. Formulas: ../shared/reference/workloads.md §3.1 and serving_spec.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

#include "collectives/collective_op.h"
#include "collectives/ep_exchange.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/compute_model.h"
#include "workloads/serving/serving_spec.h"

namespace weft {

// The work of one iteration, summed over its sequences.
struct BatchShape {
  uint32_t prefill_tokens = 0;   // prompt (or recomputed) tokens computed this iteration
  double prefill_pairs = 0;      // causal query-key pairs of those chunks: sum of c (p + (c + 1) / 2)
  uint64_t prefill_context = 0;  // sum of p: cached tokens the chunks attend to (earlier chunks)
  uint32_t decode_seqs = 0;      // sequences generating one token from their cache
  uint64_t decode_context = 0;   // sum of the tokens each decode attends to (its cache and itself)
  uint32_t sampled = 0;          // sequences whose next token is sampled (logits computed)
  uint32_t seqs = 0;             // sequences in the batch
  uint32_t tokens() const { return prefill_tokens + decode_seqs; }
};

// Host-side costs (sources in iteration_cost.cpp). Each iteration the engine schedules, prepares the
// inputs and samples (and, before vLLM 0.6, processes the outputs) while the GPU waits:
// per_iteration + per_sequence x the batch's sequences.
struct HostOverheads {
  Time per_iteration;
  Time per_sequence;
  Time kernel_launch;  // one eager kernel launch
  Time graph_launch;   // one CUDA-graph replay
};
// y2025: vLLM 0.6 and later, whose output processing overlaps the next iteration; y2023: before.
HostOverheads default_host_overheads(SoftwareStack software = SoftwareStack::y2025);

struct IterationCost {
  Time gpu;            // kernels and collectives back to back on one stream
  Time communication;  // the collectives' part of gpu
  Time launch;         // the host's launches (overlapping the GPU's work)
  Time host;           // per-iteration host work (not overlapped)
  bool graph = false;  // replayed a CUDA graph
  Time total() const { return std::max(gpu, launch) + host; }
};

// The part of the model one pipeline stage runs (stage_layers): its layers; the first stage's host
// schedules the batch, a later stage first gathers the activations it received (each tp rank receives
// a slice: vLLM's send_tensor_dict with all_gather_group), the last one computes the logits.
struct StageSpan {
  uint32_t layers = 0;  // 0: every layer of the model (one stage)
  bool first = true;
  bool last = true;
};

// One iteration of an expert-parallel replica's engines (ServingSpec::ep), which step together: every
// MoE layer sends each engine's tokens to the GPUs of their experts and back.
struct ExpertGroupLoad {
  uint32_t tokens = 0;                  // over the engines (an idle engine's dummy batch counts one)
  uint32_t max_tokens = 0;              // the most one engine computes
  bool decode_only = true;              // no engine computes a prompt: CUDA graphs, DeepEP's low-latency kernels
  void add(const BatchShape& engine) {  // one engine's batch (empty: its dummy batch)
    tokens += std::max(1U, engine.tokens());
    max_tokens = std::max(max_tokens, engine.tokens());
    decode_only = decode_only && engine.prefill_tokens == 0;
  }
};

// Activation bytes one stage sends the next per token: the hidden states and the residual stream
// (vLLM's IntermediateTensors of a Llama layer), 2 bytes each.
double stage_activation_bytes_per_token(const ModelConfig& m);

// FLOPs one GPU of a replica computes for `batch` (2 per multiply-accumulate): the layers' linear
// layers over the tokens, attention over the prefill pairs and the decodes' contexts, the logits of the
// sampled sequences (what IterationModel times, before padding for a CUDA graph); of one stage's layers
// when a span is given.
double iteration_flops(const ServingSpec& spec, const BatchShape& batch, StageSpan span = {});

class IterationModel {
 public:
  // Time of `op` over a buffer of `bytes` (as nccl-tests counts it) on one replica's GPUs.
  using CollectiveTime = std::function<Time(CollectiveOp op, Bytes bytes)>;
  // Time of one DeepEP dispatch or combine of `tokens` per GPU over the replica's ep GPUs.
  using ExchangeTime = std::function<Time(EpKernel kernel, EpPhase phase, uint32_t tokens)>;
  IterationModel(const ServingSpec& spec, const catalogue::GpuSpec& gpu, const Efficiencies& eff, HostOverheads host,
                 CollectiveTime collective, StageSpan span = {}, ExchangeTime exchange = {});

  // Under expert parallelism (spec.ep > 1) `group` is the engines' iteration this batch is part of
  // (required there); `batch` may then be empty: the engine's dummy batch.
  IterationCost cost(const BatchShape& batch, const ExpertGroupLoad* group = nullptr) const;
  double flops(const BatchShape& batch) const { return iteration_flops(spec_, batch, span_); }
  // The prompts' part of an iteration: its prefill alone over its prefill and its decodes alone (1 for a
  // prefill-only batch, 0 for decodes only), to split the cost between input and output tokens. Under
  // expert parallelism each part is priced as if every engine ran one like it.
  float prefill_share(const BatchShape& batch) const;
  // Tokens a CUDA graph of this batch runs: vLLM pads a decode batch to the next captured size
  // (1, 2, 4, then multiples of 8); 0 when the batch runs eagerly.
  // Under expert parallelism every engine of the group pads to the largest batch (vLLM's DP padding).
  uint32_t graph_tokens(const BatchShape& batch, const ExpertGroupLoad* group = nullptr) const;

 private:
  Time layer_compute(uint32_t tokens) const;
  Time expert_parallel_layer(uint32_t tokens, uint32_t group_tokens) const;
  Time exchange(const ExpertGroupLoad& group, uint32_t tokens) const;
  Time attention(const BatchShape& batch) const;
  Time collective(CollectiveOp op, double bytes) const;

  const ServingSpec& spec_;
  const catalogue::GpuSpec& gpu_;
  Efficiencies eff_;
  HostOverheads host_;
  CollectiveTime collective_;
  StageSpan span_;
  ExchangeTime exchange_;
  double kv_heads_per_gpu_ = 1;
};

}  // namespace weft
