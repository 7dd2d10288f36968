#include "scenarios/scenario_yaml.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <span>
#include <string_view>

#include "cost/assumption_fields.h"
#include "scenarios/scenario_fields.h"
#include "scenarios/serving_fields.h"
#include "scenarios/trace_workload.h"
#include "scenarios/workload_fields.h"
#include "sim/packet/packet_fields.h"
#include "topologies/metrics.h"
#include "topologies/systems.h"
#include "workloads/traces/trace.h"

namespace weft {
namespace {

// `value` at the dotted key `dotted` of the map `node`, making the maps on the way.
void put(YAML::Node node, std::string_view dotted, const YAML::Node& value) {
  const size_t dot = dotted.find('.');
  if (dot == std::string_view::npos) {
    node[std::string(dotted)] = value;
    return;
  }
  put(node[std::string(dotted.substr(0, dot))], dotted.substr(dot + 1), value);
}

// Every field under `prefix` as a nested map (keys without the prefix); an unset optional is left out.
template <class S>
YAML::Node fields_node(std::span<const Field<S>> fields, const S& object, std::string_view prefix = "") {
  YAML::Node node(YAML::NodeType::Map);
  for (const Field<S>& f : fields) {
    if (!f.key.starts_with(prefix)) continue;
    if (f.number != nullptr && std::isnan(f.number(object))) continue;
    put(node, f.key.substr(prefix.size()), YAML::Node(f.show(object)));
  }
  return node;
}

YAML::Node fabric_node(const Scenario& s) {
  const FabricOptions& o = s.fabric_options;
  if (o.routing == FabricOptions{}.routing && o.pxn == FabricOptions{}.pxn && !o.packet) return YAML::Node(s.fabric);
  YAML::Node node(YAML::NodeType::Map);
  node["model"] = s.fabric;
  for (const auto& entry : fields_node(router_fields(), o)) node[entry.first] = entry.second;
  if (o.packet) {
    for (const auto& entry : fields_node(packet::packet_fields(), *o.packet)) node[entry.first] = entry.second;
  }
  return node;
}

YAML::Node system_node(const SystemSpec& s) {
  if (!s.preset.empty()) {
    YAML::Node node = fields_node(system_fields(), s.cluster);
    YAML::Node out(YAML::NodeType::Map);
    out["name"] = s.preset;
    for (const auto& entry : node) out[entry.first] = entry.second;
    return out;
  }
  return fields_node(custom_system_fields(), s);
}

YAML::Node traffic_node(const TrafficSpec& t) {
  const std::span<const Field<TrafficSpec>> fields = traffic_fields();
  if (t.kind == TrafficKind::flows) {
    YAML::Node node = fields_node(fields.first(1), t);
    for (const FlowSpec& f : t.flows) node["flows"].push_back(fields_node(flow_fields(), f));
    return node;
  }
  YAML::Node node = fields_node(fields, t);
  if (t.kind != TrafficKind::incast) node.remove("stagger");
  if (t.kind != TrafficKind::permutation) node.remove("seed");
  if (t.kind == TrafficKind::incast) {
    node["receiver"] = std::to_string(t.receiver);
    for (uint32_t r : t.senders) node["senders"].push_back(std::to_string(r));
  }
  return node;
}

// A file the scenario named, as an absolute path (it was resolved beside the scenario already).
std::string absolute_path(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

YAML::Node trace_node(const TraceWorkload& t) {
  YAML::Node node = fields_node(trace_fields(), t);
  const TraceSource& s = t.source;
  node["files"] = absolute_path(s.pattern.empty() ? s.files.front() : s.pattern);
  if (!s.comm_group_file.empty()) node["comm_groups"] = absolute_path(s.comm_group_file);
  if (t.scale_to == 0) node.remove("scale_to");                          // the recorded rank count
  node.remove(t.recorded_on.empty() ? "recorded_on" : "compute_scale");  // one or the other
  return node;
}

bool in_catalogue(const std::string& name) {
  for (const ModelConfig& m : models()) {
    if (m.name == name) return true;
  }
  return false;
}

YAML::Node training_node(const TrainingWorkload& t) {
  YAML::Node node(YAML::NodeType::Map);
  if (t.trace) {
    node["trace"] = trace_node(*t.trace);
  } else {
    node = fields_node(training_fields(), t);
    // Every model field is written, so the catalogue entry only keeps its source.
    if (in_catalogue(t.spec.model.name)) node["model"]["name"] = t.spec.model.name;
    if (!t.profile_file.empty()) node["profile"] = absolute_path(t.profile_file);
  }
  node["collective_timing"] = std::string(to_string(t.timing));
  if (!t.calibration_file.empty()) node["calibration"] = absolute_path(t.calibration_file);
  return node;
}

YAML::Node serving_node(const ServingWorkload& w) {
  YAML::Node node = fields_node(serving_fields(), w);
  TrainingWorkload holder;  // the model's table is the training form's model.* keys
  holder.spec.model = w.spec.model;
  node["model"] = fields_node(training_fields(), holder)["model"];
  if (in_catalogue(w.spec.model.name)) node["model"]["name"] = w.spec.model.name;
  node.remove(w.spec.disaggregated.enabled() ? "parallel" : "disaggregated");  // one or the other
  if (!w.trace_file.empty()) {
    for (const char* key : {"arrivals", "rate", "cv", "count", "duration"}) node["requests"].remove(key);
    node["requests"]["trace"] = absolute_path(w.trace_file);
  } else {
    node["requests"]["prompt"] = fields_node(length_fields(), w.stream.prompt);
    node["requests"]["output"] = fields_node(length_fields(), w.stream.output);
  }
  if (!w.profile_file.empty()) node["profile"] = absolute_path(w.profile_file);
  YAML::Node out(YAML::NodeType::Map);
  out["serving"] = node;
  return out;
}

YAML::Node workload_node(const ScenarioWorkload& w) {
  if (const auto* s = std::get_if<ServingWorkload>(&w)) return serving_node(*s);
  if (const auto* c = std::get_if<CollectivesWorkload>(&w)) {
    YAML::Node node(YAML::NodeType::Map);
    for (const CollectiveSpec& item : c->items) node["collectives"].push_back(fields_node(collective_fields(), item));
    return node;
  }
  if (const auto* t = std::get_if<TrafficSpec>(&w)) return traffic_node(*t);
  return training_node(std::get<TrainingWorkload>(w));
}

YAML::Node cost_node(const cost::CostSettings& cost, const cost::PriceBook& defaults) {
  YAML::Node node = fields_node(cost::assumption_fields(), cost.assumptions);
  for (const auto& [key, entry] : cost.prices.entries) {
    auto base = defaults.entries.find(key);
    if (base != defaults.entries.end() && base->second.usd == entry.usd &&
        base->second.usd_per_hour == entry.usd_per_hour && base->second.watts == entry.watts &&
        base->second.source == entry.source) {
      continue;
    }
    const size_t dot = key.find('.');
    YAML::Node item = node["prices"][key.substr(0, dot)][key.substr(dot + 1)];
    item["usd"] = fmt::format("{}", entry.usd);
    item["usd_per_hour"] = fmt::format("{}", entry.usd_per_hour);
    item["watts"] = fmt::format("{}", entry.watts);
    item["source"] = entry.source;
  }
  return node;
}

YAML::Node plan_node(const std::vector<cost::GridAxis>& grid) {
  YAML::Node node(YAML::NodeType::Map);
  for (const cost::GridAxis& axis : grid) {
    for (const std::string& v : axis.values) node["grid"][axis.key].push_back(v);
  }
  return node;
}

YAML::Node plan_node(const Scenario& s) {
  YAML::Node node = plan_node(s.plan_grid);
  if (!s.plan_search.empty()) node["search"] = s.plan_search;
  if (s.plan_top != 5) node["top"] = s.plan_top;
  if (s.plan_isolated != 16) node["isolated"] = s.plan_isolated;
  if (s.plan_min_cp_tokens != 4096) node["min_cp_tokens"] = s.plan_min_cp_tokens;
  return node;
}

YAML::Node scenario_node(const Scenario& s) {
  YAML::Node node = fields_node(scenario_top_fields(), s);
  node["fabric"] = fabric_node(s);
  node["system"] = system_node(s.system);
  node["workload"] = workload_node(s.workload);
  if (s.has_cost_section) node["cost"] = cost_node(s.cost, cost::default_prices());
  const bool plan_defaults = s.plan_top == 5 && s.plan_isolated == 16 && s.plan_min_cp_tokens == 4096;
  if (!s.plan_grid.empty() || !s.plan_search.empty() || !plan_defaults) node["plan"] = plan_node(s);
  return node;
}

std::string text_of(const YAML::Node& node) {
  YAML::Emitter out;
  out << node;
  return out.c_str();
}

// What `variant` sets otherwise than `base`, as dotted keys under `prefix`: a map with the same
// keys is compared key by key; anything else that differs is set whole.
void differences(const YAML::Node& base, const YAML::Node& variant, const std::string& prefix, YAML::Node set) {
  bool same_keys = base.IsMap() && variant.IsMap() && base.size() == variant.size();
  for (const auto& entry : variant) {
    if (!same_keys) break;
    same_keys = static_cast<bool>(base[entry.first.Scalar()]);
  }
  if (!same_keys) {
    if (text_of(base) != text_of(variant)) set[prefix] = variant;
    return;
  }
  for (const auto& entry : variant) {
    const std::string key = entry.first.Scalar();
    differences(base[key], entry.second, prefix.empty() ? key : fmt::format("{}.{}", prefix, key), set);
  }
}

YAML::Node compare_node(const Scenario& s, const YAML::Node& base) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const ScenarioVariant& v : s.compare) {
    YAML::Node variant = scenario_node(*v.scenario);
    variant["name"] = s.name;  // a variant's name is its own key
    YAML::Node item(YAML::NodeType::Map);
    item["name"] = v.name;
    item["set"] = YAML::Node(YAML::NodeType::Map);
    differences(base, variant, "", item["set"]);
    list.push_back(item);
  }
  return list;
}

}  // namespace

std::string scenario_yaml(const Scenario& scenario) {
  YAML::Node node = scenario_node(scenario);
  if (!scenario.compare.empty()) node["compare"] = compare_node(scenario, YAML::Clone(node));
  return text_of(node) + "\n";
}

std::string cost_section_yaml(const cost::CostSettings& cost, const cost::PriceBook& defaults) {
  YAML::Node node;
  node["cost"] = cost_node(cost, defaults);
  return text_of(node) + "\n";
}

std::string plan_grid_yaml(const std::vector<cost::GridAxis>& grid) {
  YAML::Node node;
  node["plan"] = plan_node(grid);
  return text_of(node) + "\n";
}

}  // namespace weft
