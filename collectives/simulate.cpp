#include "collectives/simulate.h"

#include "collectives/executor.h"
#include "sim/core/errors.h"
#include "sim/simulation.h"

namespace weft {

SimulationResult simulate(const Schedule& schedule, const Topology& topology, const SimulationOptions& options) {
  Simulation sim(topology, options);
  RunTotals totals(options.link_stats);
  sim.recorder().add_sink(totals);
  for (RecorderSink* sink : options.sinks) sim.recorder().add_sink(*sink);
  ScheduleExecutor executor(sim.engine(), sim.fabric(), schedule, topology.gpus(), sim.recorder());
  executor.allow_rank_images();  // it runs alone
  executor.start();
  sim.run();
  WEFT_ASSERT(executor.done());
  const FabricStats& stats = totals.last.fabric;
  WEFT_ASSERT(totals.runs == 1 && stats.transfers_done == stats.transfers_started);  // nothing left on the wire
  SimulationResult result{executor.end_time() - executor.start_time(), stats.transfers_done, totals.last.events, stats};
  result.links = std::move(totals.last.links);
  return result;
}

}  // namespace weft
