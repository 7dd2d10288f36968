// Bills of materials of known builders, counted from the built topology; expected counts derived
// from how topologies/clusters.cpp and nodes.cpp wire each system.
#include <catch2/catch.hpp>

#include "cost/bill_of_materials.h"
#include "cost/cost_report.h"
#include "sim/core/errors.h"
#include "topologies/systems.h"

using namespace weft;
using cost::BillOfMaterials;
using cost::BomLine;

namespace {

ClusterSpec preset(const char* name, int nodes) {
  ClusterSpec s = system_spec(name);
  s.nodes = nodes;
  return s;
}

BillOfMaterials bom_of(const ClusterSpec& s) { return cost::bill_of_materials(build_cluster(s), s); }

// Units of `item`, priced or included.
uint64_t count(const BillOfMaterials& bom, std::string_view item) {
  uint64_t n = 0;
  for (const BomLine& l : bom.lines) n += l.item == item ? l.count : 0;
  return n;
}

bool included(const BillOfMaterials& bom, std::string_view item) {
  for (const BomLine& l : bom.lines) {
    if (l.item == item) return l.included;
  }
  FAIL("no line " << item);
  return false;
}

}  // namespace

TEST_CASE("BOM of 32 DGX H100 on a 2-tier rail-optimised NDR fabric", "[cost]") {
  // DGX H100 preset: 8 GPUs, 4 NVSwitch chips, 8 single-port ConnectX-7 (400G NDR), one GPU per PCIe
  // switch; network: rail-optimised InfiniBand, radix 64, oversubscription 1.
  // Leaf ports (clusters.cpp leaf_ports): down = 64 x 1/2 = 32 NICs, up = 32 uplinks.
  // Leaves: leaf = (host / 32) x 8 rails + rail; 32 hosts fit one group -> 8 leaves, one per rail.
  // Tiers: 8 leaves <= 64 -> 2. Spines: the smallest divisor of 32 that is >= ceil(8 x 32 / 64) = 4
  // -> 4 spines, each leaf with 32 / 4 = 8 cables to each spine -> 8 x 4 x 8 = 256 leaf-spine cables.
  // NIC cables: 32 nodes x 8 NICs = 256, 3 m (DAC); leaf-spine cables 30 m (AOC).
  BillOfMaterials bom = bom_of(preset("dgx-h100", 32));
  CHECK(bom.name == "dgx-h100 x32");
  CHECK(bom.gpus == 256);
  CHECK(bom.nodes == 32);
  CHECK(bom.integrated);
  CHECK_FALSE(bom.rented);
  CHECK(count(bom, "system.dgx-h100") == 32);
  CHECK(count(bom, "gpu.h100-sxm") == 256);
  CHECK(count(bom, "nvswitch.gen3") == 32 * 4);
  CHECK(count(bom, "pcie-switch.gen5") == 32 * 8);
  CHECK(count(bom, "nic.cx7") == 256);
  CHECK(included(bom, "gpu.h100-sxm"));
  CHECK(included(bom, "nic.cx7"));
  CHECK(count(bom, "switch.ib-400g-64p") == 8 + 4);
  CHECK(count(bom, "cable.dac-400g") == 256);
  CHECK(count(bom, "cable.aoc-400g") == 256);
  CHECK(cost::priced_count(bom, "switch.ib-400g-64p") == 12);
  CHECK(cost::priced_count(bom, "gpu.h100-sxm") == 0);
  // Tiers are separate lines: 8 leaves, then 4 spines.
  std::vector<uint64_t> switch_lines;
  for (const BomLine& l : bom.lines) {
    if (l.item.starts_with("switch.")) switch_lines.push_back(l.count);
  }
  CHECK(switch_lines == std::vector<uint64_t>{8, 4});
}

TEST_CASE("BOM of 64 DGX H100: two rail groups, still 2 tiers", "[cost]") {
  // 64 hosts / 32 per leaf -> 2 groups x 8 rails = 16 leaves; spines: smallest divisor of 32 that is
  // >= ceil(16 x 32 / 64) = 8 -> 8 spines, 32 / 8 = 4 cables per leaf-spine pair -> 16 x 8 x 4 = 512.
  BillOfMaterials bom = bom_of(preset("dgx-h100", 64));
  CHECK(count(bom, "switch.ib-400g-64p") == 16 + 8);
  CHECK(count(bom, "cable.dac-400g") == 512);
  CHECK(count(bom, "cable.aoc-400g") == 512);
}

