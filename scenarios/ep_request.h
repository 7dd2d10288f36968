// `weft ep`'s one request type, shared by the CLI and Python: DeepEP's MoE dispatch and combine
// (collectives/ep_exchange.h) on a catalogue system, each phase simulated on the chosen fabric.
#pragma once

#include <string>
#include <vector>

#include "collectives/ep_exchange.h"
#include "topologies/clusters.h"

namespace weft {

struct EpRequest {
  std::string system;  // a catalogue system (required)
  int nodes = 0;       // 0 = the preset's
  std::vector<std::string> sets;
  std::string kernel = "normal";  // normal | low-latency
  std::string phase = "both";     // dispatch | combine | both
  EpRouting routing;
  std::string fabric = "flow";
  uint64_t seed = 1;
  bool command_line = true;  // errors name `--set` (command line) or `sets` (Python)
};

struct EpPhaseResult {
  std::string phase;  // dispatch, combine
  Time time;
  double bandwidth_GBps = 0;  // DeepEP's: its counted bytes per rank over the time
  std::string counted_as;     // NVLink, RDMA
  double nvlink_bytes = 0;    // rank 0's sends to GPUs of its node
  double network_bytes = 0;   // rank 0's sends to other nodes
};

struct EpReport {
  ClusterSpec spec;
  uint32_t ranks = 0;
  double node_probability = 0, rank_probability = 0;  // a token picks a given node / rank
  std::vector<EpPhaseResult> phases;
};

// Throws ConfigError for a missing system, an unknown fabric, kernel or phase, or a routing the
// system's ranks cannot have.
EpReport run_ep(const EpRequest& request);

}  // namespace weft
