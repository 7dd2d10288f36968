// Cluster builders: N nodes (nodes.h) whose NIC ports are cabled into a switch network: one switch,
// a 2-tier leaf-spine or 3-tier fat-tree (with leaf oversubscription), rail-optimised (NIC i of
// every node on the rail-i leaves), and multi-plane (one independent network per NIC port).
#pragma once

#include <string>

#include "topologies/nodes.h"
#include "topologies/topology.h"

namespace weft {

enum class NetworkShape : uint8_t {
  none,            // nodes are not cabled to each other (one node, or scale-up only)
  single_switch,   // every NIC port on one switch of enough ports
  fat_tree,        // leaves filled node by node, then spines (and cores): 2 or 3 tiers
  rail_optimized,  // leaves by rail: NIC i of every node of a group shares leaf i of the group
};
NetworkShape parse_network_shape(std::string_view name);  // throws ConfigError
std::string_view to_string(NetworkShape shape);

enum class NetworkTechnology : uint8_t { infiniband, roce, ethernet };
NetworkTechnology parse_network_technology(std::string_view name);  // throws ConfigError
std::string_view to_string(NetworkTechnology technology);

struct NetworkSpec {
  NetworkShape shape = NetworkShape::rail_optimized;
  NetworkTechnology technology = NetworkTechnology::infiniband;
  int port_gbps = 0;                // link rate; 0 = the NIC's port rate
  int radix = 64;                   // ports per switch (Quantum-2 / Spectrum-4 class: 64 x 400G)
  double oversubscription = 1.0;    // leaf downlinks per uplink (2 = 2:1)
  int tiers = 0;                    // 0 = the fewest that fit; 1, 2 or 3 to force
  uint32_t mtu = 4096;              // RDMA MTU, bytes
  double nic_cable_metres = 3;      // NIC to leaf (DAC / AOC inside the rack)
  double switch_cable_metres = 30;  // between switch tiers
  // SHARP: every switch of the network reduces and multicasts in the network (NodeProps::reduces),
  // which NCCL's CollNet uses. InfiniBand only, from HDR: NVIDIA Quantum (HDR 200G, SHARPv2), Quantum-2
  // (NDR 400G, SHARPv3) and Quantum-3 (XDR 800G) run the streaming aggregation NCCL needs; EDR's
  // Switch-IB 2 (SHARPv1) only low-latency trees (NVIDIA SHARP Rev 3.13.0, "General Information";
  // SHARP 2.1.4 release notes: streaming aggregation added for ConnectX-6 and Quantum).
  bool sharp = false;
};

struct ClusterSpec {
  std::string name;  // the catalogue preset it came from, if any (names the Topology)
  NodeSpec node;
  int nodes = 1;
  NetworkSpec network;
};

// Throws ConfigError for a bad node or network (nodes < 1, radix < 2, oversubscription <= 0, more
// leaves than the spines can take for the tiers asked for, ...), saying which field and why.
void validate(const ClusterSpec& spec);

// Builds and checks (require_connected) the cluster. GPU ranks are node-major: rank = node * gpus + local.
Topology build_cluster(const ClusterSpec& spec);

}  // namespace weft
