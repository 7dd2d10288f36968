// A scenario as plain, checked structs: what `weft run` simulates. A system (a catalogue preset with
// overrides, or a simple topology), a fabric model (with the packet fabric's configuration), a
// workload (a training step of a model under a parallel plan, a list of collectives, or a traffic
// pattern, or LLM inference serving), and `compare:` variants, each the same scenario with some keys set otherwise.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "collectives/collective_op.h"
#include "collectives/ring.h"
#include "cost/plan.h"
#include "scenarios/cost_section.h"
#include "scenarios/serving_reader.h"
#include "scenarios/traffic_reader.h"
#include "scenarios/training_reader.h"
#include "sim/core/errors.h"
#include "sim/fabric_registry.h"
#include "sim/simulation.h"
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
  SourceLocation where;  // for messages about this item
};

// The collectives form of a workload: run one after another, each on an empty fabric.
struct CollectivesWorkload {
  std::vector<CollectiveSpec> items;  // at least one
};

// What a scenario simulates: collectives, a training step, a traffic pattern or LLM serving (exactly
// one).
using ScenarioWorkload = std::variant<CollectivesWorkload, TrainingWorkload, TrafficSpec, ServingWorkload>;

struct Scenario;

// One column of a comparison: the scenario with `set:` applied.
struct ScenarioVariant {
  std::string name;
  SourceLocation where;  // of the variant
  std::shared_ptr<Scenario> scenario;
};

struct Scenario {
  std::string name;
  std::string source;  // the file it came from
  uint64_t seed = 1;
  std::string fabric = "flow";
  FabricOptions fabric_options;  // `fabric: {model: packet, ...}` sets .packet; null = the default profile

  // The fabric, the seed and the fabric's and router's options, as a Simulation takes them.
  SimulationSetup simulation() const { return {fabric, seed, fabric_options}; }
  SystemSpec system;
  ScenarioWorkload workload;
  // The workload's form when it is that form, else null (or, for collectives, an empty list).
  const TrainingWorkload* training() const { return std::get_if<TrainingWorkload>(&workload); }
  const TrafficSpec* traffic() const { return std::get_if<TrafficSpec>(&workload); }
  const ServingWorkload* serving() const { return std::get_if<ServingWorkload>(&workload); }
  const std::vector<CollectiveSpec>& collectives() const;
  // `compare:` variants, run after this one (the baseline) and shown side by side.
  std::string baseline = "baseline";  // the baseline's column name (`compare_baseline:`)
  std::vector<ScenarioVariant> compare;
  // `cost:` (scenarios/cost_section.h): prices over the bundled book and the assumptions; defaults when
  // absent. A missing price is an error only when the scenario has a cost: section.
  cost::CostSettings cost;
  bool has_cost_section = false;
  // `plan: {grid: {dotted.key: [values...]}}`: the configurations `weft plan` searches besides the
  // compare: variants.
  std::vector<cost::GridAxis> plan_grid;
  // `plan: {search: parallel, top: N, isolated: I, min_cp_tokens: T}`: `weft plan` searches the parallel
  // plan, the best I of the screen ranked with isolated collectives, N simulated again, cp only while
  // each rank keeps T tokens (scenarios/plan_search.h).
  std::string plan_search;
  uint32_t plan_top = 5;
  uint32_t plan_isolated = 16;
  uint32_t plan_min_cp_tokens = 4096;
};

class YamlMap;

// The packet fabric's configuration from a `fabric:` map (`model:` is allowed and left to the
// caller): packet_profile(`profile:`, default "roce") with the map's keys applied, then validated.
packet::PacketConfig read_packet_config(const YamlMap& fabric);

// `sets` are command-line changes, "dotted.key=value" (`weft run --set workload.batch.global=16`),
// laid over the file before it is read, so the base and every variant see them.
Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& sets = {});
Scenario load_scenario_text(const std::string& text, const std::string& source,
                            const std::vector<std::string>& sets = {});

// The scenario bundled into the binary (scenarios/default.yaml).
Scenario default_scenario(const std::vector<std::string>& sets = {});

}  // namespace weft