TEST_CASE("BOM of two 8x RTX 3090 boxes with NVLink bridges on one 100G switch", "[cost]") {
  // pcie-3090x8-nvlink: 8 GPUs on 2 PCIe gen-4 switches (4 GPUs each), bridges on pairs 0-1 .. 6-7
  // (4 per node, one bridge each), one eth-100g NIC, single-switch RoCE network. 2 nodes:
  // 16 GPUs, 4 PCIe switches, 8 bridges, 2 NICs, 1 switch (radix 64 > 2 ports in use), 2 DAC cables.
  BillOfMaterials bom = bom_of(preset("pcie-3090x8-nvlink", 2));
  CHECK_FALSE(bom.integrated);
  CHECK(count(bom, "server.2-socket") == 2);
  CHECK(count(bom, "gpu.rtx-3090") == 16);
  CHECK(count(bom, "pcie-switch.gen4") == 4);
  CHECK(count(bom, "nvlink-bridge.rtx-3090") == 8);
  CHECK(count(bom, "nic.eth-100g") == 2);
  CHECK(count(bom, "switch.eth-100g-64p") == 1);
  CHECK(count(bom, "cable.dac-100g") == 2);
  CHECK_FALSE(included(bom, "gpu.rtx-3090"));
  CHECK_FALSE(included(bom, "pcie-switch.gen4"));
  CHECK(bom.lines.size() == 7);
}

TEST_CASE("A single switch with more ports in use than network.radix is counted at its real size", "[cost]") {
  // 8 x 4090 boxes, one 25G NIC each, radix 4: the single switch holds 8 cables.
  ClusterSpec s = preset("pcie-4090x8", 8);
  s.network.radix = 4;
  BillOfMaterials bom = bom_of(s);
  CHECK(count(bom, "switch.eth-25g-8p") == 1);
  CHECK(count(bom, "server.2-socket") == 8);
}

TEST_CASE("A preset whose node was changed is priced by parts", "[cost]") {
  // dgx-h100 with 4 NICs is no longer the product: server + GPUs + NICs, switches still on the board.
  ClusterSpec s = preset("dgx-h100", 4);
  s.node.nics = 4;
  BillOfMaterials bom = bom_of(s);
  CHECK_FALSE(bom.integrated);
  CHECK(count(bom, "system.dgx-h100") == 0);
  CHECK(count(bom, "server.sxm") == 4);
  CHECK_FALSE(included(bom, "gpu.h100-sxm"));
  CHECK(count(bom, "nic.cx7") == 16);
  CHECK_FALSE(included(bom, "nic.cx7"));
  CHECK(included(bom, "pcie-switch.gen5"));
  CHECK(included(bom, "nvswitch.gen3"));
}

TEST_CASE("Cloud instances include their network", "[cost]") {
  BillOfMaterials bom = bom_of(preset("aws-p5", 4));
  CHECK(bom.rented);
  CHECK(count(bom, "system.aws-p5") == 4);
  for (const BomLine& l : bom.lines) {
    if (l.group != cost::BomGroup::compute) CHECK(l.included);
  }
}

TEST_CASE("Multi-port NICs count once per card; network off counts no cables", "[cost]") {
  ClusterSpec s = preset("dgx-a100", 1);
  s.network.shape = NetworkShape::none;
  BillOfMaterials one = bom_of(s);
  CHECK(count(one, "nic.cx6") == 8);
  for (const BomLine& l : one.lines) CHECK(l.group == cost::BomGroup::compute);

  ClusterSpec two = preset("dgx-h100", 2);
  two.node.nic_ports = 2;  // two planes: each card's two ports on separate networks
  BillOfMaterials planes = bom_of(two);
  CHECK(count(planes, "nic.cx7") == 16);
  CHECK(count(planes, "cable.dac-400g") == 32);
}

TEST_CASE("Reach classes: DAC to 3 m, AOC to 50 m, optics beyond", "[cost]") {
  CHECK(cost::reach_class(3) == "dac");
  CHECK(cost::reach_class(3.5) == "aoc");
  CHECK(cost::reach_class(50) == "aoc");
  CHECK(cost::reach_class(51) == "optics");
  // Long switch cables become two transceivers per link: 256 links x 2.
  ClusterSpec s = preset("dgx-h100", 32);
  s.network.switch_cable_metres = 200;
  CHECK(count(bom_of(s), "optic.400g") == 512);
}

TEST_CASE("format_bom lists every line with its count", "[cost]") {
  std::string text = cost::format_bom(bom_of(preset("dgx-h100", 32)));
  CHECK(text.find("bill of materials: dgx-h100 x32 (256 GPUs, 32 node(s)") != std::string::npos);
  CHECK(text.find("switch.ib-400g-64p") != std::string::npos);
  CHECK(text.find("cable.aoc-400g") != std::string::npos);
  CHECK(cost::format_usd(10'883'200) == "$10,883,200");
  CHECK(cost::format_usd(12.5) == "$12.50");
}
