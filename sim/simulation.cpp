#include "sim/simulation.h"

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {

RouterOptions router_options(const SimulationSetup& setup) {
  return RouterOptions{.seed = setup.seed, .pxn = setup.fabric_options.pxn, .policy = setup.fabric_options.routing};
}

Simulation::Simulation(const Topology& topology, const SimulationSetup& setup)
    : Simulation(std::make_shared<Router>(topology, router_options(setup)), setup) {}

Simulation::Simulation(std::shared_ptr<Router> router, const SimulationSetup& setup)
    : setup_(setup),
      router_(std::move(router)),
      fabric_(make_fabric(setup_.fabric, engine_, *router_, recorder_, setup_.fabric_options)) {}

Simulation::~Simulation() = default;

void Simulation::run() {
  fabric_->run(engine_);
  if (!recorder_.wants(Hook::runs)) return;
  RunRecord record{fabric_->stats(), engine_.events_processed(), engine_.now(), {}};
  if (recorder_.wants(Hook::link_stats)) record.links = fabric_->link_stats();
  recorder_.on_run_done(record);
}

std::unique_ptr<Simulation> Simulation::isolated() {
  if (find_fabric(setup_.fabric).once_per_process) {
    throw ConfigError(fmt::format("the {} fabric runs one simulation per process: no isolated runs", setup_.fabric));
  }
  if (!side_router_) side_router_ = std::make_shared<Router>(router_->topology(), router_options(setup_));
  return std::unique_ptr<Simulation>(new Simulation(side_router_, setup_));
}

}  // namespace weft
