#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <utility>

#include "sim/core/errors.h"
#include "topologies/catalogue/links.h"
#include "topologies/nodes.h"

using namespace weft;

namespace {

struct Built {
  Topology t;
  BuiltNode node;
};

Built build(const NodeSpec& spec, int first_host = 0, int domain = 0) {
  Built b;
  b.node = add_node(b.t, spec, first_host, domain, "");
  b.t.require_connected();
  return b;
}

// Directed links leaving n (one per cable, since every cable is a duplex pair).
std::vector<LinkId> out_links(const Topology& t, NodeIndex n) {
  std::vector<LinkId> out;
  for (LinkId l = 0; l < t.link_count(); ++l) {
    if (t.link_source(l) == n) out.push_back(l);
  }
  return out;
}

std::vector<NodeIndex> nodes_of(const Topology& t, NodeKind kind) {
  std::vector<NodeIndex> found;
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    if (t.node(n).kind == kind) found.push_back(n);
  }
  return found;
}

// NVLink links from n to each neighbour: a cable's rate over one link's rate of that generation.
std::map<NodeIndex, uint64_t> nvlinks(const Topology& t, NodeIndex n, int generation) {
  std::map<NodeIndex, uint64_t> links;
  uint64_t one = catalogue::nvlink(generation).link_rate.bps();
  for (LinkId l : out_links(t, n)) {
    if (t.link(l).kind != LinkKind::nvlink) continue;
    CHECK(t.link(l).rate.bps() % one == 0);
    links[t.link_target(l)] += t.link(l).rate.bps() / one;
  }
  return links;
}

uint64_t total(const std::map<NodeIndex, uint64_t>& links) {
  uint64_t sum = 0;
  for (auto [node, count] : links) sum += count;
  return sum;
}

// The PCIe switch or CPU a GPU or NIC port hangs from (its only PCIe neighbour).
NodeIndex pcie_parent(const Topology& t, NodeIndex n) {
  std::vector<NodeIndex> parents;
  for (LinkId l : out_links(t, n)) {
    if (t.link(l).kind == LinkKind::pcie) parents.push_back(t.link_target(l));
  }
  REQUIRE(parents.size() == 1);
  return parents[0];
}

// The CPU a PCIe switch hangs from.
NodeIndex cpu_above(const Topology& t, NodeIndex sw) {
  std::vector<NodeIndex> cpus;
  for (LinkId l : out_links(t, sw)) {
    if (t.node(t.link_target(l)).kind == NodeKind::cpu) cpus.push_back(t.link_target(l));
  }
  REQUIRE(cpus.size() == 1);
  return cpus[0];
}

NodeSpec dgx_h100() {
  NodeSpec s;
  s.layout = NodeLayout::nvswitch;
  s.gpu = "h100-sxm";
  s.gpus = 8;
  s.nvswitch_generation = 3;
  s.nvswitches = 4;
  s.nic = "cx7";
  s.nics = 8;
  s.cpu_sockets = 2;
  // DGX H100: each GPU shares a PCIe switch with its own ConnectX-7 only (nvidia-smi topo -m shows
  // GPU i PIX to exactly one NIC; DGX H100 user guide table 6 pairs each CX-7 with one GPU).
  s.gpus_per_pcie_switch = 1;
  return s;
}

}  // namespace

