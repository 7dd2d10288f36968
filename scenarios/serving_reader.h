// The `workload: {serving: {...}}` form: LLM inference on the scenario's system (issue 20). A model
// (catalogue name or map), its weight and KV formats, one replica's tensor parallelism and the
// replicas, a request stream (generated from named distributions with the scenario's seed, or a CSV
// trace), vLLM's scheduler knobs, latency objectives and the host's overheads, read through the one
// YAML door; the requests are drawn and the KV cache sized here, so a model that does not fit or a
// request longer than the model's context is an error at `serving:` before anything runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "workloads/compute_model.h"
#include "workloads/serving/iteration_cost.h"
#include "workloads/serving/kv_cache.h"
#include "workloads/serving/requests.h"
#include "workloads/serving/serving_spec.h"

namespace weft {

class YamlMap;
struct SystemSpec;

struct ServingWorkload {
  ServingSpec spec;
  RequestStreamSpec stream;       // requests: when generated
  std::string trace_file;         // requests: {trace: FILE}, resolved beside the scenario; "" when generated
  std::vector<Request> requests;  // what the run serves, sorted by arrival
  ComputeProfile profile;
  std::string profile_file;
  HostOverheads host = default_host_overheads();  // of `software:`, with `host:` on top
  std::string gpu;                                // catalogue GPU of the system
  KvCapacity kv;                                  // per GPU of a replica
  SourceLocation where;                           // of `serving:`
};

ServingWorkload read_serving(const YamlMap& serving, const SystemSpec& system, uint64_t seed);

}  // namespace weft
