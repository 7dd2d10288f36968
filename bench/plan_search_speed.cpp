// Speed of the parallel-plan search (issue 18's target: >= 1,000 candidates for a 1,024-GPU cluster
// in <= 60 s on 2 cores): the bundled default scenario's base searched whole, candidates ranked per
// second, and the time of ranking one GPT-3 175B candidate on 1,024 A100 is bench/training_scale's
// "one replica" line. Usage: weft_plan_search_speed [SCENARIO.yaml] (default: the bundled one).
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "scenarios/plan_search.h"
#include "scenarios/scenario.h"

using namespace weft;

int run(int argc, char** argv) {
  const Scenario scenario = argc > 1 ? load_scenario_file(argv[1]) : default_scenario();
  PlanSearchOptions options;
  options.top = 1;
  const auto t0 = std::chrono::steady_clock::now();
  const PlanSearchResult r = search_parallel_plans(scenario, options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const size_t ranked = r.ranked.size();
  std::printf(
      "plan search: %s on %u GPUs: %zu candidates ranked, the best simulated again, in %.2f s: "
      "%.1f candidates/s (target: 1,000 on 1,024 GPUs in 60 s, 16.7/s)\n",
      r.scenario.c_str(), r.gpus, ranked, wall, static_cast<double>(ranked) / wall);
  if (!r.ranked.empty()) std::printf("  best: %s\n", r.ranked.front().name.c_str());
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft_plan_search_speed: %s\n", e.what());
    return 2;
  }
}
