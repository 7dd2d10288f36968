// Runs a Scenario: builds its system, then replays its training step, or simulates its collectives
// one after another (each starts when the previous one has finished, as on one NCCL stream), or its
// traffic pattern in one run; then each compare: variant the same way.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "collectives/sweep.h"
#include "scenarios/run_cost.h"
#include "scenarios/run_training.h"
#include "scenarios/scenario.h"
#include "workloads/serving/serving.h"

namespace weft {

struct CollectiveOutcome {
  CollectiveSpec spec;
  SweepRow row;
  Time start;  // within the scenario's timeline
};

struct ScenarioResult {
  Scenario scenario;
  std::vector<CollectiveOutcome> collectives;
  Time total;  // training: the step time; collectives: their sum; traffic: the makespan; serving: first arrival to last
               // token
  std::optional<TrafficResult> traffic;     // set for a traffic workload
  std::optional<TrainingOutcome> training;  // set for a training workload
  std::optional<ServingOutcome> serving;    // set for a serving workload
  std::optional<CostOutcome> cost;          // a training or serving workload on a catalogue system
  std::vector<ScenarioResult> variants;     // the compare: variants, in file order
};

// What a caller sees of a run in progress (the CLI's progress line).
struct RunProgress {
  size_t variant = 0;   // 0: the baseline, then the compare: variants in file order
  size_t variants = 1;  // the baseline included
  std::string_view name;
  Time simulated;       // of this variant
  uint64_t events = 0;  // engine events of this variant so far; 0 where not counted
};
// Called before each variant and collective, and every so many engine events of a training replay
// (collective and traffic simulations are not polled inside). Returning false stops the run:
// run_scenario then throws RunStopped and returns no partial result.
using RunPoll = std::function<bool(const RunProgress&)>;

// What to record beyond the results every run has.
struct RunRecording {
  // Training replays: the utilisation over time of this many of the busiest links (for trace.json).
  uint32_t busiest_links = 0;
};

ScenarioResult run_scenario(const Scenario& scenario, const RunPoll& poll = {}, const RunRecording& recording = {});

}  // namespace weft
