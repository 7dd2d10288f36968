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
#include "collectives/sweep.h"
#include "cost/bill_of_materials.h"
#include "cost/cluster_cost.h"
#include "cost/cost_report.h"
#include "cost/prices.h"
#include "scenarios/collective_request.h"
#include "scenarios/ep_request.h"
#include "scenarios/reduction_report.h"
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

// A catalogue system with nodes= and set= applied, as `weft collective --system` resolves it.
ClusterSpec resolve(const std::string& name, int nodes, const std::vector<std::string>& sets) {
  return resolve_system(name, nodes, sets, "set");
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

// The sweep `weft collective` runs for the same request; the rows and the header's facts.
py::dict collective(CollectiveRequest request) {
  request.command_line = false;
  std::vector<SweepRow> rows;
  uint32_t ranks = 0;
  CollectiveOp op{};
  {
    py::gil_scoped_release release;
    const PreparedCollective prepared = prepare_collective(request);
    rows = run_collective(request, prepared);
    ranks = static_cast<uint32_t>(prepared.topology.gpus().size());
    op = prepared.spec.op;
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
  out["op"] = std::string(to_string(op));
  return out;
}

// `weft ep`: each phase's time, DeepEP's bandwidth and rank 0's bytes, as columns.
py::dict ep(EpRequest request) {
  request.command_line = false;
  EpReport report;
  {
    py::gil_scoped_release release;
    report = run_ep(request);
  }
  std::vector<std::string> phase, counted_as;
  std::vector<double> time_us, bandwidth, nvlink, network;
  for (const EpPhaseResult& p : report.phases) {
    phase.push_back(p.phase), time_us.push_back(p.time.microseconds()), bandwidth.push_back(p.bandwidth_GBps);
    counted_as.push_back(p.counted_as), nvlink.push_back(p.nvlink_bytes), network.push_back(p.network_bytes);
  }
  py::dict out;
  out["phase"] = phase, out["time_us"] = time_us, out["bandwidth_GBps"] = bandwidth, out["counted_as"] = counted_as;
  out["nvlink_bytes_per_rank"] = nvlink, out["network_bytes_per_rank"] = network;
  out["ranks"] = report.ranks, out["nodes"] = report.spec.nodes;
  out["node_probability"] = report.node_probability, out["rank_probability"] = report.rank_probability;
  return out;
}

// `weft collective --system NAME --reduction-order`'s report, as text.
std::string reduction_order(const std::string& system, int nodes, const std::vector<std::string>& sets,
                            const std::string& min_bytes, const std::string& max_bytes, uint64_t factor,
                            const ReductionReportOptions& options) {
  CollectiveRequest r;
  r.command_line = false;
  r.system = system, r.nodes = nodes, r.sets = sets;
  r.min_bytes = min_bytes, r.max_bytes = max_bytes, r.factor = factor, r.seed = options.seed;
  py::gil_scoped_release release;
  return reduction_order_report(prepare_collective(r), options);
}

// weft.ep's core: `weft ep` with Python's keywords.
void bind_ep(py::module_& m) {
  m.def(
      "ep",
      [](std::string system, int nodes, std::vector<std::string> sets, std::string kernel, std::string phase,
         uint32_t tokens, uint32_t hidden, uint32_t experts, uint32_t topk, uint32_t topk_groups, std::string fabric,
         uint64_t seed) {
        EpRequest r;
        r.system = std::move(system), r.nodes = nodes, r.sets = std::move(sets), r.kernel = std::move(kernel);
        r.phase = std::move(phase), r.fabric = std::move(fabric), r.seed = seed;
        r.routing = {tokens, hidden, experts, topk, topk_groups};
        return ep(std::move(r));
      },
      py::arg("system"), py::arg("nodes") = 0, py::arg("sets") = std::vector<std::string>{},
      py::arg("kernel") = "normal", py::arg("phase") = "both", py::arg("tokens") = 4096, py::arg("hidden") = 7168,
      py::arg("experts") = 256, py::arg("topk") = 8, py::arg("topk_groups") = 0, py::arg("fabric") = "flow",
      py::arg("seed") = 1);
}

}  // namespace

void bind_systems(py::module_& m) {
  m.def(
      "reduction_order",
      [](const std::string& system, int nodes, const std::vector<std::string>& sets, const std::string& min_bytes,
         const std::string& max_bytes, uint64_t factor, uint64_t elements, bool heavy_tailed, uint64_t seed) {
        return reduction_order(system, nodes, sets, min_bytes, max_bytes, factor,
                               {.elements = elements, .seed = seed, .heavy_tailed = heavy_tailed});
      },
      py::arg("system"), py::arg("nodes") = 0, py::arg("sets") = std::vector<std::string>{}, py::arg("min_bytes") = "8",
      py::arg("max_bytes") = "128M", py::arg("factor") = 8, py::arg("elements") = 65536,
      py::arg("heavy_tailed") = false, py::arg("seed") = 1,
      "weft collective --reduction-order's report (issue 21), as text");
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
  bind_ep(m);
  m.def("bom", &bom, py::arg("name"), py::arg("nodes") = 0, py::arg("sets") = std::vector<std::string>{});
  m.def(
      "collective",
      [](std::string op, std::string min_bytes, std::string max_bytes, uint64_t factor, std::string fabric,
         std::string system, int nodes, std::vector<std::string> sets, std::string topology, uint32_t ranks,
         std::string link_rate, std::string latency, uint32_t channels, std::string chunk, std::string algo,
         std::string proto, std::string nccl_version, uint64_t seed, bool pxn, std::string routing,
         std::string calibration, uint32_t gpus_per_thread) {
        CollectiveRequest r;
        r.op = std::move(op), r.min_bytes = std::move(min_bytes), r.max_bytes = std::move(max_bytes);
        r.factor = factor, r.fabric = std::move(fabric), r.seed = seed, r.pxn = pxn, r.routing = std::move(routing);
        r.system = std::move(system), r.nodes = nodes, r.sets = std::move(sets), r.topology = std::move(topology);
        r.ranks = ranks, r.link_rate = std::move(link_rate), r.latency = std::move(latency);
        r.channels = channels, r.chunk = std::move(chunk), r.algo = std::move(algo), r.proto = std::move(proto);
        r.nccl_version = std::move(nccl_version), r.calibration = std::move(calibration);
        r.gpus_per_thread = gpus_per_thread;
        return collective(std::move(r));
      },
      py::arg("op"), py::arg("min_bytes"), py::arg("max_bytes"), py::arg("factor") = 2, py::arg("fabric") = "flow",
      py::arg("system") = "", py::arg("nodes") = 0, py::arg("sets") = std::vector<std::string>{},
      py::arg("topology") = "single-switch", py::arg("ranks") = 8, py::arg("link_rate") = "400Gbps",
      py::arg("latency") = "1us", py::arg("channels") = 0, py::arg("chunk") = "0", py::arg("algo") = "",
      py::arg("proto") = "", py::arg("nccl_version") = "", py::arg("seed") = 1, py::arg("pxn") = false,
      py::arg("routing") = "ecmp", py::arg("calibration") = "", py::arg("gpus_per_thread") = 1);
}

}  // namespace weft::python
