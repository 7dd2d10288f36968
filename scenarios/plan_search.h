// `weft plan --search parallel` (issue 18, item 3): the best parallel plan for a scenario's training
// step on its own cluster. Every runnable plan that fits in memory (workloads/plan_space.h) is timed
// with collectives timed in isolation (fast: each communicator's collectives run alone, cached per
// shape); the fastest `top` are simulated again as the scenario asks (by default on the shared
// fabric, where TP, DP and PP traffic contend) and ranked by that time.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "workloads/plan_space.h"

namespace weft {

struct PlanSearchOptions {
  size_t top = 5;              // plans simulated again as the scenario asks
  size_t max_candidates = 0;   // 0: every plan; else the first so many of the enumeration (tests)
  bool vary_sharding = true;   // try ZeRO 0..3, else keep the scenario's
  bool vary_recompute = true;  // try recomputation on and off, else keep the scenario's
  // Called after each plan is timed (done of total; total counts the final runs too), for progress.
  std::function<void(size_t done, size_t total)> progress;
};

struct RankedPlan {
  TrainingSpec spec;
  std::string name;                // plan_name(spec)
  Time isolated;                   // step time with collectives timed alone
  std::optional<Time> final_time;  // step time as the scenario asks (the top plans only)
  double mfu = 0;                  // of the final run when there is one, else of the isolated one
  MemoryBreakdown memory;
  std::optional<double> usd_per_step;  // the top plans, on a priced catalogue system
};

struct PlanSearchResult {
  std::string scenario;  // its name
  uint32_t gpus = 0, nvlink_domain = 0;
  PlanSpace space;                 // what was enumerated (plans, and counts of those left out)
  std::vector<RankedPlan> ranked;  // the top first (by final time), then the rest by isolated time
  size_t finals = 0;               // how many of ranked have a final time
  double wall_seconds = 0;
};

// Throws ConfigError when the scenario is not a generated training step, or when no plan fits
// (naming the closest plan and its memory against the capacity).
PlanSearchResult search_parallel_plans(const Scenario& scenario, const PlanSearchOptions& options = {});

// The result as a table: the top plans, then a line of counts.
std::string format_plan_search(const PlanSearchResult& result, size_t rows = 10);

}  // namespace weft
