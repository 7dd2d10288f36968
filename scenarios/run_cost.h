// What a training run costs: the bill of materials of the system it ran on, priced with the
// scenario's price book (cost/), and the cost of its step (and of training on `workload.tokens`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost/bill_of_materials.h"
#include "cost/cluster_cost.h"
#include "scenarios/scenario.h"

namespace weft {

struct CostOutcome {
  std::optional<cost::ClusterCost> cluster;  // absent when a price is missing (see `missing`)
  std::optional<cost::StepCost> step;
  std::vector<std::string> missing;  // items without a price (no cost: section to demand them)
};

// None for a system without a catalogue preset (a generic topology has nothing to buy). Missing
// prices: a ConfigError naming them when the scenario has a cost: section, else `missing`.
std::optional<CostOutcome> cost_of(const Scenario& scenario, const Topology& topology, Time step,
                                   double tokens_per_step);

}  // namespace weft