TEST_CASE("DGX H100: 4 NVSwitch chips with 5/4/4/5 links, one ConnectX-7 per GPU on its switch", "[nodes]") {
  Built b = build(dgx_h100());
  const Topology& t = b.t;
  REQUIRE(t.gpus().size() == 8);
  std::vector<NodeIndex> switches = nodes_of(t, NodeKind::nvswitch);
  REQUIRE(switches.size() == 4);
  for (NodeIndex sw : switches) {
    CHECK(t.node(sw).reduces);  // NVSwitch gen 3: NVLS
    CHECK(t.node(sw).domain == 0);
    CHECK(t.node(sw).host == 0);
  }
  for (NodeIndex g : t.gpus()) {
    auto links = nvlinks(t, g, 4);
    CHECK(total(links) == 18);  // H100: 18 NVLink 4 links
    // 18 links over 4 chips: 5, 4, 4, 5 in NVIDIA's DGX H100 diagrams.
    std::map<NodeIndex, uint64_t> expected{{switches[0], 5}, {switches[1], 4}, {switches[2], 4}, {switches[3], 5}};
    CHECK(links == expected);
    CHECK(t.node(g).p2p);
  }
  // 8 single-port NICs, one port node each; GPU i uses NIC i, under the same PCIe switch.
  REQUIRE(nodes_of(t, NodeKind::nic).size() == 8);
  REQUIRE(b.node.nic_ports.size() == 8);
  std::set<NodeIndex> used;
  for (size_t i = 0; i < 8; ++i) {
    NodeIndex g = t.gpus()[i];
    REQUIRE(t.nics_of(g).size() == 1);
    CHECK(t.nics_of(g)[0] == b.node.nic_ports[i]);
    used.insert(t.nics_of(g)[0]);
    NodeIndex parent = pcie_parent(t, g);
    CHECK(t.node(parent).kind == NodeKind::pcie_switch);
    CHECK(pcie_parent(t, b.node.nic_ports[i]) == parent);
  }
  CHECK(used.size() == 8);
  // One PCIe switch per GPU; switches 0-3 on CPU 0, 4-7 on CPU 1 (GPUs 0-3 are on socket 0).
  CHECK(nodes_of(t, NodeKind::pcie_switch).size() == 8);
  std::vector<NodeIndex> cpus = nodes_of(t, NodeKind::cpu);
  REQUIRE(cpus.size() == 2);
  CHECK(cpu_above(t, pcie_parent(t, t.gpus()[3])) == cpus[0]);
  CHECK(cpu_above(t, pcie_parent(t, t.gpus()[4])) == cpus[1]);
}

TEST_CASE("DGX H100: names, hosts, local indices and the built node's description", "[nodes]") {
  Topology t = build_node(dgx_h100());
  CHECK(t.name == "h100-sxm x8 (nvswitch)");
  CHECK_FALSE(t.description.empty());
  CHECK_NOTHROW(t.require_connected());
  const NodeProps& gpu3 = t.node(t.gpus()[3]);
  CHECK(gpu3.name == "gpu3");
  CHECK(gpu3.host == 0);
  CHECK(gpu3.domain == 0);
  CHECK(gpu3.local_index == 3);
  CHECK_FALSE(gpu3.forwards);
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    CHECK(t.node(n).host == 0);
    if (t.node(n).kind == NodeKind::nic) CHECK(t.node(n).name == "nic" + std::to_string(t.node(n).local_index));
  }

  // A prefix, a host and a domain given by a cluster builder.
  Topology c;
  BuiltNode n = add_node(c, dgx_h100(), 7, 3, "n7/");
  CHECK(c.node(n.gpus[5]).name == "n7/gpu5");
  CHECK(c.node(n.gpus[5]).host == 7);
  CHECK(c.node(n.gpus[5]).domain == 3);
  CHECK(c.node(n.nic_ports[2]).name == "n7/nic2");
  CHECK(c.node(n.nic_ports[2]).domain == -1);
  CHECK(c.node(nodes_of(c, NodeKind::nvswitch)[1]).name == "n7/nvsw1");
  CHECK(c.node(nodes_of(c, NodeKind::pcie_switch)[2]).name == "n7/pcie2");
  CHECK(c.node(nodes_of(c, NodeKind::cpu)[0]).name == "n7/cpu0");
}

