// Runs a Scenario: builds its system, then simulates its collectives one after another (each starts
// when the previous one has finished, as on one NCCL stream), or its traffic pattern in one run.
#pragma once

#include <optional>
#include <vector>

#include "collectives/sweep.h"
#include "scenarios/scenario.h"

namespace weft {

struct CollectiveOutcome {
  CollectiveSpec spec;
  SweepRow row;
  Time start;  // within the scenario's timeline
};

struct ScenarioResult {
  Scenario scenario;
  std::vector<CollectiveOutcome> collectives;
  Time total;                            // collectives: their sum; traffic: the makespan
  std::optional<TrafficResult> traffic;  // set for a traffic workload
};

ScenarioResult run_scenario(const Scenario& scenario);

}  // namespace weft
