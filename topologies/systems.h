// The system catalogue: named presets of real machines and clusters (`weft systems`), each a
// ClusterSpec a user can take as is (`--system dgx-h100 --nodes 4`) and change field by field
// (`--set node.pcie_lanes=8`, and in scenarios).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "sim/core/field_table.h"
#include "topologies/clusters.h"

namespace weft {

struct SystemPreset {
  std::string_view name;
  std::string_view description;  // one line
  ClusterSpec (*spec)();         // the preset's spec, for one node unless the system is a cluster shape
};

std::span<const SystemPreset> system_presets();

// The named preset's spec; throws ConfigError listing the known names (and the closest) otherwise.
ClusterSpec system_spec(std::string_view name);

// Sets one field by its dotted name ("nodes", "node.gpu", "network.port_gbps", ...) from text;
// throws ConfigError naming the key and what was expected. override_keys() lists the keys.
void set_field(ClusterSpec& spec, std::string_view key, std::string_view value);
std::span<const std::string_view> override_keys();
// The same fields with their unit, what each is and how to show its value (`weft systems --fields`).
std::span<const Field<ClusterSpec>> system_fields();

// A catalogue system with `nodes` (0 = the preset's) and every "KEY=VALUE" of `sets` applied, as
// the command line's --system/--nodes/--set and Python's system=/nodes=/set= give them; a set that
// is not KEY=VALUE is a ConfigError naming `set_option` (the option's spelling: "--set", "set").
ClusterSpec resolve_system(std::string_view name, int nodes, std::span<const std::string> sets,
                           std::string_view set_option);

}  // namespace weft
