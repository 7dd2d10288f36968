// A struct written as the YAML map its field table reads: every field's shown value under its
// dotted key, nested ("pfc.quanta" as `pfc: {quanta: ...}`), through yaml-cpp's emitter. What the
// readers read back is what was written (tests/scenarios/test_config_round_trip.cpp).
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/field_table.h"
#include "sim/packet/packet_config.h"
#include "topologies/clusters.h"

namespace weft {

// (dotted key, value as text), in the order they are written.
using FieldValues = std::vector<std::pair<std::string, std::string>>;

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
