#include "scenarios/collective_request.h"

#include <fmt/format.h>
#include <algorithm>

#include "collectives/nccl_model.h"
#include "collectives/network_calibration.h"
#include "scenarios/network_calibration_file.h"
#include "sim/core/errors.h"
#include "sim/core/names.h"
#include "sim/fabric_registry.h"
#include "topologies/builders.h"
#include "topologies/metrics.h"
#include "topologies/routing.h"
#include "topologies/systems.h"

namespace weft {
namespace {

// NCCL's choice per size, as NCCL_ALGO / NCCL_PROTO / NCCL_MIN/MAX_NCHANNELS allow.
void read_nccl_options(const CollectiveRequest& r, PlanOptions& plan) {
  if (!r.algo.empty()) plan.overrides.algorithm = parse_algorithm(r.algo, r.option("algo"));
  if (!r.proto.empty()) plan.overrides.protocol = parse_protocol(r.proto, r.option("proto"));
  if (r.channels > 0) plan.overrides.min_channels = plan.overrides.max_channels = r.channels;
  plan.version = r.nccl_version;
  nccl_version(r.nccl_version);  // a bad version fails before any simulation
}

SweepSpec read_sweep(const CollectiveRequest& r) {
  SweepSpec spec;
  spec.op = parse_collective_op(r.op, r.option("op"));
  spec.min_bytes = parse_bytes(r.min_bytes, r.option("min_bytes"));
  spec.max_bytes = parse_bytes(r.max_bytes, r.option("max_bytes"));
  spec.factor = r.factor;
  spec.simulation.fabric = r.fabric;
  spec.simulation.seed = r.seed;
  spec.simulation.fabric_options.pxn = r.pxn;
  spec.simulation.fabric_options.routing = parse_routing_policy(r.routing);
  spec.ring.channels = r.channels == 0 ? 1 : r.channels;
  spec.ring.chunk = parse_bytes(r.chunk, r.option("chunk"));
  spec.link_stats = r.link_stats;
  if (r.gpus_per_thread == 0) {
    throw ConfigError(fmt::format("{}: expected at least 1 GPU per thread, got 0", r.option("gpus_per_thread")));
  }
  spec.gpus_per_thread = r.gpus_per_thread;
  find_fabric(r.fabric);
  return spec;
}

// Rows whose (op, ranks, algorithm/protocol, link class) series was measured take the fitted time;
// algbw and busbw follow it.
void apply_calibration(const std::string& path, CollectiveOp op, const Topology& topology,
                       std::vector<SweepRow>& rows) {
  const NetworkCalibration c = load_network_calibration(path);
  const std::string link = link_class(topology.gpus(), topology);
  for (SweepRow& row : rows) {
    // "Ring/Simple x2" -> ring, simple; a generic topology runs weft's ring (all-to-all: pairwise p2p).
    const size_t slash = row.algorithm.find('/'), space = row.algorithm.find(' ');
    const std::string algorithm = lowercase(row.algorithm.substr(0, slash));
    const std::string protocol =
        slash == std::string::npos ? "" : lowercase(row.algorithm.substr(slash + 1, space - slash - 1));
    const auto t = c.time("collective", to_string(op), static_cast<uint32_t>(topology.gpus().size()), algorithm,
                          protocol, link, row.size.count());
    if (!t || row.time <= Time()) continue;
    const double scale = row.time.seconds() / t->seconds();
    row.time = *t;
    row.algbw_GBps *= scale;
    row.busbw_GBps *= scale;
    row.note = row.note.empty() ? "calibrated" : row.note + "; calibrated";
  }
}

}  // namespace

std::string CollectiveRequest::option(std::string_view name) const {
  if (!command_line) return std::string(name);
  std::string spelled = "--" + std::string(name);
  std::replace(spelled.begin(), spelled.end(), '_', '-');
  return spelled;
}

SweepSpec PreparedCollective::sweep_spec() const {
  SweepSpec s = spec;
  s.system = system ? &*system : nullptr;
  return s;
}

PreparedCollective prepare_collective(const CollectiveRequest& r) {
  SweepSpec spec = read_sweep(r);
  const bool catalogue = !r.system.empty();
  if (!catalogue && (!r.algo.empty() || !r.proto.empty() || !r.nccl_version.empty())) {
    throw ConfigError(fmt::format("{}, {} and {} need a catalogue system ({} NAME)", r.option("algo"),
                                  r.option("proto"), r.option("nccl_version"), r.option("system")));
  }
  if (!catalogue) {
    LinkSpec link{LinkKind::generic, parse_bandwidth(r.link_rate, r.option("link_rate")),
                  parse_time(r.latency, r.option("latency"))};
    return {spec, std::nullopt, build_topology(r.topology, r.ranks, link)};
  }
  ClusterSpec system = resolve_system(r.system, r.nodes, r.sets, r.option("set"));
  read_nccl_options(r, spec.plan);
  Topology topology = build_cluster(system);
  return {spec, std::move(system), std::move(topology)};
}

std::vector<SweepRow> run_collective(const CollectiveRequest& r, const PreparedCollective& prepared) {
  std::vector<SweepRow> rows = sweep_collective(prepared.sweep_spec(), prepared.topology);
  if (!r.calibration.empty()) apply_calibration(r.calibration, prepared.spec.op, prepared.topology, rows);
  return rows;
}

}  // namespace weft
