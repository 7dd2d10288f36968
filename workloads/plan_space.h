// The parallel plans of a training step on a cluster (issue 18, item 3): every way to split the
// GPUs into tensor, pipeline, context, expert and data parallelism, with ZeRO stage, recomputation,
// micro-batch, virtual stages and sequence parallelism, less those that cannot run (check()) or do
// not fit in memory (training_memory). Tensor parallelism stays inside an NVLink domain, where
// Megatron and NeMo put it (its all-reduces are on the critical path of every layer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topologies/catalogue/gpus.h"
#include "workloads/memory_model.h"
#include "workloads/training.h"

namespace weft {

struct PlanSpaceLimits {
  uint32_t gpus = 0;           // the cluster's GPUs: every plan uses all of them
  uint32_t nvlink_domain = 1;  // GPUs per NVLink domain: the most tensor parallelism
  bool vary_sharding = true;   // ZeRO 0..3 (else the base plan's)
  bool vary_recompute = true;  // full recomputation on and off (else the base plan's)
  // Context parallelism only while each rank keeps at least this many tokens of a sequence: NVIDIA's
  // published recipes split no finer (Llama 3.1 70B in NeMo 24.09, github.com/NVIDIA/dgxc-benchmarking
  // llama3.1/README_70b.md: 8,192 tokens over cp 2; NeMo's long-sequence performance table uses cp
  // from 32K-token sequences up), and below it every GPU adds a ring exchange per layer for a
  // sliver of attention. 0: every cp.
  uint32_t min_cp_tokens = 4096;
};

struct PlanSpace {
  std::vector<TrainingSpec> plans;  // runnable and fitting, in enumeration order
  uint32_t considered = 0;          // combinations tried
  uint32_t impossible = 0;          // refused by check() (divisibility, precision)
  uint32_t too_big = 0;             // runnable but over the GPU's memory
  // Of those over memory, the one that needs least, for "no feasible plan" messages.
  std::optional<TrainingSpec> closest;
  std::optional<MemoryBreakdown> closest_memory;
};

// Every plan for `base`'s model, batch, sequence and precision (its pipeline schedule too), and `base`'s
// own plan, last, when the grid does not hold it.
PlanSpace parallel_plans(const TrainingSpec& base, const catalogue::GpuSpec& gpu, const PlanSpaceLimits& limits);

// "tp 4 pp 2 dp 8 cp 1 ep 1 zero 1 recompute off mb 2 vs 1 sp on": a plan's name in tables.
std::string plan_name(const TrainingSpec& spec);

}  // namespace weft
