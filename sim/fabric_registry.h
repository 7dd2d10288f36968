// The fabric models a scenario or the CLI can name: an explicit table, no static registration.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/fabric.h"
#include "sim/packet/packet_config.h"
#include "topologies/routing.h"

namespace weft {

struct FabricOptions {
  bool check_invariants = false;  // flow, packet: re-check invariants as the run goes
  // packet: the configuration (validated by the fabric); null = packet_profile("roce").
  std::shared_ptr<const packet::PacketConfig> packet;
  // How switches spread traffic over equal-cost paths: flow-level fabrics route whole flows
  // (ecmp); the packet fabric also sprays packets or routes them adaptively.
  RoutingPolicy routing = RoutingPolicy::ecmp;
  // The router's: inter-node sends leave through the NIC of the GPU on the destination's rail,
  // reached over NVLink first (NCCL PXN, on in NCCL since 2.12: NCCL_PXN_DISABLE=0,
  // NCCL_P2P_PXN_LEVEL=2, src/graph/paths.cc, search.cc ncclTopoGetNetDev). Off here until the
  // packet fabric agrees through the relay (tests/agreement/open-misses.txt, 2026-12-07: with PXN on,
  // Hopper rings of 8 or more channels lose 10 to 16 % of the NIC's rate in packet, not in flow).
  bool pxn = false;
};

struct FabricEntry {
  std::string_view name;
  std::string_view description;
  std::unique_ptr<Fabric> (*make)(Engine&, Router&, Recorder&, const FabricOptions&);
  bool once_per_process = false;  // backed by a singleton engine (SimGrid): one simulation per process
  bool per_link = false;          // keeps per-link state: link_stats() and Hook::link_bytes records
};

// Throws ConfigError when `simulations` runs of fabric `name` cannot happen in one process:
// "... but this asks for 3 sizes; give -b and -e the same size" from (3, "sizes", hint).
void require_simulations(std::string_view name, size_t simulations, std::string_view unit, std::string_view hint);

std::span<const FabricEntry> fabric_registry();

// "analytic | flow | ...", for --help.
std::string fabric_names();

// Throws ConfigError listing the known names when `name` is not one of them.
const FabricEntry& find_fabric(std::string_view name);

std::unique_ptr<Fabric> make_fabric(std::string_view name, Engine& engine, Router& router, Recorder& recorder,
                                    const FabricOptions& options = {});

}  // namespace weft
