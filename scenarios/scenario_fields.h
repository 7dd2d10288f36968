// The field tables of a scenario's small maps, one line per key (sim/core/field_table.h): the top
// level (`name`, `seed`, `compare_baseline`), the custom system form (`system: {topology, ranks,
// link: {...}}`) and the router's keys of `fabric:` (`routing`, `pxn`). They read the scenario,
// write it back (`weft validate --resolved`) and list the keys in `weft fields`.
#pragma once

#include <array>
#include <span>

#include "scenarios/scenario.h"
#include "sim/core/field_table.h"
#include "sim/fabric_registry.h"

namespace weft {

// `name:`, `seed:`, `compare_baseline:` (the rest of the top level are sections of their own).
std::span<const Field<Scenario>> scenario_top_fields();

// `system: {topology: single-switch | ring, ranks: N, link: {kind, rate, latency}}`.
std::span<const Field<SystemSpec>> custom_system_fields();
inline constexpr std::array<const char*, 4> kCustomSystemRequired = {"topology", "ranks", "rate", "latency"};

// The router's keys of a `fabric:` map, for every model: `routing:`, `pxn:`.
std::span<const Field<FabricOptions>> router_fields();

}  // namespace weft
