#include "scenarios/field_yaml.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <string_view>

#include "sim/packet/packet_fields.h"
#include "topologies/systems.h"

namespace weft {
namespace {

// One level of the nesting: plain values and sub-maps, in the order keys were first seen.
struct Level {
  std::string name;
  std::string value;  // for a leaf
  std::vector<Level> children;
  bool leaf = true;

  Level& child(std::string_view key) {
    for (Level& c : children) {
      if (c.name == key) return c;
    }
    children.push_back(Level{std::string(key), "", {}, true});
    return children.back();
  }

  void add(std::string_view dotted, const std::string& text) {
    const size_t dot = dotted.find('.');
    if (dot == std::string_view::npos) {
      child(dotted).value = text;
      return;
    }
    Level& section = child(dotted.substr(0, dot));
    section.leaf = false;
    section.add(dotted.substr(dot + 1), text);
  }
};

void emit(YAML::Emitter& out, const Level& level) {
  for (const Level& c : level.children) {
    out << YAML::Key << c.name << YAML::Value;
    if (c.leaf) {
      out << c.value;
      continue;
    }
    out << YAML::BeginMap;
    emit(out, c);
    out << YAML::EndMap;
  }
}

}  // namespace

void require_keys(const YamlMap& m, std::span<const char* const> keys) {
  for (const char* key : keys) {
    if (!m.has(key)) (void)m.string(key);  // throws "missing", naming a near key
  }
}

std::string nested_yaml(const FieldValues& head, const FieldValues& values, const std::vector<std::string>& comments) {
  Level top;
  for (const auto& [key, text] : head) top.add(key, text);
  for (const auto& [key, text] : values) top.add(key, text);
  YAML::Emitter out;
  for (const std::string& line : comments) out << YAML::Comment(line) << YAML::Newline;
  out << YAML::BeginMap;
  emit(out, top);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

namespace {

FieldValues under(const std::string& section, FieldValues values) {
  for (auto& [key, text] : values) key = fmt::format("{}.{}", section, key);
  return values;
}

}  // namespace

std::string system_yaml(const std::string& preset, const ClusterSpec& cluster) {
  return nested_yaml({{"system.name", preset}}, under("system", field_values(system_fields(), cluster)),
                     {fmt::format("every field of {} (weft systems --fields says what each is)", preset)});
}

std::string packet_config_yaml(const packet::PacketConfig& config) {
  return nested_yaml({{"fabric.model", "packet"}}, under("fabric", field_values(packet::packet_fields(), config)), {});
}

}  // namespace weft
