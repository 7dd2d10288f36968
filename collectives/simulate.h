// One call from a Schedule to a simulated time: runs the schedule to completion in a Simulation
// of `topology` and reports.
#pragma once

#include <string_view>
#include <vector>

#include "collectives/schedule.h"
#include "sim/fabric.h"
#include "sim/fabric_registry.h"
#include "sim/simulation.h"
#include "topologies/topology.h"

namespace weft {

struct SimulationResult {
  Time time;  // first step issued -> last byte arrived
  uint64_t transfers = 0;
  uint64_t events = 0;  // engine events processed
  FabricStats fabric;
  std::vector<LinkStats> links;  // per directed link, when SimulationOptions::link_stats asked for it
};

// The run's setup (fabric, seed, fabric and router options) and what to keep of it.
struct SimulationOptions : SimulationSetup {
  std::vector<RecorderSink*> sinks;  // observers: they must outlive the call
  bool link_stats = false;           // keep the fabric's per-link statistics (SimulationResult::links)
};

SimulationResult simulate(const Schedule& schedule, const Topology& topology, const SimulationOptions& options = {});

}  // namespace weft
