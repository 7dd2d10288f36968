// A scenario's traffic pattern (`workload: {traffic: KIND, ...}`), read through the YAML door into
// the workload layer's TrafficSpec.
#pragma once

#include <cstdint>

#include "workloads/traffic.h"

namespace weft {

class YamlMap;

// Reads `traffic:` and its sibling keys from the workload map, checking ranks against `ranks`.
// The caller rejects the workload map's unknown keys.
TrafficSpec read_traffic(const YamlMap& workload, uint32_t ranks);

}  // namespace weft