TEST_CASE("DGX A100: 6 NVSwitch gen 2, 2 links to each, 2 GPUs and 2 HDR NICs per PCIe switch", "[nodes]") {
  NodeSpec s;
  s.layout = NodeLayout::nvswitch;
  s.gpu = "a100-80gb";
  s.nvswitch_generation = 2;
  s.nvswitches = 6;
  s.nic = "cx6";  // ConnectX-6 HDR 200 Gb/s
  s.nics = 8;
  s.gpus_per_pcie_switch = 2;  // DGX A100: GPU0/1 with mlx5_0/1 behind one switch pair (topo -m: PXB)
  Built b = build(s);
  const Topology& t = b.t;
  std::vector<NodeIndex> switches = nodes_of(t, NodeKind::nvswitch);
  REQUIRE(switches.size() == 6);
  for (NodeIndex sw : switches) CHECK_FALSE(t.node(sw).reduces);  // no NVLS before gen 3
  for (NodeIndex g : t.gpus()) {
    auto links = nvlinks(t, g, 3);
    CHECK(total(links) == 12);  // A100: 12 NVLink 3 links = 6 chips x 2
    REQUIRE(links.size() == 6);
    for (auto [sw, count] : links) CHECK(count == 2);
  }
  CHECK(nodes_of(t, NodeKind::nic).size() == 8);
  CHECK(nodes_of(t, NodeKind::cpu).size() == 2);
  // 8 GPUs / 2 per switch = 4 switches; NIC i beside GPU i, so each switch has 2 GPUs and 2 NICs.
  std::vector<NodeIndex> pcie = nodes_of(t, NodeKind::pcie_switch);
  REQUIRE(pcie.size() == 4);
  std::map<NodeIndex, std::pair<int, int>> under;  // switch -> (GPUs, NICs)
  for (NodeIndex g : t.gpus()) ++under[pcie_parent(t, g)].first;
  for (NodeIndex p : b.node.nic_ports) ++under[pcie_parent(t, p)].second;
  for (NodeIndex sw : pcie) CHECK(under[sw] == std::pair{2, 2});
  for (size_t i = 0; i < 8; ++i) CHECK(t.nics_of(t.gpus()[i]) == std::vector<NodeIndex>{b.node.nic_ports[i]});
}

TEST_CASE("HGX B200: 18 NVLink 5 links split 9/9 over 2 NVSwitch gen 4 chips", "[nodes]") {
  NodeSpec s = dgx_h100();
  s.gpu = "b200";
  s.nvswitch_generation = 4;
  s.nvswitches = 2;  // 9 links x 8 GPUs = 72 ports, all of a gen 4 chip
  Built b = build(s);
  for (NodeIndex g : b.t.gpus()) {
    auto links = nvlinks(b.t, g, 5);
    REQUIRE(links.size() == 2);
    for (auto [sw, count] : links) CHECK(count == 9);
  }
}

