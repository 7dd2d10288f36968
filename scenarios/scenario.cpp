#include "scenarios/scenario.h"

#include <fmt/format.h>

#include "scenarios/default_scenario.h"
#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"
#include "sim/fabric_registry.h"
#include "topologies/builders.h"
#include "topologies/systems.h"

namespace weft {
namespace {

LinkKind parse_link_kind(const YamlMap& m, const std::string& key) {
  std::string s = m.string_or(key, "generic");
  if (s == "generic") return LinkKind::generic;
  if (s == "nvlink") return LinkKind::nvlink;
  if (s == "pcie") return LinkKind::pcie;
  if (s == "infiniband") return LinkKind::infiniband;
  if (s == "ethernet") return LinkKind::ethernet;
  throw ConfigError(fmt::format("{}: {}: unknown link kind '{}' (expected generic, nvlink, pcie, infiniband or ethernet)",
                                m.where(key), key, s));
}

// `node: {pcie_lanes: 8}` sets node.pcie_lanes, and so on, each error pointing at its line.
void read_overrides(const YamlMap& m, const std::string& section, ClusterSpec& cluster) {
  if (!m.has(section)) return;
  YamlMap sub = m.map(section);
  for (const std::string& key : sub.keys()) {
    std::string value = sub.string(key);
    try {
      set_field(cluster, section + "." + key, value);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("{}: {}", sub.where(key), e.what()));
    }
  }
}

SystemSpec read_catalogue_system(const YamlMap& m) {
  SystemSpec s;
  s.preset = m.string("name");
  try {
    s.cluster = system_spec(s.preset);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", m.where("name"), e.what()));
  }
  uint64_t nodes = m.unsigned_integer_or("nodes", 1);
  if (nodes < 1 || nodes > 65536) throw ConfigError(fmt::format("{}: nodes: expected 1 to 65536", m.where("nodes")));
  s.cluster.nodes = static_cast<int>(nodes);
  read_overrides(m, "node", s.cluster);
  read_overrides(m, "network", s.cluster);
  try {
    validate(s.cluster);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", m.where(), e.what()));
  }
  s.ranks = static_cast<uint32_t>(s.cluster.nodes * s.cluster.node.gpus);
  m.reject_unknown_keys();
  return s;
}

SystemSpec read_system(const YamlMap& m) {
  if (m.has("name")) return read_catalogue_system(m);
  SystemSpec s;
  s.topology = m.string("topology");
  if (s.topology != "single-switch" && s.topology != "ring") {
    throw ConfigError(fmt::format("{}: topology: unknown topology '{}' (expected single-switch or ring)",
                                  m.where("topology"), s.topology));
  }
  uint64_t ranks = m.unsigned_integer("ranks");
  if (ranks < 1 || ranks > (1u << 20)) throw ConfigError(fmt::format("{}: ranks: expected 1 to 1048576", m.where("ranks")));
  s.ranks = static_cast<uint32_t>(ranks);
  YamlMap link = m.map("link");
  s.link.rate = link.bandwidth("rate");
  s.link.latency = link.time("latency");
  s.link.kind = parse_link_kind(link, "kind");
  link.reject_unknown_keys();
  m.reject_unknown_keys();
  return s;
}

CollectiveSpec read_collective(const YamlMap& m, uint32_t ranks) {
  CollectiveSpec c;
  c.where = m.where();
  c.op = parse_collective_op(m.string("op"), m.where("op") + ": op");
  c.size = m.bytes("size");
  uint64_t channels = m.unsigned_integer_or("channels", 1);
  if (channels < 1 || channels > 64) throw ConfigError(fmt::format("{}: channels: expected 1 to 64", m.where("channels")));
  c.ring.channels = static_cast<uint32_t>(channels);
  c.ring.chunk = m.bytes_or("chunk", Bytes());
  uint64_t root = m.unsigned_integer_or("root", 0);
  if (root >= ranks) throw ConfigError(fmt::format("{}: root: expected a rank below {}", m.where("root"), ranks));
  c.ring.root = static_cast<uint32_t>(root);
  m.reject_unknown_keys();
  return c;
}

Scenario read_scenario(const YamlMap& top) {
  Scenario s;
  s.source = top.source();
  s.name = top.string_or("name", "unnamed");
  s.seed = top.unsigned_integer_or("seed", 1);
  s.fabric = top.string_or("fabric", "flow");
  try {
    find_fabric(s.fabric);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", top.where("fabric"), e.what()));
  }
  s.system = read_system(top.map("system"));
  YamlMap workload = top.map("workload");
  for (const YamlMap& item : workload.list_of_maps("collectives")) s.collectives.push_back(read_collective(item, s.system.ranks));
  if (s.collectives.empty()) throw ConfigError(fmt::format("{}: collectives: expected at least one", workload.where("collectives")));
  workload.reject_unknown_keys();
  top.reject_unknown_keys();
  return s;
}

}  // namespace

Topology build_system(const SystemSpec& system) {
  if (!system.preset.empty()) return build_cluster(system.cluster);
  return build_topology(system.topology, system.ranks, system.link);
}

Scenario load_scenario_text(const std::string& text, const std::string& source) {
  return read_scenario(YamlMap::parse(text, source));
}

Scenario load_scenario_file(const std::string& path) { return read_scenario(YamlMap::load_file(path)); }

Scenario default_scenario() { return load_scenario_text(kDefaultScenarioYaml, "<bundled scenarios/default.yaml>"); }

}  // namespace weft
