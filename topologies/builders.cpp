#include "topologies/builders.h"

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {
namespace {

void require_gpus(uint32_t gpus, uint32_t minimum, const char* builder) {
  if (gpus < minimum) {
    throw ConfigError(fmt::format("{} topology: needs at least {} GPUs, got {}", builder, minimum, gpus));
  }
}

NodeIndex add_gpu(Topology& t, uint32_t i, bool forwards = false) {
  NodeProps gpu{NodeKind::gpu, fmt::format("gpu{}", i)};
  gpu.forwards = forwards;
  return t.add_node(std::move(gpu));
}

}  // namespace

Topology single_switch(uint32_t gpus, const LinkSpec& link) {
  require_gpus(gpus, 1, "single-switch");
  Topology t;
  for (uint32_t i = 0; i < gpus; ++i) add_gpu(t, i);
  NodeIndex sw = t.add_node({NodeKind::network_switch, "switch0"});
  for (uint32_t i = 0; i < gpus; ++i) t.add_duplex_link(t.gpus()[i], sw, link);
  t.name = fmt::format("single-switch x{}", gpus);
  t.description = fmt::format("{} GPUs, one link each to one non-blocking switch", gpus);
  return t;
}

Topology ring(uint32_t gpus, const LinkSpec& link) {
  require_gpus(gpus, 2, "ring");
  Topology t;
  for (uint32_t i = 0; i < gpus; ++i) add_gpu(t, i, /*forwards=*/true);  // a direct-connect ring relays
  uint32_t cables = gpus == 2 ? 1 : gpus;
  for (uint32_t i = 0; i < cables; ++i) t.add_duplex_link(t.gpus()[i], t.gpus()[(i + 1) % gpus], link);
  t.name = fmt::format("ring x{}", gpus);
  t.description = fmt::format("{} GPUs cabled in a ring, each relaying its neighbours' traffic", gpus);
  return t;
}

}  // namespace weft

namespace weft {

Topology build_topology(std::string_view name, uint32_t gpus, const LinkSpec& link) {
  if (name == "single-switch") return single_switch(gpus, link);
  if (name == "ring") return ring(gpus, link);
  throw ConfigError(fmt::format("topology: unknown topology '{}' (expected single-switch or ring)", name));
}

}  // namespace weft
