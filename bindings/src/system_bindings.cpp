// The system catalogue, built topologies as node/link columns, bills of materials with prices, and
// nccl-tests-style collective sweeps: what `weft systems`, `weft topo` and `weft collective` print,
// as values for pandas.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bindings/src/bindings.h"
#include "collectives/nccl_model.h"
#include "collectives/plan.h"
#include "collectives/sweep.h"
#include "cost/bill_of_materials.h"
#include "cost/cluster_cost.h"
#include "cost/cost_report.h"
#include "cost/prices.h"
#include "sim/core/errors.h"
#include "sim/fabric_registry.h"
#include "topologies/builders.h"
#include "topologies/clusters.h"
#include "topologies/metrics.h"
#include "topologies/routing.h"
#include "topologies/systems.h"

namespace py = pybind11;

namespace weft::python {
namespace {

// A catalogue system with --nodes and --set applied, as `weft collective --system` resolves it.
ClusterSpec resolve(const std::string& name, int nodes, const std::vector<std::string>& sets) {
  ClusterSpec spec = system_spec(name);
  if (nodes > 0) spec.nodes = nodes;
  for (const std::string& set : sets) {
    const size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError("set: '" + set + "' is not KEY=VALUE (e.g. node.pcie_lanes=8)");
    }
    set_field(spec, std::string_view(set).substr(0, eq), std::string_view(set).substr(eq + 1));
  }
  return spec;
}

// A generic topology (single-switch | ring) of `ranks` GPUs, every link `rate` / `latency`.
Topology generic(const std::string& name, uint32_t ranks, const std::string& rate, const std::string& latency) {
  LinkSpec link{LinkKind::generic, parse_bandwidth(rate, "link_rate"), parse_time(latency, "latency")};
  return build_topology(name, ranks, link);
}

bool is_preset(const std::string& name) {
  for (const SystemPreset& p : system_presets()) {
    if (p.name == name) return true;
  }
  return false;
}

py::list systems() {
  py::list out;
  for (const SystemPreset& p : system_presets())
    out.append(py::make_tuple(std::string(p.name), std::string(p.description)));
  return out;
}

py::dict topology_columns(const Topology& t) {
  py::dict nodes, links, out;
  std::vector<std::string> name, kind;
  std::vector<int> gpu, host, domain, local, tier, plane;
  for (size_t n = 0; n < t.node_count(); ++n) {
    const NodeProps& p = t.node(static_cast<NodeIndex>(n));
    name.push_back(p.name), kind.emplace_back(to_string(p.kind)), gpu.push_back(p.gpu_index);
    host.push_back(p.host), domain.push_back(p.domain), local.push_back(p.local_index);
    tier.push_back(p.tier), plane.push_back(p.plane);
  }
  nodes["name"] = name, nodes["kind"] = kind, nodes["gpu_index"] = gpu, nodes["host"] = host;
  nodes["domain"] = domain, nodes["local_index"] = local, nodes["tier"] = tier, nodes["plane"] = plane;
  std::vector<uint32_t> src, dst, mtu, header, generation, lanes;
  std::vector<std::string> link_kind;
  std::vector<double> gbps, goodput, latency_ns;
  for (LinkId l = 0; l < t.link_count(); ++l) {
    const LinkProps& p = t.link(l);
    src.push_back(static_cast<uint32_t>(t.link_source(l))), dst.push_back(static_cast<uint32_t>(t.link_target(l)));
    link_kind.emplace_back(to_string(p.kind)), gbps.push_back(static_cast<double>(p.rate.bps()) / 1e9);
    goodput.push_back(static_cast<double>(p.goodput().bps()) / 1e9),
        latency_ns.push_back(p.latency.microseconds() * 1e3);
    mtu.push_back(p.mtu), header.push_back(p.header_bytes), generation.push_back(p.generation),
        lanes.push_back(p.lanes);
  }
  links["src"] = src, links["dst"] = dst, links["kind"] = link_kind, links["rate_gbps"] = gbps;
  links["goodput_gbps"] = goodput, links["latency_ns"] = latency_ns, links["mtu"] = mtu;
  links["header_bytes"] = header, links["generation"] = generation, links["lanes"] = lanes;
  out["name"] = t.name, out["description"] = t.description, out["nodes"] = nodes, out["links"] = links;
  out["gpus"] = t.gpus().size();
  out["bisection_gbps"] = static_cast<double>(bisection_bandwidth(t).bps()) / 1e9;
  return out;
}

py::dict topology(const std::string& name, int nodes, const std::vector<std::string>& sets, uint32_t ranks,
                  const std::string& rate, const std::string& latency) {
  std::optional<Topology> t;
  {
    py::gil_scoped_release release;
    t = is_preset(name) ? build_cluster(resolve(name, nodes, sets)) : generic(name, ranks, rate, latency);
  }
  return topology_columns(*t);
}

// The bill of materials with the bundled prices: JSON texts of `weft topo NAME --bom --json`.
py::dict bom(const std::string& name, int nodes, const std::vector<std::string>& sets) {
  ClusterSpec spec = resolve(name, nodes, sets);
  cost::BillOfMaterials b = cost::bill_of_materials(build_cluster(spec), spec);
  cost::PriceBook prices = cost::default_prices();
  py::dict out;
  out["bom"] = cost::bom_json(b).dump();
  std::vector<std::string> missing = cost::missing_prices(b, prices);
  out["missing"] = missing;
  out["cost"] = missing.empty() ? cost::cost_json(cost::cluster_cost(b, prices, {})).dump() : std::string("null");
  return out;
}

struct CollectiveArgs {
  std::string op, min_bytes, max_bytes, fabric, system, topology, rate, latency, algo, proto, version, routing, chunk;
  uint64_t factor = 2, seed = 1;
  int nodes = 0;
  uint32_t ranks = 8, channels = 0;  // channels 0: NCCL's tuner picks (catalogue) / 1 ring (generic)
  bool pxn = false;
  std::vector<std::string> sets;
};

// Mirrors cli/collective_command.cpp: a catalogue system runs NCCL's pick per size, a generic
// topology ring algorithms on `channels` rings. Returns the rows and the header's facts.
py::dict collective(const CollectiveArgs& a) {
  SweepSpec spec;
  spec.op = parse_collective_op(a.op, "op");
  spec.min_bytes = parse_bytes(a.min_bytes, "min_bytes");
  spec.max_bytes = parse_bytes(a.max_bytes, "max_bytes");
  spec.factor = a.factor;
  spec.fabric = a.fabric;
  spec.seed = a.seed;
  spec.ring.channels = a.channels == 0 ? 1 : a.channels;
  spec.ring.chunk = parse_bytes(a.chunk, "chunk");
  spec.pxn = a.pxn;
  spec.routing = parse_routing_policy(a.routing);
  find_fabric(a.fabric);
  const bool catalogue = !a.system.empty();
  if (!catalogue && (!a.algo.empty() || !a.proto.empty() || !a.version.empty())) {
    throw ConfigError("algo, proto and nccl_version need a catalogue system (system=NAME)");
  }
  ClusterSpec cluster = catalogue ? resolve(a.system, a.nodes, a.sets) : ClusterSpec{};
  std::vector<SweepRow> rows;
  uint32_t ranks = 0;
  {
    py::gil_scoped_release release;
    Topology t = catalogue ? build_cluster(cluster) : generic(a.topology, a.ranks, a.rate, a.latency);
    if (catalogue) {
      spec.system = &cluster;
      if (!a.algo.empty()) spec.plan.overrides.algorithm = parse_algorithm(a.algo, "algo");
      if (!a.proto.empty()) spec.plan.overrides.protocol = parse_protocol(a.proto, "proto");
      if (a.channels > 0) spec.plan.overrides.min_channels = spec.plan.overrides.max_channels = a.channels;
      spec.plan.version = a.version;
      nccl_version(a.version);
    }
    rows = sweep_collective(spec, t);
    ranks = static_cast<uint32_t>(t.gpus().size());
  }
  std::vector<uint64_t> size, count, transfers;
  std::vector<double> time_us, algbw, busbw;
  std::vector<std::string> algorithm, note;
  for (const SweepRow& r : rows) {
    size.push_back(r.size.count()), count.push_back(r.count), time_us.push_back(r.time.microseconds());
    algbw.push_back(r.algbw_GBps), busbw.push_back(r.busbw_GBps), transfers.push_back(r.transfers);
    algorithm.push_back(r.algorithm), note.push_back(r.note);
  }
  py::dict out;
  out["size"] = size, out["count"] = count, out["time_us"] = time_us, out["algbw_GBps"] = algbw;
  out["busbw_GBps"] = busbw, out["transfers"] = transfers, out["algorithm"] = algorithm, out["note"] = note;
  out["ranks"] = ranks;
  out["op"] = std::string(to_string(spec.op));
  return out;
}

}  // namespace