TEST_CASE("DGX-1 V100: the hybrid cube mesh with the published NV1/NV2 link counts", "[nodes]") {
  NodeSpec s;
  s.layout = NodeLayout::cube_mesh;
  s.gpu = "v100";
  s.nic = "cx6";  // stands in for DGX-1's ConnectX-4 EDR, which the catalogue lacks
  s.nics = 4;
  s.gpus_per_pcie_switch = 2;
  Built b = build(s);
  const Topology& t = b.t;
  // nvidia-smi topo -m on a DGX-1V (Microway, "nvidia-smi: Control Your GPUs"; the Alibaba Cloud ACK
  // topology-aware scheduling page: GPU0 has 2 links to GPU3 and GPU4, 1 to GPU1 and GPU2).
  const int nv[8][8] = {
      {0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0}, {2, 1, 2, 0, 0, 0, 0, 1},
      {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1}, {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0},
  };
  for (size_t i = 0; i < 8; ++i) {
    auto links = nvlinks(t, t.gpus()[i], 2);
    CHECK(total(links) == 6);  // V100: 6 NVLink 2 links, all used
    for (size_t j = 0; j < 8; ++j) {
      uint64_t got = links.count(t.gpus()[j]) ? links.at(t.gpus()[j]) : 0;
      INFO("GPU" << i << " - GPU" << j);
      CHECK(got == static_cast<uint64_t>(nv[i][j]));
    }
  }
  CHECK(nodes_of(t, NodeKind::nvswitch).empty());
  // 4 PCIe switches of 2 GPUs and 1 NIC each: GPUs 2k and 2k+1 share NIC k (topo -m: mlx5_0 PIX to
  // GPU0 and GPU1); switches 0-1 on CPU 0.
  CHECK(nodes_of(t, NodeKind::pcie_switch).size() == 4);
  for (size_t i = 0; i < 8; ++i) {
    CHECK(t.nics_of(t.gpus()[i]) == std::vector<NodeIndex>{b.node.nic_ports[i / 2]});
    CHECK(t.node(t.gpus()[i]).domain == 0);
  }
  std::vector<NodeIndex> cpus = nodes_of(t, NodeKind::cpu);
  CHECK(cpu_above(t, pcie_parent(t, t.gpus()[3])) == cpus[0]);
  CHECK(cpu_above(t, pcie_parent(t, t.gpus()[4])) == cpus[1]);
}

TEST_CASE("GB200 NVL72: 18 trays of 4 GPUs, every GPU on each of the 18 NVSwitch chips", "[nodes]") {
  NodeSpec s;
  s.layout = NodeLayout::nvl_rack;
  s.gpu = "gb200";
  s.gpus = 72;
  s.gpus_per_host = 4;
  s.nvswitch_generation = 4;
  s.nvswitches = 18;
  s.nic = "cx7";
  s.nics = 4;                  // per tray, one per GPU
  s.gpus_per_pcie_switch = 0;  // GPUs and NICs straight on the two Grace CPUs of the tray
  Built b = build(s, 10, 2);
  const Topology& t = b.t;
  CHECK(b.node.hosts == 18);  // 72 / 4
  REQUIRE(t.gpus().size() == 72);
  std::vector<NodeIndex> switches = nodes_of(t, NodeKind::nvswitch);
  REQUIRE(switches.size() == 18);
  for (NodeIndex sw : switches) {
    CHECK(out_links(t, sw).size() == 72);  // one cable from every GPU
    CHECK(t.node(sw).host == -1);
    CHECK(t.node(sw).domain == 2);
    CHECK(t.node(sw).reduces);
  }
  for (size_t i = 0; i < 72; ++i) {
    NodeIndex g = t.gpus()[i];
    auto links = nvlinks(t, g, 5);
    CHECK(links.size() == 18);  // one NVLink 5 link to each chip
    CHECK(total(links) == 18);
    CHECK(t.node(g).domain == 2);
    CHECK(t.node(g).host == 10 + static_cast<int>(i / 4));
    CHECK(t.node(g).local_index == static_cast<int>(i % 4));
    REQUIRE(t.nics_of(g).size() == 1);
    CHECK(t.nics_of(g)[0] == b.node.nic_ports[i]);
    CHECK(t.node(t.nics_of(g)[0]).host == t.node(g).host);
    CHECK(t.node(pcie_parent(t, g)).kind == NodeKind::cpu);
  }
  CHECK(nodes_of(t, NodeKind::cpu).size() == 36);  // 2 Grace per tray
  CHECK(nodes_of(t, NodeKind::nic).size() == 72);
  CHECK(t.node(t.gpus()[5]).name == "tray1/gpu1");
}

