// What the node builders share with their checks: a NodeSpec with its catalogue defaults filled in,
// the catalogue entries it names, and how NVLink links spread over NVSwitch chips.
#pragma once

#include <vector>

#include "topologies/catalogue/gpus.h"
#include "topologies/catalogue/nics.h"
#include "topologies/nodes.h"

namespace weft::node_spec {

// Catalogue lookups whose ConfigError says "node: ...".
const catalogue::GpuSpec& gpu_of(const NodeSpec& s);
const catalogue::NicSpec& nic_of(const NodeSpec& s);
// The spec with its "0 = catalogue value" fields taken from the GPU, and no NICs when none is named.
NodeSpec resolved(const NodeSpec& spec);
// How `links` NVLink links of one GPU spread over `switches` chips (counts differ by at most one).
std::vector<int> links_per_switch(int links, int switches);

}  // namespace weft::node_spec
