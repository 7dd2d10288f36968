// Speed of the parallel-plan search (issue 18's target: >= 1,000 candidates for a 1,024-GPU cluster
// in <= 60 s on 2 cores, 16.7 a second): a scenario's base searched whole, with each pass's wall time
// (the screen with NCCL's estimates, the isolated ranking of its best, the final run) and candidates
// per second. Usage: weft_plan_search_speed [SCENARIO.yaml [KEY=VALUE ...] [--isolated N]] (default:
// the bundled scenario); e.g. the Llama 3 70B pod on 1,024 GPUs:
//   weft_plan_search_speed scenarios/examples/dgx-h100-pod-llama3-70b.yaml system.nodes=128
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "scenarios/plan_search.h"
#include "scenarios/scenario.h"

using namespace weft;

int run(int argc, char** argv) {
  std::vector<std::string> sets;
  PlanSearchOptions options;
  options.top = 1;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--isolated" && i + 1 < argc) {
      options.isolated = std::stoul(argv[++i]);
    } else {
      sets.push_back(a);
    }
  }
  Scenario scenario = argc > 1 ? load_scenario_file(argv[1], sets) : default_scenario();
  scenario.compare.clear();
  const PlanSearchResult r = search_parallel_plans(scenario, options);
  const size_t ranked = r.ranked.size();
  const double first = r.pass_seconds[0];
  std::printf(
      "plan search: %s on %u GPUs: %zu candidates in %.2f s: %s %.2f s (%.1f candidates/s; target: 1,000 on "
      "1,024 GPUs in 60 s, 16.7/s), %zu ranked with isolated collectives %.2f s, %zu final %.2f s\n",
      r.scenario.c_str(), r.gpus, ranked, r.wall_seconds, r.screened > 0 ? "screened" : "ranked in isolation", first,
      static_cast<double>(ranked) / first, r.screened > 0 ? r.isolated : 0, r.pass_seconds[1], r.finals,
      r.pass_seconds[2]);
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
