#include "scenarios/run_scenario.h"

#include "topologies/builders.h"

namespace weft {

namespace {

ScenarioResult run_one(const Scenario& scenario) {
  Topology topology = build_system(scenario.system);
  ScenarioResult result{scenario, {}, Time(), std::nullopt, std::nullopt, {}};
  if (scenario.training) {
    result.training = run_training(scenario, topology);
    result.total = result.training->step.step_time;
    return result;
  }
  if (scenario.traffic) {
    std::vector<FlowSpec> flows = make_traffic(*scenario.traffic, scenario.system.ranks, scenario.seed);
    result.traffic = run_traffic(flows, topology, scenario.fabric, scenario.fabric_options, scenario.seed);
    result.total = result.traffic->summary.makespan;
    return result;
  }
  SimulationOptions options{scenario.fabric, scenario.seed, scenario.fabric_options, nullptr};
  // The fabric is empty between two collectives of one stream, so each can be simulated on its own
  // and placed after the previous one.
  require_simulations(scenario.fabric, scenario.collectives.size(), "collectives", "keep one collective in the scenario");
  for (const CollectiveSpec& c : scenario.collectives) {
    SweepRow row = measure_collective(c.op, c.size, c.ring, topology, options);
    result.collectives.push_back({c, row, result.total});
    result.total += row.time;
  }
  return result;
}

}  // namespace

ScenarioResult run_scenario(const Scenario& scenario) {
  ScenarioResult result = run_one(scenario);
  for (const ScenarioVariant& v : scenario.compare) result.variants.push_back(run_one(*v.scenario));
  return result;
}

}  // namespace weft
