// Runs a Scenario: builds its system, then replays its training step, or simulates its collectives
// one after another (each starts when the previous one has finished, as on one NCCL stream), or its
// traffic pattern in one run; then each compare: variant the same way.
#pragma once

#include <optional>
#include <vector>

#include "collectives/sweep.h"
#include "scenarios/run_training.h"
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
  Time total;  // training: the step time; collectives: their sum; traffic: the makespan
  std::optional<TrafficResult> traffic;  // set for a traffic workload
  std::optional<TrainingOutcome> training;  // set for a training workload
  std::vector<ScenarioResult> variants;  // the compare: variants, in file order
};

ScenarioResult run_scenario(const Scenario& scenario);

}  // namespace weft
