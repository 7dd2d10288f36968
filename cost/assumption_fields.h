// The keys of a scenario's `cost:` section besides `prices:` (sim/core/field_table.h): what the
// section reads, `weft fields cost` lists and README's table shows.
#pragma once

#include <span>

#include "cost/cluster_cost.h"
#include "sim/core/field_table.h"

namespace weft::cost {

// Each is checked by validate(), which says what range it takes.
std::span<const Field<CostAssumptions>> assumption_fields();

}  // namespace weft::cost
