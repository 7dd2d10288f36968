#include "scenarios/run_cost.h"

namespace weft {

std::optional<CostOutcome> cost_of(const Scenario& s, const Topology& topology, Time step, double tokens_per_step) {
  if (s.system.preset.empty()) return std::nullopt;
  const cost::BillOfMaterials bom = cost::bill_of_materials(topology, s.system.cluster);
  CostOutcome out;
  out.missing = cost::missing_prices(bom, s.cost.prices);
  if (!out.missing.empty() && !s.has_cost_section) return out;
  out.cluster = cost::cluster_cost(bom, s.cost.prices, s.cost.assumptions);  // throws naming what is missing
  const std::optional<double> budget = s.training() ? s.training()->token_budget : std::nullopt;
  out.step = cost::step_cost(*out.cluster, step, tokens_per_step, tokens_per_step > 0 ? budget : std::nullopt);
  return out;
}

}  // namespace weft
