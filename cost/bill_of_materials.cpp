// Counting a built cluster. Which presets are sold as whole systems is decided here; what they cost
// is in prices.cpp.
#include "cost/bill_of_materials.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "topologies/catalogue/nics.h"
#include "topologies/node_checks.h"
#include "topologies/systems.h"

namespace weft::cost {
namespace {

// Presets bought (or rented) as one system per node: the vendor's price covers GPUs, NVSwitches,
// CPUs, memory, PCIe switches and the compute NICs. Cloud instances also include the network and
// the power. PCIe boxes are built from parts, so they are not here.
struct IntegratedSystem {
  std::string_view preset;
  bool rented;
};
constexpr IntegratedSystem kIntegrated[] = {
    {"dgx-h100", false},    {"hgx-h200", false},  {"dgx-a100", false}, {"dgx-b200", false},
    {"gb200-nvl72", false}, {"dgx1-v100", false}, {"aws-p4de", true},  {"aws-p5", true},
};

// Every NodeSpec field (nodes.h): a node that differs from its preset in any of them is priced by parts.
auto fields(const NodeSpec& n) {
  return std::tie(n.layout, n.gpu, n.gpus, n.gpus_per_host, n.nvlink_generation, n.nvlink_links, n.nvswitch_generation,
                  n.nvswitches, n.nvlink_bridges, n.pcie_generation, n.pcie_lanes, n.max_payload,
                  n.gpus_per_pcie_switch, n.cpu_sockets, n.p2p, n.nic, n.nics, n.nic_ports);
}

const IntegratedSystem* integrated_system(const ClusterSpec& spec) {
  for (const IntegratedSystem& s : kIntegrated) {
    if (s.preset == spec.name && fields(system_spec(s.preset).node) == fields(spec.node)) return &s;
  }
  return nullptr;
}

std::string_view preset_description(std::string_view name) {
  for (const SystemPreset& p : system_presets()) {
    if (p.name == name) return p.description;
  }
  return name;
}

int port_gbps(const ClusterSpec& spec) {
  if (spec.network.port_gbps > 0) return spec.network.port_gbps;
  return static_cast<int>(catalogue::nic(spec.node.nic).port_rate.bps() / 1'000'000'000);
}

std::string_view technology_key(NetworkTechnology t) { return t == NetworkTechnology::infiniband ? "ib" : "eth"; }

std::string_view technology_name(NetworkTechnology t) {
  return t == NetworkTechnology::infiniband ? "InfiniBand" : "Ethernet";
}

std::string_view tier_name(uint8_t tier) {
  switch (tier) {
    case 1:
      return "leaf";
    case 2:
      return "spine";
    case 3:
      return "core";
  }
  return "switch";
}

// H100 PCIe pairs take three bridges (NVIDIA H100 PCIe product brief: "three NVLink bridges" per
// pair, 600 GB/s) [unverified: recollection]; GeForce and A30 pairs take one bridge.
int bridges_per_pair(std::string_view gpu) { return gpu == "h100-pcie" ? 3 : 1; }

std::string server_key(const NodeSpec& n) {
  switch (n.layout) {
    case NodeLayout::nvswitch:
    case NodeLayout::cube_mesh:
      return "server.sxm";
    case NodeLayout::nvl_rack:
      return "server.nvl-rack";
    case NodeLayout::pcie:
      break;
  }
  return fmt::format("server.{}-socket", n.cpu_sockets);
}

// What the topology holds, by kind.
struct Census {
  uint64_t nvswitches = 0;
  uint64_t pcie_switches = 0;
  uint64_t nics = 0;
  uint64_t bridged_pairs = 0;
  std::map<uint8_t, uint64_t> switches_by_tier;
  int most_switch_ports = 0;  // cables on the busiest network switch
  uint64_t nic_cables = 0;
  uint64_t switch_cables = 0;
};

Census take_census(const Topology& t) {
  Census c;
  std::set<std::pair<int32_t, int16_t>> cards;  // (host, NIC number): ports of one card count once
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    const NodeProps& p = t.node(n);
    if (p.kind == NodeKind::nvswitch) ++c.nvswitches;
    if (p.kind == NodeKind::pcie_switch) ++c.pcie_switches;
    if (p.kind == NodeKind::nic) cards.insert({p.host, p.local_index});
    if (p.kind == NodeKind::network_switch) {
      ++c.switches_by_tier[p.tier];
      c.most_switch_ports = std::max(c.most_switch_ports, static_cast<int>(t.out_links(n).size()));
    }
  }
  c.nics = cards.size();
  for (LinkId l = 0; l < t.link_count(); l += 2) {  // a duplex cable is two consecutive directed links
    NodeKind a = t.node(t.link_source(l)).kind;
    NodeKind b = t.node(t.link_target(l)).kind;
    if (a == NodeKind::network_switch && b == NodeKind::network_switch) {
      ++c.switch_cables;
    } else if (a == NodeKind::network_switch || b == NodeKind::network_switch) {
      ++c.nic_cables;
    } else if (a == NodeKind::gpu && b == NodeKind::gpu && t.link(l).kind == LinkKind::nvlink) {
      ++c.bridged_pairs;
    }
  }
  return c;
}

void add(BillOfMaterials& bom, std::string item, std::string what, uint64_t count, bool included, BomGroup group) {
  if (count == 0) return;
  bom.lines.push_back({std::move(item), std::move(what), count, included, group});
}

void add_compute(BillOfMaterials& bom, const ClusterSpec& spec, const Census& c, const IntegratedSystem* sys) {
  const NodeSpec n = node_spec::resolved(spec.node);
  const auto nodes = static_cast<uint64_t>(spec.nodes);
  const bool whole = sys != nullptr;
  if (whole) {
    add(bom, fmt::format("system.{}", sys->preset), std::string(preset_description(sys->preset)), nodes, false,
        BomGroup::compute);
  } else {
    add(bom, server_key(n),
        fmt::format("{} without GPUs ({} layout)", n.layout == NodeLayout::nvl_rack ? "rack" : "server",
                    to_string(n.layout)),
        nodes, false, BomGroup::compute);
  }
  add(bom, fmt::format("gpu.{}", n.gpu), std::string(node_spec::gpu_of(n).description), bom.gpus, whole,
      BomGroup::compute);
  // NVSwitch chips sit on the baseboard (or in the rack's switch trays) the server or system price covers.
  add(bom, fmt::format("nvswitch.gen{}", n.nvswitch_generation), "NVSwitch chip (on the baseboard)", c.nvswitches, true,
      BomGroup::compute);
  const bool board_switches = whole || n.layout != NodeLayout::pcie;
  add(bom, fmt::format("pcie-switch.gen{}", n.pcie_generation), fmt::format("PCIe gen {} switch", n.pcie_generation),
      c.pcie_switches, board_switches, BomGroup::compute);
  if (c.nics > 0) {
    add(bom, fmt::format("nic.{}", n.nic), std::string(node_spec::nic_of(n).description), c.nics, whole,
        BomGroup::compute);
  }
  add(bom, fmt::format("nvlink-bridge.{}", n.gpu),
      fmt::format("NVLink bridge ({} per GPU pair)", bridges_per_pair(n.gpu)),
      c.bridged_pairs * static_cast<uint64_t>(bridges_per_pair(n.gpu)), whole, BomGroup::compute);
}

void add_network(BillOfMaterials& bom, const ClusterSpec& spec, const Census& c, bool rented) {
  const NetworkSpec& net = spec.network;
  const int gbps = port_gbps(spec);
  // A single switch holds every port whatever network.radix says; it is at least that big.
  const int ports = net.shape == NetworkShape::single_switch ? std::max(net.radix, c.most_switch_ports) : net.radix;
  for (const auto& [tier, count] : c.switches_by_tier) {
    add(bom, fmt::format("switch.{}-{}g-{}p", technology_key(net.technology), gbps, ports),
        fmt::format("{} switch, {} ports of {}G {}",
                    net.shape == NetworkShape::single_switch ? "single" : tier_name(tier), ports, gbps,
                    technology_name(net.technology)),
        count, rented, BomGroup::network);
  }
  auto cables = [&](uint64_t count, double metres, std::string_view between) {
    const std::string_view reach = reach_class(metres);
    if (reach == "optics") {
      add(bom, fmt::format("optic.{}g", gbps),
          fmt::format("transceiver, 2 per {} link of {:g} m ({} links)", between, metres, count), 2 * count, rented,
          BomGroup::cabling);
    } else {
      add(bom, fmt::format("cable.{}-{}g", reach, gbps), fmt::format("{} cable, {:g} m", between, metres), count,
          rented, BomGroup::cabling);
    }
  };
  cables(c.nic_cables, net.nic_cable_metres, "NIC-to-switch");
  cables(c.switch_cables, net.switch_cable_metres, "switch-to-switch");
}

}  // namespace

std::string_view reach_class(double metres) {
  // Passive copper reaches ~3 m at 400G (PAM4 DACs are sold up to 3 m; IEEE 802.3ck CR4 targets 2 m)
  // and multimode optics 50 m (NVIDIA LinkX SR4: "50-meters maximum reach", docs.nvidia.com cable
  // overview, 2025); beyond that, single-mode DR4 transceivers (500 m).
  if (metres <= 3) return "dac";
  if (metres <= 50) return "aoc";
  return "optics";
}

BillOfMaterials bill_of_materials(const Topology& t, const ClusterSpec& spec) {
  BillOfMaterials bom;
  bom.name = t.name;
  bom.gpus = t.gpus().size();
  bom.nodes = static_cast<uint64_t>(spec.nodes);
  const IntegratedSystem* sys = integrated_system(spec);
  bom.integrated = sys != nullptr;
  bom.rented = sys != nullptr && sys->rented;
  const Census c = take_census(t);
  add_compute(bom, spec, c, sys);
  if (spec.network.shape != NetworkShape::none) add_network(bom, spec, c, bom.rented);
  return bom;
}

uint64_t priced_count(const BillOfMaterials& bom, std::string_view item) {
  uint64_t n = 0;
  for (const BomLine& l : bom.lines) {
    if (l.item == item && !l.included) n += l.count;
  }
  return n;
}

}  // namespace weft::cost
