// Text and JSON forms of bills of materials and costs: the table of `weft topo --bom`, and the
// objects `weft run` puts in summary.json. The library prints nothing; callers do.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cost/bill_of_materials.h"
#include "cost/cluster_cost.h"
#include "cost/prices.h"

namespace weft::cost {

// The bill of materials as a table. With `prices`, each line gets its unit and total price and
// power, followed by the cluster's capital, power, cost per hour and per GPU-hour under
// `assumptions`, and every price's source; items without a price are listed by name instead of totals.
std::string format_bom(const BillOfMaterials& bom, const PriceBook* prices = nullptr,
                       const CostAssumptions& assumptions = {});

// "$1,234,567" (whole dollars from 100 up, else cents).
std::string format_usd(double usd);

nlohmann::ordered_json bom_json(const BillOfMaterials& bom);
// Totals, assumptions and the priced lines with their sources.
nlohmann::ordered_json cost_json(const ClusterCost& cost);
// Per-step figures; optional ones are null when absent.
nlohmann::ordered_json step_cost_json(const StepCost& step);

}  // namespace weft::cost
