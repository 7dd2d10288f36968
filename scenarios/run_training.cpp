#include "scenarios/run_training.h"

#include <chrono>
#include <optional>

#include "topologies/catalogue/gpus.h"

namespace weft {

TrainingOutcome run_training(const Scenario& scenario, const Topology& topology,
                             std::function<bool(Time simulated, uint64_t events)> poll, uint32_t busiest_links,
                             std::shared_ptr<IsolatedTimeCache> isolated_cache) {
  const auto wall_start = std::chrono::steady_clock::now();
  const TrainingWorkload& t = *scenario.training();
  const catalogue::GpuSpec& gpu = catalogue::gpu(t.gpu);
  TrainingOutcome out;
  auto workload = std::make_shared<Workload>(t.trace ? load_trace_workload(*t.trace, t.gpu, scenario.system.ranks)
                                                     : generate_training(t.spec, gpu, t.profile));
  for (const Program& p : workload->programs) out.ops += p.ops.size();
  ReplayOptions options;
  options.simulation() = scenario.simulation();
  options.collectives = t.timing;
  options.poll = std::move(poll);
  options.calibration = t.network;
  options.isolated_cache = std::move(isolated_cache);
  std::optional<LinkTimeline> timeline;
  if (busiest_links > 0 && find_fabric(scenario.fabric).per_link) {
    timeline.emplace(topology.link_count());
    options.sinks.push_back(&*timeline);
  }
  out.replay = replay(*workload, topology, scenario.system.cluster, options);
  if (timeline) out.links = weft::busiest_links(topology, *timeline, busiest_links);
  out.step = breakdown(*workload, out.replay, peak_flops(gpu, t.spec.precision));
  if (!t.trace) out.memory = training_memory(t.spec, gpu);
  out.tokens = t.trace ? 0.0 : static_cast<double>(t.spec.global_batch) * t.spec.seq_len;  // a trace has no token count
  out.workload = std::move(workload);
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return out;
}

}  // namespace weft
