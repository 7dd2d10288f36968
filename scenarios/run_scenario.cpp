#include "scenarios/run_scenario.h"

#include <variant>

#include "topologies/builders.h"

namespace weft {

namespace {

// Asks the caller's poll whether to go on; throws RunStopped when it says stop.
void check(const RunPoll& poll, RunProgress progress) {
  if (poll && !poll(progress)) throw RunStopped("run stopped");
}

// Runs the scenario's one workload form into its result; one overload per form.
struct WorkloadRun {
  const Scenario& scenario;
  const Topology& topology;
  const RunPoll& poll;
  RunProgress progress;
  const RunRecording& recording;
  ScenarioResult& result;

  void operator()(const TrainingWorkload& /*training*/) {
    std::function<bool(Time, uint64_t)> replay_poll;
    if (poll) {
      replay_poll = [&poll = poll, progress = progress](Time simulated, uint64_t events) mutable {
        progress.simulated = simulated;
        progress.events = events;
        return poll(progress);
      };
    }
    result.training = run_training(scenario, topology, std::move(replay_poll), recording.busiest_links);
    result.total = result.training->step.step_time;
    result.cost = cost_of(scenario, topology, result.total, result.training->tokens);
  }

  void operator()(const ServingWorkload& serving) {
    std::function<bool(Time)> serving_poll;
    if (poll) {
      serving_poll = [&poll = poll, progress = progress](Time simulated) mutable {
        progress.simulated = simulated;
        return poll(progress);
      };
    }
    const ServingInputs in{serving.spec,          serving.requests, topology,    scenario.system.cluster,
                           scenario.simulation(), serving.profile,  serving.host};
    result.serving = run_serving(in, serving_poll);
    result.total = result.serving->metrics.duration;
    result.cost = cost_of(scenario, topology, result.total, static_cast<double>(result.serving->metrics.output_tokens));
  }

  void operator()(const TrafficSpec& traffic) {
    std::vector<FlowSpec> flows = make_traffic(traffic, scenario.system.ranks, scenario.seed);
    result.traffic = run_traffic(flows, topology, scenario.simulation());
    result.total = result.traffic->summary.makespan;
  }

  void operator()(const CollectivesWorkload& collectives) {
    SimulationOptions options{scenario.simulation()};
    // The fabric is empty between two collectives of one stream, so each can be simulated on its own
    // and placed after the previous one.
    require_simulations(scenario.fabric, collectives.items.size(), "collectives",
                        "keep one collective in the scenario");
    for (const CollectiveSpec& c : collectives.items) {
      progress.simulated = result.total;
      check(poll, progress);
      SweepRow row = measure_collective(c.op, c.size, c.ring, topology, options);
      result.collectives.push_back({c, row, result.total});
      result.total += row.time;
    }
  }
};

ScenarioResult run_one(const Scenario& scenario, const RunPoll& poll, RunProgress progress,
                       const RunRecording& recording) {
  check(poll, progress);
  Topology topology = build_system(scenario.system);
  ScenarioResult result{scenario, {}, Time(), std::nullopt, std::nullopt, std::nullopt, std::nullopt, {}};
  std::visit(WorkloadRun{scenario, topology, poll, progress, recording, result}, scenario.workload);
  return result;
}

}  // namespace

ScenarioResult run_scenario(const Scenario& scenario, const RunPoll& poll, const RunRecording& recording) {
  const size_t count = scenario.compare.size() + 1;
  ScenarioResult result = run_one(scenario, poll, RunProgress{0, count, scenario.baseline, Time(), 0}, recording);
  for (size_t i = 0; i < scenario.compare.size(); ++i) {
    const ScenarioVariant& v = scenario.compare[i];
    result.variants.push_back(run_one(*v.scenario, poll, RunProgress{i + 1, count, v.name, Time(), 0}, recording));
  }
  return result;
}

}  // namespace weft