TEST_CASE("PCIe box: 8x RTX 4090 on PCIe 4.0 x8, no NVLink, no P2P, one shared NIC", "[nodes]") {
  NodeSpec s;
  s.layout = NodeLayout::pcie;
  s.gpu = "rtx-4090";
  s.pcie_generation = 4;
  s.pcie_lanes = 8;
  s.gpus_per_pcie_switch = 0;
  s.p2p = false;
  s.nic = "eth-25g";
  s.nics = 1;
  Topology t = build_node(s);
  for (LinkId l = 0; l < t.link_count(); ++l) CHECK(t.link(l).kind != LinkKind::nvlink);
  for (NodeIndex g : t.gpus()) {
    CHECK_FALSE(t.node(g).p2p);
    CHECK(t.node(g).domain == -1);
    std::vector<LinkId> links = out_links(t, g);
    REQUIRE(links.size() == 1);
    CHECK(t.link(links[0]).kind == LinkKind::pcie);
    CHECK(t.link(links[0]).lanes == 8);
    CHECK(t.link(links[0]).generation == 4);
    // The one NIC sits beside GPU 0 on CPU 0; every GPU uses it, GPUs 4-7 across the socket link.
    CHECK(t.nics_of(g) == nodes_of(t, NodeKind::nic));
  }
}

