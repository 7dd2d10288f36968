// Serving runs for the workload tests: a seeded Poisson request stream, and run_serving on the flow
// fabric with the default compute profile and host overheads.
#pragma once

#include <vector>

#include "sim/simulation.h"
#include "topologies/clusters.h"
#include "workloads/serving/serving.h"

namespace weft::test {

inline ServingOutcome serve(const Topology& topology, const ClusterSpec& cluster, const ServingSpec& spec,
                            const std::vector<Request>& requests) {
  static const ComputeProfile kProfile = default_compute_profile();
  const ServingInputs in{
      spec, requests, topology, cluster, SimulationSetup{"flow", 1, {}}, kProfile, default_host_overheads()};
  return run_serving(in);
}

inline std::vector<Request> poisson_requests(double rate, uint32_t count, LengthSpec prompt, LengthSpec output,
                                             uint64_t seed) {
  RequestStreamSpec stream;
  stream.arrivals = {ArrivalKind::poisson, rate, 1};
  stream.count = count;
  stream.prompt = prompt;
  stream.output = output;
  return generate_requests(stream, seed);
}

inline uint64_t output_tokens(const std::vector<Request>& requests) {
  uint64_t n = 0;
  for (const Request& r : requests) n += r.output;
  return n;
}

}  // namespace weft::test
