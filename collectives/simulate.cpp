#include "collectives/simulate.h"

#include "collectives/executor.h"
#include "sim/core/errors.h"
#include "sim/simulation.h"

namespace weft {

SimulationResult simulate(const Schedule& schedule, const Topology& topology, const SimulationOptions& options) {
  Simulation sim(topology, options);
  for (RecorderSink* sink : options.sinks) sim.recorder().add_sink(*sink);
  ScheduleExecutor executor(sim.engine(), sim.fabric(), schedule, topology.gpus(), sim.recorder());
  executor.start();
  sim.run();
  WEFT_ASSERT(executor.done());
  FabricStats stats = sim.fabric().stats();
  WEFT_ASSERT(stats.transfers_done == stats.transfers_started);  // nothing left on the wire
  SimulationResult result{executor.end_time() - executor.start_time(), stats.transfers_done,
                          sim.engine().events_processed(), stats};
  if (options.link_stats) result.links = sim.fabric().link_stats();
  return result;
}

}  // namespace weft
