#include "sim/fabric_registry.h"

#include <fmt/format.h>
#include <string>

#include "sim/analytic_fabric.h"
#include "sim/core/errors.h"
#include "sim/flow_fabric.h"

namespace weft {
namespace {

std::unique_ptr<Fabric> make_analytic(Engine& e, Router& r, Recorder& rec, const FabricOptions&) {
  return std::make_unique<AnalyticFabric>(e, r, rec);
}

std::unique_ptr<Fabric> make_flow(Engine& e, Router& r, Recorder& rec, const FabricOptions& o) {
  return std::make_unique<FlowFabric>(e, r, rec, FlowFabricConfig{o.check_invariants});
}

constexpr FabricEntry kFabrics[] = {
    {"analytic", "alpha-beta per path (latency + bytes / bottleneck rate), no contention", make_analytic},
    {"flow",
     "max-min fair sharing of every directed link, recomputed per touched component; per-hop latency "
     "(Bertsekas & Gallager, Data Networks, 6.5.2)",
     make_flow},
};

}  // namespace

std::span<const FabricEntry> fabric_registry() { return kFabrics; }

const FabricEntry& find_fabric(std::string_view name) {
  std::string known;
  for (const FabricEntry& f : kFabrics) {
    if (f.name == name) return f;
    known += known.empty() ? "" : ", ";
    known += f.name;
  }
  throw ConfigError(fmt::format("fabric: unknown model '{}' (expected one of: {})", name, known));
}

std::unique_ptr<Fabric> make_fabric(std::string_view name, Engine& engine, Router& router, Recorder& recorder,
                                    const FabricOptions& options) {
  return find_fabric(name).make(engine, router, recorder, options);
}

}  // namespace weft