void bind_systems(py::module_& m) {
  m.def("systems", &systems, "(name, description) of every catalogue system");
  m.def(
      "override_keys",
      [] {
        std::vector<std::string> keys;
        for (std::string_view k : override_keys()) keys.emplace_back(k);
        return keys;
      },
      "the dotted fields a catalogue system's spec accepts (node.*, network.*, nodes)");
  m.def(
      "fabrics", [] { return fabric_names(); }, "the fabric models, as text");
  m.def("topology", &topology, py::arg("name"), py::arg("nodes") = 0, py::arg("sets") = std::vector<std::string>{},
        py::arg("ranks") = 8, py::arg("link_rate") = "400Gbps", py::arg("latency") = "1us");
  m.def("bom", &bom, py::arg("name"), py::arg("nodes") = 0, py::arg("sets") = std::vector<std::string>{});
  m.def(
      "collective",
      [](std::string op, std::string min_bytes, std::string max_bytes, uint64_t factor, std::string fabric,
         std::string system, int nodes, std::vector<std::string> sets, std::string topology, uint32_t ranks,
         std::string link_rate, std::string latency, uint32_t channels, std::string chunk, std::string algo,
         std::string proto, std::string nccl_version, uint64_t seed, bool pxn, std::string routing) {
        CollectiveArgs a{op,           min_bytes, max_bytes, fabric, system, topology, link_rate, latency,  algo, proto,
                         nccl_version, routing,   chunk,     factor, seed,   nodes,    ranks,     channels, pxn,  sets};
        return collective(a);
      },
      py::arg("op"), py::arg("min_bytes"), py::arg("max_bytes"), py::arg("factor") = 2, py::arg("fabric") = "flow",
      py::arg("system") = "", py::arg("nodes") = 0, py::arg("sets") = std::vector<std::string>{},
      py::arg("topology") = "single-switch", py::arg("ranks") = 8, py::arg("link_rate") = "400Gbps",
      py::arg("latency") = "1us", py::arg("channels") = 0, py::arg("chunk") = "0", py::arg("algo") = "",
      py::arg("proto") = "", py::arg("nccl_version") = "", py::arg("seed") = 1, py::arg("pxn") = false,
      py::arg("routing") = "ecmp");
}

}  // namespace weft::python
