#include "collectives/simulate.h"

#include "collectives/executor.h"
#include "sim/core/errors.h"
#include "topologies/routing.h"

namespace weft {

SimulationResult simulate(const Schedule& schedule, const Topology& topology, const SimulationOptions& options) {
  Engine engine;
  Router router(topology,
                RouterOptions{.seed = options.seed, .pxn = options.pxn, .policy = options.fabric_options.routing});
  Recorder quiet;
  Recorder& recorder = options.recorder ? *options.recorder : quiet;
  auto fabric = make_fabric(options.fabric, engine, router, recorder, options.fabric_options);
  ScheduleExecutor executor(engine, *fabric, schedule, topology.gpus(), recorder);
  executor.start();
  fabric->run(engine);
  WEFT_ASSERT(executor.done());
  FabricStats stats = fabric->stats();
  WEFT_ASSERT(stats.transfers_done == stats.transfers_started);  // nothing left on the wire
  SimulationResult result{executor.end_time() - executor.start_time(), stats.transfers_done, engine.events_processed(),
                          stats};
  if (options.link_stats) result.links = fabric->link_stats();
  return result;
}

}  // namespace weft