TEST_CASE("PCIe box: 8x RTX 3090 with NVLink bridges joins the pairs (0,1) (2,3) (4,5) (6,7)", "[nodes]") {
  NodeSpec s;
  s.layout = NodeLayout::pcie;
  s.gpu = "rtx-3090";
  s.nvlink_bridges = true;
  s.nics = 0;
  Built b = build(s, 0, 4);
  const Topology& t = b.t;
  std::set<std::pair<int32_t, int32_t>> bridged;
  for (LinkId l = 0; l < t.link_count(); ++l) {
    if (t.link(l).kind != LinkKind::nvlink) continue;
    auto a = t.node(t.link_source(l)).gpu_index;
    auto z = t.node(t.link_target(l)).gpu_index;
    if (a < z) bridged.insert({a, z});
  }
  CHECK(bridged == std::set<std::pair<int32_t, int32_t>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  for (NodeIndex g : t.gpus()) {
    CHECK(t.node(g).domain == 4);
    CHECK(t.nics_of(g).empty());
  }
  CHECK(b.node.nic_ports.empty());
}

TEST_CASE("Multi-port NICs: one node per port, plane = port, all attached to the GPU", "[nodes]") {
  NodeSpec s = dgx_h100();
  s.nic_ports = 2;
  Built b = build(s);
  REQUIRE(b.node.nic_ports.size() == 16);  // NIC-major: nic_ports[n * 2 + p]
  const NodeProps& port = b.t.node(b.node.nic_ports[2 * 3 + 1]);
  CHECK(port.name == "nic3p1");
  CHECK(port.local_index == 3);
  CHECK(port.plane == 1);
  CHECK(b.t.nics_of(b.t.gpus()[3]) == std::vector<NodeIndex>{b.node.nic_ports[6], b.node.nic_ports[7]});
}

TEST_CASE("Fewer NICs than GPU switches: a GPU uses the nearest NIC of its socket", "[nodes]") {
  NodeSpec s = dgx_h100();
  s.nics = 4;  // beside GPUs 0, 2, 4, 6; one PCIe switch per GPU
  Built b = build(s);
  const std::vector<NodeIndex>& nic = b.node.nic_ports;
  const size_t expected[8] = {0, 0, 1, 1, 2, 2, 3, 3};  // GPU 3 (socket 0) takes NIC 1, not NIC 2
  for (size_t i = 0; i < 8; ++i) CHECK(b.t.nics_of(b.t.gpus()[i]) == std::vector<NodeIndex>{nic[expected[i]]});
}

TEST_CASE("Invalid node specs throw ConfigError naming the field", "[nodes]") {
  using Catch::Contains;
  NodeSpec s = dgx_h100();
  s.pcie_lanes = 0;
  CHECK_THROWS_WITH(build_node(s), Contains("node: pcie_lanes = 0; expected 1, 2, 4, 8 or 16"));
  CHECK_THROWS_AS(validate(s), ConfigError);

  s = dgx_h100();
  s.gpu = "h100-sxmm";
  CHECK_THROWS_WITH(build_node(s), Contains("node: gpu: unknown 'h100-sxmm'"));

  s = dgx_h100();
  s.nic = "cx9";
  CHECK_THROWS_WITH(build_node(s), Contains("node: nic: unknown 'cx9'"));

  NodeSpec bridges;
  bridges.layout = NodeLayout::pcie;
  bridges.gpu = "rtx-3090";
  bridges.nvlink_bridges = true;
  bridges.gpus = 7;
  CHECK_THROWS_WITH(build_node(bridges), Contains("gpus = 7 with nvlink_bridges"));
  bridges.gpus = 8;
  bridges.gpu = "rtx-4090";
  CHECK_THROWS_WITH(build_node(bridges), Contains("rtx-4090 has no NVLink"));

  NodeSpec mesh;
  mesh.layout = NodeLayout::cube_mesh;
  mesh.gpu = "v100";
  mesh.gpus = 4;
  CHECK_THROWS_WITH(build_node(mesh), Contains("gpus = 4; layout cube-mesh has exactly 8"));

  NodeSpec rack;
  rack.layout = NodeLayout::nvl_rack;
  rack.gpu = "gb200";
  rack.gpus = 70;
  rack.gpus_per_host = 4;
  rack.nvswitch_generation = 4;
  rack.nvswitches = 18;
  CHECK_THROWS_WITH(build_node(rack), Contains("gpus = 70 with gpus_per_host = 4"));

  s = dgx_h100();
  s.nic_ports = 0;
  CHECK_THROWS_WITH(build_node(s), Contains("nic_ports = 0; expected 1 or more"));
}

TEST_CASE("Invalid node specs: sockets, NVLink and NVSwitch mismatches", "[nodes]") {
  using Catch::Contains;
  NodeSpec s = dgx_h100();
  s.cpu_sockets = 3;
  CHECK_THROWS_WITH(validate(s), Contains("cpu_sockets = 3; expected 1 or 2"));
  s = dgx_h100();
  s.gpus = 0;
  CHECK_THROWS_WITH(validate(s), Contains("gpus = 0"));
  s = dgx_h100();
  s.nvswitch_generation = 2;  // switches NVLink 3, the H100 speaks NVLink 4
  CHECK_THROWS_WITH(validate(s), Contains("nvswitch_generation = 2 switches NVLink 3"));
  s = dgx_h100();
  s.nvswitches = 0;
  CHECK_THROWS_WITH(validate(s), Contains("nvswitches = 0"));
  s = dgx_h100();
  s.nvlink_links = 20;  // the H100 has 18
  CHECK_THROWS_WITH(validate(s), Contains("nvlink_links = 20"));
  s = dgx_h100();
  s.nvswitches = 1;  // 18 links x 8 GPUs = 144 ports > 64
  CHECK_THROWS_WITH(validate(s), Contains("144 ports"));
  s = dgx_h100();
  s.pcie_generation = 6;  // the H100 is a PCIe 5 device
  CHECK_THROWS_WITH(validate(s), Contains("pcie_generation = 6"));
  s = dgx_h100();
  s.gpus_per_pcie_switch = -1;
  CHECK_THROWS_WITH(validate(s), Contains("gpus_per_pcie_switch = -1"));
  s = dgx_h100();
  s.nics = -2;
  CHECK_THROWS_WITH(validate(s), Contains("nics = -2"));
  s = dgx_h100();
  s.max_payload = 100;
  CHECK_THROWS_WITH(validate(s), Contains("node: pcie: max payload 100"));
  s.layout = NodeLayout::pcie;
  s.max_payload = 256;
  CHECK_THROWS_WITH(validate(s), Contains("NVSwitch chips exist only in layouts nvswitch and nvl-rack"));
  CHECK_NOTHROW(validate(dgx_h100()));
}
