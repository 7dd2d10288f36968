// weft topo: build a catalogue system (or a scenario's system) and describe it: a summary, Graphviz
// DOT, JSON with every node and link, or its bill of materials with prices (--bom).
#include <fmt/format.h>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/system_options.h"
#include "cost/bill_of_materials.h"
#include "cost/cost_report.h"
#include "scenarios/cost_section.h"
#include "scenarios/scenario.h"
#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"
#include "topologies/metrics.h"
#include "topologies/routing.h"

namespace weft::cli {
namespace {

struct TopoArgs {
  std::string target;  // preset name or scenario file
  SystemArgs system;
  bool summary = false;  // the default; the flag exists to be explicit
  bool dot = false;
  bool json = false;
  bool bom = false;
};

bool looks_like_file(const std::string& target) {
  return target.ends_with(".yaml") || target.ends_with(".yml") || std::filesystem::exists(target);
}

// What --bom needs besides the topology: the cluster it was built from and the prices (with a
// scenario's cost: section applied).
struct Built {
  Topology topology;
  std::optional<ClusterSpec> cluster;  // absent for a scenario's generic single-switch / ring system
  cost::CostSettings cost;
};

Built build(const TopoArgs& a) {
  if (looks_like_file(a.target)) {
    if (a.system.nodes > 0 || !a.system.sets.empty()) {
      throw ConfigError("topo: --nodes and --set apply to a system name; edit the scenario's system: section instead");
    }
    SystemSpec system = load_scenario_file(a.target).system;
    Built b{build_system(system), std::nullopt, {cost::default_prices(), {}}};
    if (!system.preset.empty()) b.cluster = system.cluster;
    if (a.bom) {
      YamlMap file = YamlMap::load_file(a.target);
      if (file.has("cost")) b.cost = cost::read_cost_section(file.map("cost"));
    }
    return b;
  }
  SystemArgs system = a.system;
  system.system = a.target;
  ClusterSpec cluster = resolve_system(system);
  return {build_cluster(cluster), cluster, {cost::default_prices(), {}}};
}

void print_bom(const TopoArgs& a, const Built& b) {
  if (!b.cluster) {
    throw ConfigError(
        "topo --bom: the scenario's system is a generic topology, not a catalogue system; name one "
        "(system: name: ...) to count and price its parts");
  }
  cost::BillOfMaterials bom = cost::bill_of_materials(b.topology, *b.cluster);
  if (!a.json) return fmt::print("{}", cost::format_bom(bom, &b.cost.prices, b.cost.assumptions));
  nlohmann::ordered_json j{{"bom", cost::bom_json(bom)}};
  std::vector<std::string> missing = cost::missing_prices(bom, b.cost.prices);
  if (missing.empty()) {
    j["cost"] = cost::cost_json(cost::cluster_cost(bom, b.cost.prices, b.cost.assumptions));
  } else {
    j["missing_prices"] = missing;
  }
  fmt::print("{}\n", j.dump(2));
}

std::string rate(Bandwidth b) {
  return fmt::format("{:.1f} GB/s ({:.0f} Gb/s)", b.bytes_per_second() / 1e9, static_cast<double>(b.bps()) / 1e9);
}

std::string counts(const std::map<std::string, uint64_t>& m) {
  std::string out;
  for (const auto& [k, v] : m) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k, v);
  return out;
}

void print_summary(const Topology& t, const TopologySummary& s) {
  fmt::print("{}: {}\n", t.name, t.description);
  fmt::print("nodes:               {}\n", counts(s.nodes));
  fmt::print("cables:              {}\n", counts(s.cables));
  fmt::print("per-GPU scale-up:    {}\n", rate(s.scale_up_per_gpu));
  fmt::print("per-GPU scale-out:   {}\n", rate(s.scale_out_per_gpu));
  fmt::print("bisection bandwidth: {} (GPU ranks [0, n/2) -> [n/2, n))\n", rate(s.bisection));
  fmt::print("diameter:            {} links\n", s.diameter);
  fmt::print("path diversity:      {} equal-cost paths {} -> {}\n", s.path_diversity, t.node(s.diversity_src).name,
             t.node(s.diversity_dst).name);
}

void print_dot(const Topology& t) {
  fmt::print("graph \"{}\" {{\n  node [fontsize=10];\n", t.name);
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    const NodeProps& p = t.node(n);
    const char* shape = p.kind == NodeKind::gpu ? "box" : p.kind == NodeKind::network_switch ? "diamond" : "ellipse";
    fmt::print("  n{} [label=\"{}\" shape={}];\n", n, p.name, shape);
  }
  for (LinkId l = 0; l < t.link_count(); l += 2) {  // duplex cables are laid as consecutive pairs
    const LinkProps& p = t.link(l);
    fmt::print("  n{} -- n{} [label=\"{} {:.0f}G\"];\n", t.link_source(l), t.link_target(l), to_string(p.kind),
               static_cast<double>(p.rate.bps()) / 1e9);
  }
  fmt::print("}}\n");
}

