// A struct read from, and written as, the YAML map of its field table: every field under its dotted
// key, nested ("pfc.quanta" as `pfc: {quanta: ...}`). Reading sets the fields a map holds (each
// error at its line); writing goes through yaml-cpp's emitter. What the readers read back is what
// was written (tests/scenarios/test_config_round_trip.cpp).
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"
#include "sim/core/field_table.h"
#include "sim/packet/packet_config.h"
#include "topologies/clusters.h"

namespace weft {

// (dotted key, value as text), in the order they are written.
using FieldValues = std::vector<std::pair<std::string, std::string>>;

// Throws at the first of `keys` that `m` lacks ("missing", with a typo hint when one is near).
void require_keys(const YamlMap& m, std::span<const char* const> keys);

// Sets each field under `prefix` ("ecn." for a section, "" for the top level) whose key `m` holds;
// the keys of deeper sections are left to theirs. Keys the table does not know are left for the
// caller's reject_unknown_keys().
template <class S>
void read_fields(const YamlMap& m, std::span<const Field<S>> fields, std::string_view prefix, S& object) {
  for (const Field<S>& f : fields) {
    if (!f.key.starts_with(prefix)) continue;
    const std::string key(f.key.substr(prefix.size()));
    if (key.find('.') != std::string::npos || !m.has(key)) continue;  // another section's, or absent
    const std::string text = m.string(key);
    at(m.location(key), [&] { f.set(object, key, text); });
  }
}

// `m` as the whole map of `fields`: each section (`ecn:`, `pfc:`, ...) that is present, its unknown
// keys rejected, then the top level (whose unknown keys are the caller's to reject).
template <class S>
void read_field_map(const YamlMap& m, std::span<const Field<S>> fields, S& object) {
  std::vector<std::string> sections;
  for (const Field<S>& f : fields) {
    const size_t dot = f.key.find('.');
    if (dot == std::string_view::npos) continue;
    std::string name(f.key.substr(0, dot));
    if (std::find(sections.begin(), sections.end(), name) == sections.end()) sections.push_back(std::move(name));
  }
  for (const std::string& name : sections) {
    if (!m.has(name)) continue;
    const YamlMap sub = m.map(name);
    read_fields(sub, fields, name + ".", object);
    sub.reject_unknown_keys();
  }
  read_fields(m, fields, "", object);
}

template <class S>
FieldValues field_values(std::span<const Field<S>> fields, const S& object) {
  FieldValues out;
  for (const Field<S>& f : fields) out.emplace_back(std::string(f.key), f.show(object));
  return out;
}

// `values` as one YAML block map; keys that share a first part go under it, in first-seen order.
// `head` are plain keys written first (e.g. {"name", "dgx-h100"}); comments go above the map.
std::string nested_yaml(const FieldValues& head, const FieldValues& values, const std::vector<std::string>& comments);

// A scenario's `system:` section holding every field of `cluster` over the preset `preset`: what
// `weft systems --system NAME --yaml` prints, to start a custom system from.
std::string system_yaml(const std::string& preset, const ClusterSpec& cluster);

// A scenario's `fabric:` section holding every field of the packet configuration (`model: packet`).
std::string packet_config_yaml(const packet::PacketConfig& config);

}  // namespace weft
