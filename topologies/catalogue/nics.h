// NIC catalogue: ports, port speed, protocol and host interface of common data-centre NICs, each
// with its source in nics.cpp.
#pragma once

#include <span>
#include <string_view>

#include "sim/core/units.h"
#include "topologies/topology.h"

namespace weft::catalogue {

struct NicSpec {
  std::string_view name;         // catalogue key: "cx7", "cx6", "cx8", "bf3", "efa", "eth-25g", ...
  std::string_view description;  // one line
  int ports = 1;
  Bandwidth port_rate;      // per port, per direction
  bool infiniband = false;  // speaks InfiniBand
  bool roce = false;        // speaks RoCEv2 (RDMA over Ethernet)
  int pcie_generation = 0;
  int pcie_lanes = 16;
  Time latency;  // one traversal, host to wire
  // What the vendor's NCCL net plugin reports as props->latency, which NCCL adds to every network
  // step of its latency model (graph->latencyInter; nccl_model.md §2); 0 for NCCL's own IB and
  // socket transports, which leave it unset.
  Time plugin_latency;
};

std::span<const NicSpec> nics();
// Throws ConfigError listing the known names (and the closest one) for an unknown name.
const NicSpec& nic(std::string_view name);

}  // namespace weft::catalogue
