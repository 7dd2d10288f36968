#include "scenarios/run_training.h"

#include <chrono>

#include "topologies/catalogue/gpus.h"

namespace weft {

TrainingOutcome run_training(const Scenario& scenario, const Topology& topology,
                             std::function<bool(Time simulated, uint64_t events)> poll, uint32_t busiest_links) {
  const auto wall_start = std::chrono::steady_clock::now();
  const TrainingWorkload& t = *scenario.training;
  const catalogue::GpuSpec& gpu = catalogue::gpu(t.gpu);
  TrainingOutcome out;
  auto workload = std::make_shared<Workload>(generate_training(t.spec, gpu, t.profile));
  for (const Program& p : workload->programs) out.ops += p.ops.size();
  ReplayOptions options;
  options.fabric = scenario.fabric;
  options.seed = scenario.seed;
  options.fabric_options = scenario.fabric_options;
  options.collectives = t.timing;
  options.poll = std::move(poll);
  options.busiest_links = busiest_links;
  out.replay = replay(*workload, topology, scenario.system.cluster, options);
  out.step = breakdown(*workload, out.replay, peak_flops(gpu, t.spec.precision));
  out.tokens = static_cast<double>(t.spec.global_batch) * t.spec.seq_len;
  out.workload = std::move(workload);
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return out;
}

}  // namespace weft