void print_json(const Topology& t, const TopologySummary& s) {
  nlohmann::ordered_json j;
  j["name"] = t.name;
  j["description"] = t.description;
  j["summary"] = {{"nodes", s.nodes},
                  {"cables", s.cables},
                  {"gpus", s.gpus},
                  {"scale_up_per_gpu_bps", s.scale_up_per_gpu.bps()},
                  {"scale_out_per_gpu_bps", s.scale_out_per_gpu.bps()},
                  {"bisection_bps", s.bisection.bps()},
                  {"diameter_links", s.diameter},
                  {"path_diversity", s.path_diversity}};
  auto& nodes = j["nodes"] = nlohmann::ordered_json::array();
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    const NodeProps& p = t.node(n);
    nodes.push_back({{"id", n},
                     {"name", p.name},
                     {"kind", to_string(p.kind)},
                     {"gpu_index", p.gpu_index},
                     {"host", p.host},
                     {"domain", p.domain},
                     {"tier", p.tier},
                     {"plane", p.plane}});
  }
  auto& links = j["links"] = nlohmann::ordered_json::array();
  for (LinkId l = 0; l < t.link_count(); ++l) {
    const LinkProps& p = t.link(l);
    links.push_back({{"id", l},
                     {"src", t.link_source(l)},
                     {"dst", t.link_target(l)},
                     {"kind", to_string(p.kind)},
                     {"rate_bps", p.rate.bps()},
                     {"goodput_bps", p.goodput().bps()},
                     {"latency_ps", p.latency.ps()},
                     {"mtu", p.mtu},
                     {"header_bytes", p.header_bytes}});
  }
  fmt::print("{}\n", j.dump(2));
}

void run(const TopoArgs& a) {
  Built b = build(a);
  if (a.bom) return print_bom(a, b);
  const Topology& t = b.topology;
  if (a.dot) return print_dot(t);
  Router router(t, 1);
  TopologySummary s = summarize(t, router);
  if (a.json) return print_json(t, s);
  print_summary(t, s);
}

}  // namespace

Action add_topo_command(CLI::App& app) {
  auto args = std::make_shared<TopoArgs>();
  CLI::App* cmd = app.add_subcommand("topo", "Build a system (catalogue name or scenario file) and describe it");
  cmd->add_option("system", args->target, "A name from `weft systems`, or a scenario file")->required();
  cmd->add_option("--nodes", args->system.nodes, "Nodes of that system (default 1)")->check(CLI::Range(1, 65536));
  cmd->add_option("--set", args->system.sets, "Change one field: KEY=VALUE, e.g. node.pcie_lanes=8 (repeatable)");
  auto* summary =
      cmd->add_flag("--summary", args->summary, "Counts, injection and bisection bandwidth, diameter (default)");
  auto* dot = cmd->add_flag("--dot", args->dot, "Graphviz DOT of every node and cable");
  auto* json = cmd->add_flag("--json", args->json, "JSON: the summary, every node and every directed link");
  auto* bom = cmd->add_flag("--bom", args->bom,
                            "Bill of materials: parts counted from the built topology, with prices, power and "
                            "cost per GPU-hour (with --json: as JSON)");
  summary->excludes(dot)->excludes(json)->excludes(bom);
  dot->excludes(json)->excludes(bom);
  return [args] { run(*args); };
}

}  // namespace weft::cli
