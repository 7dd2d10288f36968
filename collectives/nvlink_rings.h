// Rings through direct NVLink cables (a DGX-1's hybrid cube mesh, bridged pairs), as NCCL's topology
// search builds them: Hamiltonian cycles over the GPU-to-GPU links, chosen so that the channels spread
// over every cable instead of all crossing the same ones.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "topologies/topology.h"

namespace weft {

// Up to `count` rings (each a cycle of positions 0..n-1 starting at 0, used forwards by even channels
// and backwards by odd ones), picked greedily so that the busiest cable, per unit of its capacity
// (the NVLink rate between the pair), carries the fewest rings. Empty when the GPUs at these positions
// are not joined in a cycle by cables (NVSwitch or PCIe systems).
std::vector<std::vector<uint32_t>> nvlink_rings(const Topology& topology, std::span<const uint32_t> gpus,
                                                uint32_t count);

}  // namespace weft
