// `weft plan --search parallel` for a serving workload: every way to lay the model out over all of a
// system's GPUs that holds it (the weights and the longest request's KV cache, kv_capacity), as vLLM
// and its peers deploy: colocated replicas of tp x pp GPUs, or of ep GPUs (DP attention + EP) for a
// mixture of experts; and disaggregated, a quarter, a half or three quarters of the GPUs computing
// prompts and the rest generating, each pool of tp or ep GPUs per replica (AIConfigurator and
// Dynamo's planner search the same space). Sizes are powers of two, as deployments are.
#pragma once

#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/serving/serving_spec.h"

namespace weft {

struct ServingLayout {
  std::string name;  // "tp 4 x 2", "tp 8 x pp 2 x 1", "ep 8 x 2", "P tp 4 x 1 + D ep 8 x 1"
  ServingSpec spec;  // the workload's spec, laid out so
};

// Layouts of `spec`'s model over `gpus` GPUs, `per_node` to a node, that pass check() and leave room
// for `longest_request` tokens in every pool; colocated ones first.
std::vector<ServingLayout> serving_layouts(const ServingSpec& spec, uint32_t gpus, uint32_t per_node,
                                           const catalogue::GpuSpec& gpu, uint64_t longest_request);

// `s` (a serving scenario) with its workload laid out as `layout`, without its compare: variants.
Scenario with_layout(const Scenario& s, const ServingLayout& layout);

}  // namespace weft
