// `weft plan --search parallel` (issue 18, item 3): the best parallel plan for a scenario's training
// step on its own cluster, in three passes, each slower and truer than the last:
// 1. screen: every runnable plan that fits in memory (workloads/plan_space.h), one replica's step with
//    each collective at NCCL's own estimate (CollectiveTiming::model: no fabric simulation);
// 2. rank: the best `isolated` of the screen again with collectives simulated in isolation on the
//    fabric (each communicator's collectives run alone, cached per shape);
// 3. final: the fastest `top` of those as the scenario asks (by default on the shared fabric, where
//    TP, DP and PP traffic contend), ranked by that time.
// A search with at most `isolated` plans skips the screen: every plan is ranked in isolation.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "workloads/collective_timer.h"
#include "workloads/plan_space.h"

namespace weft {

struct PlanSearchOptions {
  size_t top = 5;                 // plans simulated again as the scenario asks
  size_t isolated = 16;           // plans ranked with isolated collectives after the screen (0: all)
  unsigned threads = 0;           // for the screen and the isolated ranking (0: one per core)
  uint32_t min_cp_tokens = 4096;  // PlanSpaceLimits::min_cp_tokens
  size_t max_candidates = 0;      // 0: every plan; else the first so many of the enumeration (tests)
  bool vary_sharding = true;      // try ZeRO 0..3, else keep the scenario's
  bool vary_recompute = true;     // try recomputation on and off, else keep the scenario's
  // Called after each plan is timed (done of total; total counts every pass), for progress, one call
  // at a time but from the passes' threads.
  std::function<void(size_t done, size_t total)> progress;
};

struct RankedPlan {
  TrainingSpec spec;
  std::string name;                // plan_name(spec)
  std::optional<Time> screened;    // step time with collectives at NCCL's estimate (when screened)
  std::optional<Time> isolated;    // step time with collectives timed alone (the ranked plans)
  std::optional<Time> final_time;  // step time as the scenario asks (the top plans only)
  double mfu = 0;                  // of the truest run it had: final, else isolated, else screened
  MemoryBreakdown memory;
  std::optional<double> usd_per_step;  // the top plans, on a priced catalogue system
};

struct PlanSearchResult {
  std::string scenario;  // its name
  uint32_t gpus = 0, nvlink_domain = 0;
  PlanSpace space;  // what was enumerated (plans, and counts of those left out)
  // The top first (by final time), then the rest of those ranked (by isolated time), then the rest
  // of the screen (by its time).
  std::vector<RankedPlan> ranked;
  size_t screened = 0;  // how many had the screen (0: none, every plan was ranked in isolation)
  size_t isolated = 0;  // how many were ranked in isolation
  size_t finals = 0;    // how many of ranked have a final time
  double wall_seconds = 0;
  std::array<double, 3> pass_seconds{};  // wall time of the screen (or the first ranking), isolated, final
};

// The scenario's `plan:` settings (top, isolated, min_cp_tokens) as search options.
PlanSearchOptions plan_search_options(const Scenario& scenario);

// Throws ConfigError when the scenario is not a generated training step, or when no plan fits
// (naming the closest plan and its memory against the capacity).
PlanSearchResult search_parallel_plans(const Scenario& scenario, const PlanSearchOptions& options = {});

// One plan's step (one replica) as the screen times it (collectives at NCCL's estimate, the micro-
// batches extended along the pipeline's steady state) and as a whole replay of it times it with
// `timing`: for tests.
Time screened_step(const Scenario& scenario, const TrainingSpec& plan);
Time replica_step(const Scenario& scenario, const TrainingSpec& plan, CollectiveTiming timing);

// The result as a table: the top plans, then a line of counts.
std::string format_plan_search(const PlanSearchResult& result, size_t rows = 10);

}  // namespace weft
