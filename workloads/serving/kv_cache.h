// How much KV cache a serving replica has: each GPU's memory, as much of it as the engine may take
// (vLLM's gpu_memory_utilization), less the weights, the activations of the largest batch, the CUDA
// context and NCCL's buffers (the memory model's fixed costs), split into blocks of block_tokens
// tokens (vLLM's paged attention). A GPU that cannot hold the model, or holds no block, says so.
#pragma once

#include <cstdint>
#include <string>

#include "topologies/catalogue/gpus.h"
#include "workloads/serving/serving_spec.h"

namespace weft {

struct KvCapacity {   // per GPU of a replica, bytes
  double usable = 0;  // memory x gpu_memory_utilization
  double weights = 0;
  double activations = 0;      // the peak of one forward pass of max_batched_tokens tokens
  double fixed = 0;            // CUDA context + NCCL buffers
  double kv = 0;               // what is left for the cache (may be negative)
  double bytes_per_token = 0;  // K and V of one token over the GPU's layers and KV heads
  uint64_t blocks = 0;         // of the replica (each block spans the replica's GPUs)
  uint32_t block_tokens = 16;
  // Pipelined replicas: the stage whose GPUs hold the fewest blocks (vLLM takes the smallest count
  // over its workers), of how many; the other fields are that stage's.
  uint32_t stage = 0;
  uint32_t stages = 1;
  uint64_t tokens() const { return blocks * block_tokens; }
};

// KV bytes per token on one GPU: 2 (K and V) x layers x KV heads held x head_dim x element bytes.
// Each GPU holds kv_heads / tp heads, or one (replicated) when tp exceeds kv_heads (vLLM).
double kv_bytes_per_token(const ModelConfig& m, Precision kv, uint32_t tp);
// Weight bytes on one GPU: every matrix split tp ways (the embedding and output layer by vocabulary);
// under expert parallelism each GPU holds experts / ep whole experts instead of a tp share of all.
double weight_bytes_per_gpu(const ModelConfig& m, WeightFormat f, uint32_t tp, uint32_t ep = 1);
// The same on a GPU of pipeline stage `stage` of `pp` (stage_layers): its layers, the embedding on the
// first stage, the output layer on the last (a copy of the embedding there when they are tied, as
// vLLM's ParallelLMHead loads it).
double stage_weight_bytes_per_gpu(const ModelConfig& m, WeightFormat f, uint32_t tp, uint32_t stage, uint32_t pp);

// Per GPU of the stage holding the fewest blocks (the only stage without pipeline parallelism).
KvCapacity kv_capacity(const ServingSpec& spec, const catalogue::GpuSpec& gpu);

// "KV cache 52.1 GiB = 331,000 tokens (weights 15.0, activations 1.2, fixed 1.4 of 72.0 GiB usable)"
std::string describe(const KvCapacity& c);

// Throws ConfigError when no block fits, or when fewer tokens fit than one request of
// `longest_request` tokens needs, with the need, the capacity and what would help.
void require_room(const KvCapacity& c, const ServingSpec& spec, const catalogue::GpuSpec& gpu,
                  uint64_t longest_request);

}  // namespace weft
