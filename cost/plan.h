// The core of `weft plan`: given candidate configurations with their step time and cost, the
// cheapest that meets a target step time, the fastest within a budget, and the frontier of time
// against cost; and the expansion of a declared grid of settings into candidates.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/units.h"

namespace weft::cost {

struct PlanPoint {
  std::string name;  // e.g. the compare: variant, or "nic=cx7 nics=4 oversubscription=2"
  Time step_time;
  double usd = 0;  // the cost being minimised: capital (a buyer's budget) or USD per step, the caller's choice
};

// The cheapest point whose step time is at most `target`; ties go to the faster, then the earlier.
std::optional<size_t> cheapest_meeting(std::span<const PlanPoint> points, Time target);

// The fastest point costing at most `budget`; ties go to the cheaper, then the earlier.
std::optional<size_t> fastest_within(std::span<const PlanPoint> points, double budget);

// The Pareto frontier: points no other point beats on both time and cost (at least as good on both
// and better on one), cheapest first (so step times fall along it). Of identical points the earliest.
std::vector<size_t> pareto_frontier(std::span<const PlanPoint> points);

// One axis of a grid: a settable key and its values, e.g. {"system.node.nics", {"4", "8"}}.
struct GridAxis {
  std::string key;
  std::vector<std::string> values;
};
using GridPoint = std::vector<std::pair<std::string, std::string>>;  // (key, value) per axis, in axis order

// Every combination, the last axis varying fastest. No axes: one empty point; an axis without
// values: no points.
std::vector<GridPoint> expand_grid(std::span<const GridAxis> axes);

// "key=value key=value", a grid point's name.
std::string grid_point_name(const GridPoint& point);

// The points as a table (name, step time, cost, on the frontier), the chosen one marked.
std::string format_plan(std::span<const PlanPoint> points, std::optional<size_t> chosen,
                        const char* cost_label = "USD");

}  // namespace weft::cost
