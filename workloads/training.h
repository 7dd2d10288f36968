// One training step of a transformer under a parallel plan, generated as explicit per-rank
// Programs (program.h): every layer's compute, every tensor-, context-, expert-, pipeline- and
// data-parallel communication op, with the dependencies and streams that make them overlap as they
// do in Megatron-LM / PyTorch. Formulas and conventions: ../shared/reference/workloads.md §3.
#pragma once

#include <cstdint>
#include <string>

#include "topologies/catalogue/gpus.h"
#include "workloads/compute_model.h"
#include "workloads/model.h"
#include "workloads/pipeline_schedule.h"
#include "workloads/program.h"
#include "workloads/rank_layout.h"

namespace weft {

// How data-parallel ranks share the model state (ZeRO stages, Rajbhandari et al. 2020; FSDP, Zhao
// et al. 2023).
enum class Sharding : uint8_t {
  none,   // DDP: all-reduce of gradient buckets, overlapping backward
  zero1,  // optimizer states sharded: reduce-scatter of gradient buckets, all-gather of parameters
  zero2,  // + gradients sharded (the same traffic as zero1)
  zero3,  // + parameters sharded: all-gather per layer in forward and again in backward,
          //   reduce-scatter of its gradients (1.5x the DDP volume); FSDP FULL_SHARD is the same
};

struct TrainingSpec {
  ModelConfig model;
  ParallelSizes parallel;
  std::string order = "tp-cp-ep-dp-pp";  // rank placement, fastest-varying first
  Sharding sharding = Sharding::none;
  bool sequence_parallel = false;  // TP all-reduces become reduce-scatter + all-gather
  PipelineKind pipeline = PipelineKind::one_f_one_b;
  uint32_t virtual_stages = 1;  // model chunks per stage (interleaved)
  bool recompute = false;       // full activation recomputation (one more forward)
  uint32_t global_batch = 0;    // sequences per step
  uint32_t micro_batch = 1;     // sequences per micro-batch
  uint32_t seq_len = 0;         // tokens per sequence; 0 = the model's max_seq
  Precision precision = Precision::bf16;
  // DDP bucket (PyTorch c10d kDefaultBucketBytesCap = 25 MiB; workloads.md §3.4).
  Bytes bucket{25u << 20};
  // Bytes per gradient element reduced over data parallelism: Megatron keeps fp32 main gradients
  // by default (workloads.md §3.4); PyTorch DDP on a bf16 model reduces 2.
  uint32_t grad_bytes = 4;
  // MoE: tokens each expert takes, relative to an even share (Switch Transformer: 1.0-1.25).
  double capacity_factor = 1.0;
  bool causal_skip = false;     // see LayerShape
  bool flash_attention = true;  // see LayerShape
  bool linear_biases = false;   // see LayerShape
  // Cross-entropy forwards over the logits per micro-batch beyond the loss's own: Composer evaluates
  // its training metrics on every micro-batch's logits after its backward (llm-foundry's MPT:
  // LanguageCrossEntropy and LanguagePerplexity, 2), under autocast, so in fp32.
  uint32_t metric_passes = 0;
};

// Bytes per logit of the metric passes: each reads the e-byte logits, writes and reads their fp32
// copy and writes the fp32 log-probabilities (PyTorch's autocast op reference lists cross_entropy
// among the CUDA ops that autocast to float32).
inline double metric_logit_bytes(const TrainingSpec& s, uint32_t e) { return s.metric_passes * (e + 12.0); }
// Bytes per logit of the output layer's backward op: the softmax's gradient (read 4, write e), then
// the metric passes.
inline double logits_backward_bytes(const TrainingSpec& s, uint32_t e) { return 4.0 + e + metric_logit_bytes(s, e); }

// Micro-batches per step on each data-parallel rank: global / (micro x dp).
uint32_t micro_batches(const TrainingSpec& spec);

// Throws ConfigError for a plan that cannot run: dp·tp·pp·cp not equal to the GPUs, heads or FFN not
// divisible by tp, KV heads not divisible by tp (nor tp by them), layers not divisible into
// stages x chunks, batch not divisible by micro-batch x dp, sequence not divisible by 2·cp (Megatron's
// load-balanced causal split) or by tp with sequence parallelism, experts not divisible by ep, ep on
// a dense model, a precision the GPU lacks.
void check(const TrainingSpec& spec, uint32_t gpus, const catalogue::GpuSpec& gpu);

// Which ranks get a Program. `one_replica` keeps one rank per pipeline stage and context-parallel
// position (tensor-, expert- and data-parallel coordinates 0): the others run the same program on
// other GPUs, so with collectives timed in isolation the step is theirs too. Workload::sampled
// marks it; the plan search ranks candidates this way (tp x ep x dp times less work).
enum class RankSample : uint8_t { every_rank, one_replica };

// The step as one Program per rank (global rank r on GPU r), with its communicators and useful FLOPs.
Workload generate_training(const TrainingSpec& spec, const catalogue::GpuSpec& gpu, const ComputeProfile& profile,
                           RankSample sample = RankSample::every_rank);

}  // namespace weft
