// A serving workload run end to end: the spec checked, the KV capacity from the memory model, each
// replica's tensor-parallel collectives timed on the fabric, the requests through the replicas'
// schedulers on the Engine, and the metrics.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "sim/simulation.h"
#include "topologies/clusters.h"
#include "workloads/collective_timer.h"
#include "workloads/serving/kv_cache.h"
#include "workloads/serving/serving_metrics.h"

namespace weft {

struct ServingOutcome {
  std::vector<KvCapacity> pool_kv;  // by pool: the one, or prefill then decode
  // Per GPU of a replica (disaggregated: of the decode pool).
  const KvCapacity& kv() const { return pool_kv.back(); }
  ServingRun run;
  ServingMetrics metrics;
  uint64_t collective_sizes = 0;  // distinct (op, size) timed, over the replicas
  uint64_t isolated_runs = 0;     // of those, simulated (the others shared a symmetric replica's run)
  double wall_seconds = 0;        // this process's time for the run
};

struct ServingInputs {
  const ServingSpec& spec;
  const std::vector<Request>& requests;  // sorted by arrival
  const Topology& topology;
  const ClusterSpec& cluster;
  SimulationSetup setup;
  const ComputeProfile& profile;
  HostOverheads host;
};

// The longest request's context (prompt + output tokens); ConfigError naming the first request longer
// than the model's max_seq.
uint64_t longest_request(const ServingSpec& spec, const std::vector<Request>& requests);

// Throws ConfigError: a spec `check` refuses, a model that leaves no KV cache or too little for the
// longest request (require_room), a request longer than the model's context (its index), a fabric
// that cannot run isolated collectives (SimGrid) with tp > 1.
ServingOutcome run_serving(const ServingInputs& in, const std::function<bool(Time)>& poll = {});

}  // namespace weft
