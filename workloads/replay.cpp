// replay(): a Workload's step in a Simulation of its own, with the timer its options ask for.
#include <fmt/format.h>
#include <initializer_list>

#include "sim/core/errors.h"
#include "workloads/isolated_prefetch.h"
#include "workloads/own_links.h"
#include "workloads/replayer.h"

namespace weft {
namespace {

void stop_on_poll(Engine& engine, const ReplayOptions& options) {
  if (!options.poll) return;
  // Throws rather than returning false: a fabric with a clock of its own (SimGrid) calls
  // Engine::run many times and would carry on after an early return.
  engine.set_poll(
      [&engine, &options] {
        if (!options.poll(engine.now(), engine.events_processed())) throw RunStopped("run stopped");
        return true;
      },
      options.poll_every);
}

}  // namespace

ReplayResult replay(const Workload& workload, const Topology& topology, const ClusterSpec& spec,
                    const ReplayOptions& options) {
  validate(workload);
  if (workload.sampled && options.collectives == CollectiveTiming::shared) {
    throw ConfigError(
        fmt::format("workload '{}' has programs for some ranks only: its collectives must be timed "
                    "in isolation or by NCCL's model (collective_timing: isolated or model)",
                    workload.name));
  }
  Simulation sim(topology, options);
  OpTimeline ops(workload);
  CollectiveTally tally;
  RunTotals totals;
  for (RecorderSink* sink : std::initializer_list<RecorderSink*>{&ops, &tally, &totals}) sim.recorder().add_sink(*sink);
  for (RecorderSink* sink : options.sinks) sim.recorder().add_sink(*sink);
  auto cache = options.isolated_cache ? options.isolated_cache : std::make_shared<IsolatedTimeCache>();
  std::unique_ptr<OwnLinksTimer> own_links;
  if (options.collectives == CollectiveTiming::shared && options.alone_on_own_links && own_links_apply(sim)) {
    own_links = std::make_unique<OwnLinksTimer>(sim);
  }
  OwnLinksTimer* own = own_links.get();
  std::unique_ptr<CollectiveTimer> timer =
      make_collective_timer(options.collectives, sim, options.calibration, topology, cache, std::move(own_links));
  Replayer replayer(sim.engine(), sim.fabric(), topology, spec, workload, sim.recorder(), *timer, options.plan);
  if (own) own->alone(plans_on_own_links(replayer, workload, sim.router()));
  if (options.isolated_threads != 1) {
    IsolatedPrefetch ahead(topology, options, cache);
    ahead.add(replayer, sim, options);
    std::function<bool()> keep_going;
    if (options.poll) keep_going = [&options] { return options.poll(Time(), 0); };
    ahead.run(options.isolated_threads, keep_going);
  }
  stop_on_poll(sim.engine(), options);
  replayer.start();
  sim.run();
  if (!replayer.done()) {
    throw ConfigError(fmt::format("workload '{}' cannot finish: {}", workload.name, replayer.stuck()));
  }
  FabricStats fabric = totals.last.fabric;
  if (own) {  // the instances timed alone: what the fabric would have counted of them
    fabric.transfers_started += own->alone_totals().transfers_started;
    fabric.transfers_done += own->alone_totals().transfers_done;
    fabric.bytes_delivered += own->alone_totals().bytes_delivered;
  }
  return {replayer.step_time(), std::move(ops), tally.stats(), fabric, totals.last.events};
}

}  // namespace weft
