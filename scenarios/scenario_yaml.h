// A scenario written back as the file that reads to it, every key written out (the defaults it
// took included): `weft validate --resolved`. The readers read back what was written
// (tests/scenarios/test_scenario_yaml.cpp): writing the re-read scenario gives the same text.
#pragma once

#include <string>
#include <vector>

#include "cost/plan.h"
#include "scenarios/cost_section.h"
#include "scenarios/scenario.h"

namespace weft {

// The whole scenario. Files it named (a profile, a calibration, trace files) are written as the
// absolute paths of what was read (relative ones were resolved beside the scenario). compare: variants are written as
// the keys each sets otherwise than the base.
std::string scenario_yaml(const Scenario& scenario);

// A `cost:` section: the assumptions, and the prices that differ from `defaults` (a price's power
// source is the section itself when read back).
std::string cost_section_yaml(const cost::CostSettings& cost, const cost::PriceBook& defaults);

// A `plan:` section: {grid: {KEY: [VALUE, ...]}}.
std::string plan_grid_yaml(const std::vector<cost::GridAxis>& grid);

}  // namespace weft
