// Memory one GPU needs for a training plan (issue 18): weights, gradients and optimizer states by
// precision and ZeRO stage, activations per micro-batch and layer by recomputation, tensor, sequence
// and context parallelism, the micro-batches each pipeline schedule keeps in flight, and the fixed
// costs. The worst pipeline stage decides: the first (embedding, most micro-batches in flight) or
// the last (output layer, logits). Sources beside each figure in memory_model.cpp.
#pragma once

#include <string>

#include "topologies/catalogue/gpus.h"
#include "workloads/training.h"

namespace weft {

struct MemoryBreakdown {  // bytes on the busiest GPU
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double fixed = 0;  // CUDA context, NCCL buffers, allocator reserve
  double capacity = 0;
  int stage = 0;  // the pipeline stage it is on
  double total() const { return weights + gradients + optimizer + activations + fixed; }
  bool fits() const { return total() <= capacity; }
};

// The fixed costs every GPU pays, training or serving: the CUDA context with PyTorch's kernels, and
// NCCL's buffers of one rank (a ring's connection per channel in each communicator of more than one
// rank: tensor, context, expert, data and pipeline parallelism). Bytes; sources in memory_model.cpp.
double cuda_context_bytes();
double nccl_buffer_bytes(const ParallelSizes& p);

MemoryBreakdown training_memory(const TrainingSpec& spec, const catalogue::GpuSpec& gpu);

// "71.3 GiB (weights 10.2, gradients 20.4, optimizer 30.6, activations 8.1, fixed 2.0) of 80.0 GiB"
std::string describe(const MemoryBreakdown& m);

// Up to three changes of the plan, each alone enough to fit (ZeRO stage, recomputation, micro-batch,
// tensor or pipeline parallelism taken from data parallelism), smallest first; when no single change
// fits, up to three pairs of them ("zero: 3 with recompute: true"); empty when no pair fits either.
std::vector<std::string> changes_that_fit(const TrainingSpec& spec, const catalogue::GpuSpec& gpu);

}  // namespace weft
