#include "scenarios/ep_request.h"

#include <fmt/format.h>

#include "collectives/simulate.h"
#include "sim/core/errors.h"
#include "sim/fabric_registry.h"
#include "topologies/builders.h"
#include "topologies/systems.h"

namespace weft {
namespace {

EpKernel parse_kernel(const std::string& text) {
  if (text == "normal") return EpKernel::normal;
  if (text == "low-latency") return EpKernel::low_latency;
  throw ConfigError(fmt::format("kernel: expected normal or low-latency, got '{}'", text));
}

std::vector<EpPhase> phases_of(const std::string& text) {
  if (text == "dispatch") return {EpPhase::dispatch};
  if (text == "combine") return {EpPhase::combine};
  if (text == "both") return {EpPhase::dispatch, EpPhase::combine};
  throw ConfigError(fmt::format("phase: expected dispatch, combine or both, got '{}'", text));
}

// One phase of `x` on the fabric: its time, DeepEP's bandwidth, and where rank 0's bytes go.
EpPhaseResult run_phase(EpPhase phase, const EpExchange& x, const EpRequest& r, uint32_t per_node,
                        const Topology& topology) {
  EpPhaseResult out;
  out.phase = phase == EpPhase::dispatch ? "dispatch" : "combine";
  out.counted_as = x.counted_as;
  for (const Stream& s : x.schedule.streams) {
    if (s.rank != 0) continue;
    const auto bytes = static_cast<double>(s.runs.front().bytes.count());
    (s.runs.front().peer < per_node ? out.nvlink_bytes : out.network_bytes) += bytes;
  }
  out.time = simulate(x.schedule, topology, {ep_simulation_setup(r.fabric, r.seed)}).time;
  out.bandwidth_GBps = x.counted_bytes / out.time.seconds() / 1e9;
  return out;
}

}  // namespace

EpReport run_ep(const EpRequest& r) {
  if (r.system.empty()) throw ConfigError("ep needs a catalogue system: the GPUs, NVLink and NICs it runs on");
  find_fabric(r.fabric);
  const EpKernel kernel = parse_kernel(r.kernel);
  const std::vector<EpPhase> phases = phases_of(r.phase);
  EpReport report;
  report.spec = resolve_system(r.system, r.nodes, r.sets, r.command_line ? "--set" : "sets");
  const Topology topology = build_cluster(report.spec);
  report.ranks = static_cast<uint32_t>(topology.gpus().size());
  const auto nodes = static_cast<uint32_t>(report.spec.nodes);
  const auto per_node = static_cast<uint32_t>(report.spec.node.gpus);
  require_simulations(r.fabric, phases.size(), "phases", "ask for one phase: dispatch or combine");
  std::vector<EpExchange> exchanges;  // all built first: a bad shape fails before any simulation
  exchanges.reserve(phases.size());
  for (EpPhase p : phases) exchanges.push_back(ep_exchange(kernel, p, r.routing, report.ranks, per_node));
  report.node_probability = ep_node_probability(r.routing, nodes);
  report.rank_probability = ep_rank_probability(r.routing, report.ranks, nodes);
  for (size_t i = 0; i < phases.size(); ++i) {
    report.phases.push_back(run_phase(phases[i], exchanges[i], r, per_node, topology));
  }
  return report;
}

}  // namespace weft
