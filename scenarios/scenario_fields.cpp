#include "scenarios/scenario_fields.h"

#include <string_view>

#include "topologies/metrics.h"
#include "topologies/routing.h"

namespace weft {
namespace {

// The custom form builds these topologies (topologies/builders.h: build_topology).
std::string to_topology(std::string_view key, std::string_view text) {
  if (text == "single-switch" || text == "ring") return std::string(text);
  throw ConfigError(SourceLocation{}, std::string(key),
                    fmt::format("unknown topology '{}' (expected single-switch or ring)", text));
}
std::string_view topology_name(const std::string& topology) { return topology; }

LinkKind to_link_kind(std::string_view key, std::string_view text) {
  for (LinkKind kind :
       {LinkKind::generic, LinkKind::nvlink, LinkKind::pcie, LinkKind::infiniband, LinkKind::ethernet}) {
    if (to_string(kind) == text) return kind;
  }
  throw ConfigError(
      SourceLocation{}, std::string(key),
      fmt::format("unknown link kind '{}' (expected generic, nvlink, pcie, infiniband or ethernet)", text));
}

std::string_view link_kind_name(LinkKind kind) { return to_string(kind); }
RoutingPolicy to_routing(std::string_view /*key*/, std::string_view text) { return parse_routing_policy(text); }
std::string_view routing_name(RoutingPolicy policy) { return to_string(policy); }

using T = Scenario;
constexpr std::array kTopFields = {
    field<T, &T::name>("name", "", "the scenario's name in reports"),
    field<T, &T::seed>("seed", "", "the seed of every random choice (ECMP hashing, permutations, per-packet draws)"),
    field<T, &T::baseline>("compare_baseline", "", "the baseline's column name beside compare: variants"),
};

using S = SystemSpec;
using L = LinkSpec;
constexpr std::array kCustomSystemFields = {
    choice<S, to_topology, topology_name, &S::topology>("topology", "single-switch | ring"),
    field<S, &S::ranks>("ranks", "", "GPUs (one per endpoint)", Range{1, 1u << 20}),
    choice<S, to_link_kind, link_kind_name, &S::link, &L::kind>("link.kind",
                                                                "generic | nvlink | pcie | infiniband | ethernet"),
    field<S, &S::link, &L::rate>("link.rate", "rate", "per direction, of every link"),
    field<S, &S::link, &L::latency>("link.latency", "time", "per hop"),
};

using F = FabricOptions;
constexpr std::array kRouterFields = {
    choice<F, to_routing, routing_name, &F::routing>(
        "routing", "ecmp (whole flows hashed), or spray | adaptive per packet (packet fabric only)"),
    field<F, &F::pxn>("pxn", "",
                      "NCCL PXN: inter-node sends reach the NIC on the peer's rail over NVLink first (NCCL's "
                      "default since 2.12; off unless set: README, Routing)"),
};

}  // namespace

std::span<const Field<Scenario>> scenario_top_fields() { return kTopFields; }
std::span<const Field<SystemSpec>> custom_system_fields() { return kCustomSystemFields; }
std::span<const Field<FabricOptions>> router_fields() { return kRouterFields; }

}  // namespace weft
