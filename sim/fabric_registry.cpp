#include "sim/fabric_registry.h"

#include <fmt/format.h>
#include <string>

#include "sim/analytic_fabric.h"
#include "sim/core/errors.h"
#include "sim/flow_fabric.h"
#include "sim/packet/packet_fabric.h"
#ifdef WEFT_HAVE_SIMGRID
#include "sim/simgrid_module.h"
#endif

namespace weft {
namespace {

void require_ecmp(std::string_view fabric, const FabricOptions& o);

std::unique_ptr<Fabric> make_analytic(Engine& e, Router& r, Recorder& rec, const FabricOptions& o) {
  require_ecmp("analytic", o);
  return std::make_unique<AnalyticFabric>(e, r, rec);
}

// Whole-flow models cannot spray packets: say so instead of quietly routing by ECMP.
void require_ecmp(std::string_view fabric, const FabricOptions& o) {
  if (o.routing != RoutingPolicy::ecmp) {
    throw ConfigError(fmt::format("routing {} sends each packet its own way: it needs the packet fabric, not {}",
                                  to_string(o.routing), fabric));
  }
}

std::unique_ptr<Fabric> make_flow(Engine& e, Router& r, Recorder& rec, const FabricOptions& o) {
  require_ecmp("flow", o);
  return std::make_unique<FlowFabric>(e, r, rec, FlowFabricConfig{o.check_invariants});
}

std::unique_ptr<Fabric> make_packet(Engine& e, Router& r, Recorder& rec, const FabricOptions& o) {
  packet::PacketConfig config = o.packet ? *o.packet : packet::packet_profile(packet::default_packet_profile());
  return std::make_unique<PacketFabric>(e, r, rec, std::move(config), o.check_invariants);
}

#ifdef WEFT_HAVE_SIMGRID
std::unique_ptr<Fabric> make_simgrid(Engine& e, Router& r, Recorder& rec, const FabricOptions& o) {
  require_ecmp("simgrid", o);
  return std::unique_ptr<Fabric>(simgrid_factory()(e, r, rec));
}
#endif

constexpr FabricEntry kFabrics[] = {
    {"analytic", "alpha-beta per path (latency + bytes / bottleneck rate), no contention", make_analytic},
    {"flow",
     "max-min fair sharing of every directed link, recomputed per touched component; per-hop latency "
     "(Bertsekas & Gallager, Data Networks, 6.5.2)",
     make_flow, /*once_per_process=*/false, /*per_link=*/true},
    {"packet",
     "packets through egress ports with per-priority queues; PFC, ECN and DCQCN on Ethernet, credits on "
     "InfiniBand/NVLink/PCIe, go-back-N on lossy links (Zhu et al. SIGCOMM 2015; IEEE 802.1Qbb; IBA Vol. 1)",
     make_packet, /*once_per_process=*/false, /*per_link=*/true},
#ifdef WEFT_HAVE_SIMGRID
    {"simgrid",
     "SimGrid 3.32's CM02 max-min model (latency, then max-min share) on weft's exact paths: an independent "
     "cross-check of flow; one simulation per process (Casanova & Marchal, A Network Model for Simulation of "
     "Grid Application, LIP RR-2002-40)",
     make_simgrid, /*once_per_process=*/true},
#endif
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

void require_simulations(std::string_view name, size_t simulations, std::string_view unit, std::string_view hint) {
  if (simulations > 1 && find_fabric(name).once_per_process) {
    throw ConfigError(
        fmt::format("fabric {} runs one simulation per process (its engine is a singleton), but this "
                    "asks for {} {}; {}",
                    name, simulations, unit, hint));
  }
}

std::string fabric_names() {
  std::string names;
  for (const FabricEntry& f : fabric_registry()) names += fmt::format("{}{}", names.empty() ? "" : " | ", f.name);
  return names;
}

std::unique_ptr<Fabric> make_fabric(std::string_view name, Engine& engine, Router& router, Recorder& recorder,
                                    const FabricOptions& options) {
  return find_fabric(name).make(engine, router, recorder, options);
}

}  // namespace weft
