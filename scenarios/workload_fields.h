// The field tables of a scenario's `workload:` forms, one line per key (sim/core/field_table.h):
// they read the scenario (the readers add only what crosses fields: a rank below the system's
// count, dp from the GPUs, a model by name), list the keys in `weft fields` and are README's tables.
#pragma once

#include <array>
#include <span>

#include "scenarios/scenario.h"
#include "sim/core/field_table.h"

namespace weft {

// `collectives: [{op, size, channels, chunk, root}, ...]`, each item.
std::span<const Field<CollectiveSpec>> collective_fields();
inline constexpr std::array<const char*, 2> kCollectiveRequired = {"op", "size"};  // the keys without a default

// `traffic: KIND` and the keys of the generated patterns (incast, permutation, all_to_all); the
// ranks (`receiver`, `senders`) are read beside them.
std::span<const Field<TrafficSpec>> traffic_fields();
inline constexpr std::array<const char*, 2> kTrafficRequired = {"traffic", "bytes"};  // flows: only traffic

// `flows: [{src, dst, bytes, start, priority}, ...]`, each flow.
std::span<const Field<FlowSpec>> flow_fields();
inline constexpr std::array<const char*, 3> kFlowRequired = {"src", "dst", "bytes"};

// The training step: `model.*` (on top of the catalogue model `model.name`, when given),
// `parallel.*`, `batch.*` and the top-level knobs.
std::span<const Field<TrainingWorkload>> training_fields();

}  // namespace weft
