// A scenario as plain, checked structs: what `weft run` simulates. This first form has a system
// (topology, ranks, link), a fabric model (with the packet fabric's configuration) and a workload:
// a list of collectives or a traffic pattern; DESIGN §7's full format (model workloads, outputs,
// compare: variants) extends it without renaming these keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectives/collective_op.h"
#include "collectives/ring.h"
#include "scenarios/traffic.h"
#include "sim/fabric_registry.h"
#include "topologies/clusters.h"
#include "topologies/topology.h"

namespace weft {

// Either a simple topology (`topology:`, `ranks:`, `link:`) or a catalogue system (`name:` of a
// preset, `nodes:`, and `node:` / `network:` maps overriding any field of it).
struct SystemSpec {
  std::string topology = "single-switch";
  uint32_t ranks = 8;
  LinkSpec link;
  std::string preset;   // set for the catalogue form
  ClusterSpec cluster;  // the preset with the scenario's overrides applied
};

Topology build_system(const SystemSpec& system);

struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes size;
  RingOptions ring;
  std::string where;  // file:line:column, for messages about this item
};

struct Scenario {
  std::string name;
  std::string source;  // the file it came from
  uint64_t seed = 1;
  std::string fabric = "flow";
  FabricOptions fabric_options;  // `fabric: {model: packet, ...}` sets .packet; null = the default profile
  SystemSpec system;
  // The workload: collectives one after another, or a traffic pattern (exactly one of the two).
  std::vector<CollectiveSpec> collectives;
  std::optional<TrafficSpec> traffic;
};

class YamlMap;

// The packet fabric's configuration from a `fabric:` map (`model:` is allowed and left to the
// caller): packet_profile(`profile:`, default "roce") with the map's keys applied, then validated.
packet::PacketConfig read_packet_config(const YamlMap& fabric);

Scenario load_scenario_file(const std::string& path);
Scenario load_scenario_text(const std::string& text, const std::string& source);

// The scenario bundled into the binary (scenarios/default.yaml).
Scenario default_scenario();

}  // namespace weft
