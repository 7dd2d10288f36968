// Builders: free functions from a small spec to a Topology. The full catalogue (HGX, DGX, PCIe
// boxes, fat-trees) extends this file's pattern.
#pragma once

#include <cstdint>
#include <string_view>

#include "topologies/topology.h"

namespace weft {

// n GPUs, each with one full-duplex link to one non-blocking switch: a transfer crosses two links.
Topology single_switch(uint32_t gpus, const LinkSpec& link);

// n GPUs in a bidirectional ring, GPU i cabled to GPU (i+1) mod n. With n = 2 there is one cable.
Topology ring(uint32_t gpus, const LinkSpec& link);

}  // namespace weft

namespace weft {

// Names accepted by build_topology (for --help and error messages).
inline constexpr const char* kTopologyNames[] = {"single-switch", "ring"};

// Builds a named topology; throws ConfigError naming the known topologies for an unknown name.
Topology build_topology(std::string_view name, uint32_t gpus, const LinkSpec& link);

}  // namespace weft
