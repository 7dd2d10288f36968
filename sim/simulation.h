// The one composition root of a run: an Engine, a Router, the named Fabric and the Recorder, built
// from a topology and a SimulationSetup. The collective sweep, the training replay (and its
// isolated side runs) and traffic patterns all run in one, so every option reaches every run.
#pragma once

#include <memory>
#include <string>

#include "sim/core/engine.h"
#include "sim/core/recorder.h"
#include "sim/fabric.h"
#include "sim/fabric_registry.h"
#include "topologies/routing.h"
#include "topologies/topology.h"

namespace weft {

// What a run is made of besides its topology and its workload.
struct SimulationSetup {
  std::string fabric = "flow";   // a name of fabric_registry()
  uint64_t seed = 1;             // every random choice (ECMP hashing, sprayed packets, ...)
  FabricOptions fabric_options;  // the model's options, and the router's (routing, pxn)
};

// The router's options a setup asks for.
RouterOptions router_options(const SimulationSetup& setup);

class Simulation {
 public:
  // Throws ConfigError for an unknown fabric or options it refuses.
  Simulation(const Topology& topology, const SimulationSetup& setup);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  Engine& engine() { return engine_; }
  Router& router() { return *router_; }
  Fabric& fabric() { return *fabric_; }
  // Add sinks before run(): they see the records from then on.
  Recorder& recorder() { return recorder_; }
  const SimulationSetup& setup() const { return setup_; }

  // Runs the engine (and the fabric's own clock, if it has one) until nothing is left to do, then
  // tells the Recorder (RunRecord: the fabric's counters, the events, the end time).
  void run();

  // A run of its own on the same topology and setup, with nobody recording: e.g. a collective
  // timed alone, away from the traffic of this one. Isolated runs share one router of their own
  // (its paths are cached for all of them; this run's fabric keeps references into its own).
  // Throws ConfigError when the fabric cannot run twice in one process (SimGrid): callers that
  // plan isolated runs check first (require_simulations), with a hint of their own.
  std::unique_ptr<Simulation> isolated();

 private:
  Simulation(std::shared_ptr<Router> router, const SimulationSetup& setup);

  SimulationSetup setup_;
  Engine engine_;
  Recorder recorder_;
  std::shared_ptr<Router> router_;
  std::unique_ptr<Fabric> fabric_;
  std::shared_ptr<Router> side_router_;  // isolated runs' router, made by the first
};

}  // namespace weft
