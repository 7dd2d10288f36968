// Runs a training scenario: generates the step's per-rank Programs from the model and plan, replays
// them on the scenario's system and fabric, and breaks the step time down.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "scenarios/link_series.h"
#include "scenarios/scenario.h"
#include "workloads/memory_model.h"
#include "workloads/replayer.h"
#include "workloads/step_breakdown.h"

namespace weft {

struct TrainingOutcome {
  std::shared_ptr<const Workload> workload;
  ReplayResult replay;
  BusiestLinks links;  // the busiest links' utilisation, when asked for and the fabric keeps per-link state
  StepBreakdown step;
  uint64_t ops = 0;                       // ops over all ranks
  double tokens = 0;                      // tokens per step (global batch x sequence)
  double wall_seconds = 0;                // how long the simulation took
  std::optional<MemoryBreakdown> memory;  // the busiest GPU's memory (generated steps; a trace has none)
};

// `poll`: see ReplayOptions::poll (progress and stopping; unset costs nothing).
// busiest_links: record the utilisation over time of this many of the busiest links (flow and
// packet fabrics keep per-link state; the others none).
// isolated_cache: isolated collective times kept from earlier replays on this topology and
// scenario setup (see IsolatedTimeCache; the plan search's final runs reuse its ranking's), or
// none for a cache of its own.
TrainingOutcome run_training(const Scenario& scenario, const Topology& topology,
                             std::function<bool(Time simulated, uint64_t events)> poll = {}, uint32_t busiest_links = 0,
                             std::shared_ptr<IsolatedTimeCache> isolated_cache = nullptr);

}  // namespace weft
