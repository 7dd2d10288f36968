// Output of a training run: the step's time breakdown and per-collective table for each variant,
// the side-by-side comparison of variants (speed-up relative to the first), as a table, JSON
// (summary.json) or CSV. Pure functions from results to text.
#pragma once

#include <string>

#include "scenarios/run_scenario.h"

namespace weft {

std::string training_table(const ScenarioResult& result);   // the baseline, each variant, then the comparison
std::string training_json(const ScenarioResult& result);    // summary.json: every variant's numbers
std::string training_csv(const ScenarioResult& result);     // one row per variant
std::string collectives_csv(const ScenarioResult& result);  // one row per (variant, group, op, size, algorithm)

}  // namespace weft
