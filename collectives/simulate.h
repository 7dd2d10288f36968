// One call from a Schedule to a simulated time: builds an Engine, a Router and the named Fabric
// over `topology`, runs the schedule to completion and reports.
#pragma once

#include <string_view>
#include <vector>

#include "collectives/schedule.h"
#include "sim/fabric.h"
#include "sim/fabric_registry.h"
#include "topologies/topology.h"

namespace weft {

struct SimulationResult {
  Time time;  // first step issued -> last byte arrived
  uint64_t transfers = 0;
  uint64_t events = 0;  // engine events processed
  FabricStats fabric;
  std::vector<LinkStats> links;  // per directed link, when SimulationOptions::link_stats asked for it
};

struct SimulationOptions {
  std::string_view fabric = "flow";
  uint64_t seed = 1;
  FabricOptions fabric_options;
  Recorder* recorder = nullptr;  // optional observer
  bool pxn = false;              // inter-node sends leave through the rail-matching GPU's NIC (NCCL PXN)
  bool link_stats = false;       // keep the fabric's per-link statistics (SimulationResult::links)
};

SimulationResult simulate(const Schedule& schedule, const Topology& topology, const SimulationOptions& options = {});

}  // namespace weft
