// The bill of materials of a built cluster: what the builders created, counted and named by the
// price-book keys of prices.h. Integrated systems (DGX, HGX, GB200 racks, cloud instances) are one
// line per node with their GPUs, NVSwitches, PCIe switches and NICs listed as included; other
// nodes are priced part by part (server, GPUs, NICs, PCIe switches, NVLink bridges).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topologies/clusters.h"
#include "topologies/topology.h"

namespace weft::cost {

enum class BomGroup : uint8_t { compute, network, cabling };

struct BomLine {
  std::string item;  // price-book key, e.g. "switch.ib-400g-64p"
  std::string what;  // e.g. "leaf switch (tier 1), 64 ports of 400G InfiniBand"
  uint64_t count = 0;
  bool included = false;  // inside an integrated system's price (counted, not priced again)
  BomGroup group = BomGroup::compute;
};

struct BillOfMaterials {
  std::string name;  // the topology's name, e.g. "dgx-h100 x32"
  uint64_t gpus = 0;
  uint64_t nodes = 0;
  bool integrated = false;     // nodes are bought (or rented) as whole systems
  bool rented = false;         // cloud instances: the network and power are in the hourly rent
  std::vector<BomLine> lines;  // compute first, then network, then cabling
};

// Counts what build_cluster(spec) created in `t`: GPUs, NVSwitch chips, PCIe switches, NIC cards
// (ports of one card counted once), NVLink bridges, network switches by tier (their ports from
// network.radix, or the ports in use on a single switch that has more), and network cables by
// rate and reach: NIC-to-leaf cables network.nic_cable_metres long, switch-to-switch cables
// network.switch_cable_metres long (reach classes in reach_class()). A node is an integrated system
// when `spec` names a preset sold whole and its node section is the preset's unchanged.
BillOfMaterials bill_of_materials(const Topology& t, const ClusterSpec& spec);

// How a network cable of `metres` is bought: "dac" (passive copper, <= 3 m), "aoc" (active optical
// cable, <= 50 m), or "optics" (two single-mode transceivers on fibre, longer).
std::string_view reach_class(double metres);

// Units of `item` the lines ask to be priced (not included), summed over lines.
uint64_t priced_count(const BillOfMaterials& bom, std::string_view item);

}  // namespace weft::cost
