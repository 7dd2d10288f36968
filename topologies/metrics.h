// What `weft topo` reports about a Topology: counts by kind, per-GPU injection bandwidth (scale-up
// and scale-out), bisection bandwidth, diameter and path diversity.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "topologies/routing.h"
#include "topologies/topology.h"

namespace weft {

std::string_view to_string(NodeKind kind);
std::string_view to_string(LinkKind kind);

struct TopologySummary {
  std::map<std::string, uint64_t> nodes;   // by kind (network switches by tier: leaf, spine, core)
  std::map<std::string, uint64_t> cables;  // duplex cables by link kind
  uint64_t gpus = 0;
  Bandwidth scale_up_per_gpu;   // GPU 0's NVLink goodput out, one direction
  Bandwidth scale_out_per_gpu;  // GPU 0's share of its NICs' network ports, one direction
  Bandwidth bisection;          // max flow from the first half of the GPU ranks to the second half
  uint32_t diameter = 0;        // most links on a routed GPU-to-GPU path (from GPU 0 and the last GPU)
  uint64_t path_diversity = 0;  // equal-cost paths from GPU 0 to the first GPU of the last host
  NodeIndex diversity_src = 0;
  NodeIndex diversity_dst = 0;
};

TopologySummary summarize(const Topology& topology, Router& router);

// Max flow (bit/s, one direction) from GPU ranks [0, n/2) to [n/2, n) over link goodputs.
Bandwidth bisection_bandwidth(const Topology& topology);

}  // namespace weft
