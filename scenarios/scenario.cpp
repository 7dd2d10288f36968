#include "scenarios/scenario.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <array>
#include <limits>
#include <type_traits>

#include "scenarios/default_scenario.h"
#include "scenarios/field_yaml.h"
#include "scenarios/scenario_fields.h"
#include "scenarios/workload_fields.h"
#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"
#include "sim/fabric_registry.h"
#include "sim/packet/packet_fields.h"
#include "topologies/builders.h"
#include "topologies/systems.h"

namespace weft {
namespace {

// `node: {pcie_lanes: 8}` sets node.pcie_lanes, and so on, each error pointing at its line.
void read_overrides(const YamlMap& m, const std::string& section, ClusterSpec& cluster) {
  if (!m.has(section)) return;
  YamlMap sub = m.map(section);
  for (const std::string& key : sub.keys()) {
    std::string value = sub.string(key);
    at(sub.location(key), [&] { set_field(cluster, section + "." + key, value); });
  }
}

SystemSpec read_catalogue_system(const YamlMap& m) {
  SystemSpec s;
  s.preset = m.string("name");
  s.cluster = at(m.location("name"), [&] { return system_spec(s.preset); });
  uint64_t nodes = m.unsigned_integer_or("nodes", 1);
  if (nodes < 1 || nodes > 65536) throw m.error("nodes", "expected 1 to 65536");
  s.cluster.nodes = static_cast<int>(nodes);
  read_overrides(m, "node", s.cluster);
  read_overrides(m, "network", s.cluster);
  at(m.location(), [&] { validate(s.cluster); });
  s.ranks = static_cast<uint32_t>(s.cluster.nodes * s.cluster.node.gpus);
  m.reject_unknown_keys();
  return s;
}

SystemSpec read_system(const YamlMap& m) {
  if (m.has("name")) return read_catalogue_system(m);
  SystemSpec s;
  require_keys(m, std::span(kCustomSystemRequired).first(2));
  read_fields(m, custom_system_fields(), "", s);
  const YamlMap link = m.map("link");
  require_keys(link, std::span(kCustomSystemRequired).last(2));
  read_fields(link, custom_system_fields(), "link.", s);
  link.reject_unknown_keys();
  m.reject_unknown_keys();
  return s;
}

CollectiveSpec read_collective(const YamlMap& m, uint32_t ranks) {
  CollectiveSpec c;
  c.where = m.location();
  require_keys(m, kCollectiveRequired);
  read_fields(m, collective_fields(), "", c);
  if (c.ring.root >= ranks) throw m.error("root", fmt::format("expected a rank below {}", ranks));
  m.reject_unknown_keys();
  return c;
}

// `fabric: flow`, or `fabric: {model: packet, profile: roce, ecn: {...}, ...}`; the map form
// with another model takes only `model:` and the router's keys (`routing:`, `pxn:`).
void read_fabric(const YamlMap& top, Scenario& s) {
  bool map_form = top.is_map("fabric");
  std::optional<YamlMap> m;
  if (map_form) m = top.map("fabric");
  s.fabric = map_form ? m->string_or("model", "packet") : top.string_or("fabric", "flow");
  at(map_form ? m->location("model") : top.location("fabric"), [&] { find_fabric(s.fabric); });
  if (!map_form) return;
  read_fields(*m, router_fields(), "", s.fabric_options);  // the router's keys, for every model
  if (s.fabric == "packet") {
    s.fabric_options.packet = std::make_shared<const packet::PacketConfig>(read_packet_config(*m));
    return;
  }
  for (const std::string& key : m->keys()) {
    if (key == "model" || std::ranges::any_of(router_fields(), [&](const auto& f) { return f.key == key; })) continue;
    throw m->error(key, fmt::format("configures the packet fabric only (this one is model: {})", s.fabric));
  }
}

void read_workload(const YamlMap& w, Scenario& s) {
  if (int{w.has("collectives")} + int{w.has("traffic")} + int{w.has("model")} + int{w.has("trace")} +
          int{w.has("serving")} !=
      1) {
    throw ConfigError(w.location(), "workload",
                      "expected one of model: (a training step), trace: (a traced step), collectives:, traffic: or "
                      "serving: (LLM inference) (exactly one of them)");
  }
  if (w.has("serving")) {
    s.workload = read_serving(w.map("serving"), s.system, s.seed);
  } else if (w.has("model") || w.has("trace")) {
    s.workload = read_training(w, s.system);
  } else if (w.has("traffic")) {
    s.workload = read_traffic(w, s.system.ranks);
  } else {
    CollectivesWorkload collectives;
    for (const YamlMap& item : w.list_of_maps("collectives")) {
      collectives.items.push_back(read_collective(item, s.system.ranks));
    }
    if (collectives.items.empty()) {
      throw w.error("collectives", "expected at least one");
    }
    s.workload = std::move(collectives);
  }
  w.reject_unknown_keys();
}

Scenario read_scenario(const YamlMap& top);

// `compare: [{name: ..., set: {dotted.key: value, ...}}, ...]`: each variant is the whole scenario
// `plan: {grid: {key: [v, ...]}, search: parallel, top: N, isolated: I, min_cp_tokens: T}`: each grid
// key a dotted scenario key, each
// value a scalar as `set:` would take it (checked when `weft plan` sets them, errors at the grid's
// values); `search: parallel` makes `weft plan` search the parallel plan (scenarios/plan_search.h).
void read_plan(const YamlMap& plan, Scenario& s) {
  if (plan.has("grid")) {
    const YamlMap grid = plan.map("grid");
    for (const std::string& key : grid.keys()) {
      cost::GridAxis axis{key, grid.strings(key)};
      if (axis.values.empty()) throw grid.error(key, "expected a list of values");
      s.plan_grid.push_back(std::move(axis));
    }
    grid.reject_unknown_keys();
  }
  if (plan.has("search")) {
    s.plan_search = plan.string("search");
    if (s.plan_search != "parallel")
      throw plan.error("search", fmt::format("expected parallel, got '{}'", s.plan_search));
  }
  const uint64_t top = plan.unsigned_integer_or("top", s.plan_top);
  if (top < 1 || top > 1000) throw plan.error("top", fmt::format("expected 1 to 1000, got {}", top));
  s.plan_top = static_cast<uint32_t>(top);
  const uint64_t isolated = plan.unsigned_integer_or("isolated", s.plan_isolated);
  if (isolated > 100000)
    throw plan.error("isolated", fmt::format("expected 0 (every plan) to 100000, got {}", isolated));
  s.plan_isolated = static_cast<uint32_t>(isolated);
  const uint64_t cp_tokens = plan.unsigned_integer_or("min_cp_tokens", s.plan_min_cp_tokens);
  if (cp_tokens > (uint64_t{1} << 24)) {
    throw plan.error("min_cp_tokens", fmt::format("expected 0 (every cp) to 16777216 tokens, got {}", cp_tokens));
  }
  s.plan_min_cp_tokens = static_cast<uint32_t>(cp_tokens);
  plan.reject_unknown_keys();
}

// read again with those values in place (errors point at the value in `set:`).
std::vector<ScenarioVariant> read_compare(const YamlMap& top) {
  std::vector<ScenarioVariant> variants;
  if (!top.has("compare")) return variants;
  for (const YamlMap& item : top.list_of_maps("compare")) {
    ScenarioVariant v;
    v.name = item.string("name");
    v.where = item.location();
    YamlMap changed = top;
    YamlMap set = item.map("set");
    for (const std::string& key : set.keys()) {
      if (key == "compare" || key.starts_with("compare.")) {
        throw set.error(key, "a variant cannot change the comparison itself");
      }
      changed = changed.with_value(key, set, key);
    }
    set.reject_unknown_keys();
    item.reject_unknown_keys();
    auto scenario = std::make_shared<Scenario>(read_scenario(changed));
    scenario->name = v.name;
    scenario->compare.clear();
    v.scenario = std::move(scenario);
    variants.push_back(std::move(v));
  }
  if (variants.empty()) throw top.error("compare", "expected at least one variant");
  return variants;
}

Scenario read_scenario(const YamlMap& top) {
  Scenario s;
  s.source = top.source();
  s.name = "unnamed";
  read_fields(top, scenario_top_fields(), "", s);
  read_fabric(top, s);
  s.system = read_system(top.map("system"));
  read_workload(top.map("workload"), s);
  s.cost.prices = cost::default_prices();
  if (top.has("cost")) {
    s.cost = cost::read_cost_section(top.map("cost"));
    s.has_cost_section = true;
  }
  if (top.has("plan")) read_plan(top.map("plan"), s);
  if (top.has("compare")) {
    top.list_of_maps("compare");  // read here; each variant re-reads the whole file
  }
  top.reject_unknown_keys();
  return s;
}

}  // namespace

packet::PacketConfig read_packet_config(const YamlMap& m) {
  m.has("model");  // the caller's key
  std::string profile = m.string_or("profile", std::string(packet::default_packet_profile()));
  packet::PacketConfig c = at(m.location("profile"), [&] { return packet::packet_profile(profile); });
  read_field_map(m, packet::packet_fields(), c);
  m.reject_unknown_keys();
  at(m.location(), [&] { packet::validate(c); });
  return c;
}

const std::vector<CollectiveSpec>& Scenario::collectives() const {
  static const std::vector<CollectiveSpec> kNone;
  const auto* c = std::get_if<CollectivesWorkload>(&workload);
  return c ? c->items : kNone;
}

Topology build_system(const SystemSpec& system) {
  if (!system.preset.empty()) return build_cluster(system.cluster);
  return build_topology(system.topology, system.ranks, system.link);
}

namespace {

Scenario read_with_variants(const YamlMap& file, const std::vector<std::string>& sets) {
  YamlMap top = file;
  for (const std::string& set : sets) {
    const size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ConfigError(fmt::format("--set '{}': expected KEY=VALUE, e.g. workload.batch.global=16", set));
    }
    const std::string key = set.substr(0, eq);
    // The value is read as YAML (a number, a word, a {flow: map} or a [list]) and keeps "--set KEY" as
    // its source in messages.
    YamlMap value = YamlMap::parse("value: " + set.substr(eq + 1), "--set " + key);
    top = top.with_value(key, value, "value");
  }
  Scenario s = read_scenario(top);
  s.compare = read_compare(top);
  return s;
}

}  // namespace

Scenario load_scenario_text(const std::string& text, const std::string& source, const std::vector<std::string>& sets) {
  return read_with_variants(YamlMap::parse(text, source), sets);
}

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& sets) {
  return read_with_variants(YamlMap::load_file(path), sets);
}

Scenario default_scenario(const std::vector<std::string>& sets) {
  return load_scenario_text(kDefaultScenarioYaml, "<bundled scenarios/default.yaml>", sets);
}

}  // namespace weft
