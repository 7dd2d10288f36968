// Cluster builders, the system catalogue, topology metrics, and routing over real machines.
#include <fmt/format.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "sim/core/errors.h"
#include "tests/one_gpu_hosts.h"
#include "topologies/catalogue/links.h"
#include "topologies/clusters.h"
#include "topologies/metrics.h"
#include "topologies/routing.h"
#include "topologies/systems.h"

using namespace weft;

namespace {

std::map<std::string, uint64_t> node_counts(const Topology& t) {
  Router r(t, 1);
  return summarize(t, r).nodes;
}

bool crosses(const Topology& t, const Path& p, NodeKind kind) {
  for (LinkId l : p.links) {
    if (t.node(t.link_target(l)).kind == kind) return true;
  }
  return false;
}

NodeIndex gpu_of(const Topology& t, int node, int local, int gpus_per_node = 8) {
  return t.gpus()[node * gpus_per_node + local];
}

}  // namespace

TEST_CASE("k=8 fat-tree: 128 hosts, 80 switches, (k/2)^2 paths between pods", "[clusters]") {
  // k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k^3/4 = 128 hosts; k^2/2 = 32 edge and 32
  // aggregation switches and (k/2)^2 = 16 cores, 80 in all. Hosts in different pods have (k/2)^2
  // = 16 shortest paths, in one pod but under different edges k/2 = 4, under one edge 1.
  Topology t = build_cluster(testing::one_gpu_hosts(128, NetworkShape::fat_tree, 8));
  auto nodes = node_counts(t);
  CHECK(nodes["gpu"] == 128);
  CHECK(nodes["leaf"] == 32);
  CHECK(nodes["spine"] == 32);
  CHECK(nodes["core"] == 16);
  Router r(t, 1);
  const auto& g = t.gpus();
  CHECK(r.path_count(g[0], g[1]) == 1);     // same leaf
  CHECK(r.path_count(g[0], g[4]) == 4);     // same pod: one path per aggregation switch
  CHECK(r.path_count(g[0], g[127]) == 16);  // across pods
  // host: GPU -> CPU -> NIC -> leaf -> agg -> core -> agg -> leaf -> NIC -> CPU -> GPU
  CHECK(r.route(g[0], g[127], 0).links.size() == 10);
  // ECMP hashing reaches every one of the 16 paths across enough flows.
  std::set<const Path*> used;
  for (uint64_t e = 0; e < 512; ++e) used.insert(&r.route(g[0], g[127], e));
  CHECK(used.size() == 16);
}

TEST_CASE("2:1 oversubscribed leaf-spine halves the bisection bandwidth", "[clusters]") {
  // radix 12 at 2:1 -> 8 host ports and 4 uplinks per leaf; 32 hosts -> 4 leaves. Ranks [0,16) sit
  // under leaves 0-1, so the cut is their 2 x 4 uplinks: 8 x goodput. At 1:1 (radix 16: 8 down,
  // 8 up) the cut is 16 uplinks, as much as the 16 hosts can send: 16 x goodput.
  const double goodput = 100e9 * 4096 / (4096 + 82);  // RoCEv2 at MTU 4096, 82 B per packet
  Topology over = build_cluster(testing::one_gpu_hosts(32, NetworkShape::fat_tree, 12, 2.0));
  Topology full = build_cluster(testing::one_gpu_hosts(32, NetworkShape::fat_tree, 16, 1.0));
  CHECK(static_cast<double>(bisection_bandwidth(over).bps()) == Approx(8 * goodput).epsilon(1e-6));
  CHECK(static_cast<double>(bisection_bandwidth(full).bps()) == Approx(16 * goodput).epsilon(1e-6));
}

TEST_CASE("rail-optimised: NIC i of every node is on leaf i; cross-rail traffic goes via a spine", "[clusters]") {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 4;
  Topology t = build_cluster(spec);
  Router r(t, 1);
  for (int node = 0; node < 4; ++node) {
    for (int rail = 0; rail < 8; ++rail) {
      NodeIndex nic = t.nics_of(gpu_of(t, node, rail)).at(0);
      const Path& up = r.route(gpu_of(t, node, rail), gpu_of(t, (node + 1) % 4, rail), 0);
      bool found = false;
      for (LinkId l : up.links) {
        if (t.link_source(l) == nic) {
          CHECK(t.node(t.link_target(l)).name == fmt::format("leaf{}", rail));
          found = true;
        }
      }
      CHECK(found);
    }
  }
  // Same rail: GPU -> PCIe switch -> NIC -> leaf -> NIC -> PCIe switch -> GPU, no spine.
  const Path& same_rail = r.route(gpu_of(t, 0, 2), gpu_of(t, 3, 2), 7);
  CHECK(same_rail.links.size() == 6);
  // Other rail: up to a spine and down to the destination's rail leaf.
  const Path& other_rail = r.route(gpu_of(t, 0, 0), gpu_of(t, 3, 5), 7);
  CHECK(other_rail.links.size() == 8);
  CHECK(crosses(t, other_rail, NodeKind::network_switch));
}

TEST_CASE("PXN: cross-rail sends go over NVLink to the rail's GPU first, and skip the spines", "[clusters]") {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  Router pxn(t, RouterOptions{.seed = 1, .pxn = true});
  const Path& p = pxn.route(gpu_of(t, 0, 0), gpu_of(t, 1, 5), 3);
  // GPU0 -> NVSwitch -> GPU5 -> PCIe switch -> NIC5 -> leaf5 -> NIC5' -> PCIe switch -> GPU5'
  REQUIRE(p.links.size() == 8);
  CHECK(t.link(p.links[0]).kind == LinkKind::nvlink);
  CHECK(t.link_target(p.links[1]) == gpu_of(t, 0, 5));
  for (LinkId l : p.links) CHECK(t.node(t.link_target(l)).tier != 2);
  // The NVLink leg interleaves over the four NVSwitches, as any NVLink transfer; from GPU5 on, one way.
  const PathSet* stripes = nullptr;
  pxn.route(gpu_of(t, 0, 0), gpu_of(t, 1, 5), 3, stripes);
  REQUIRE(stripes != nullptr);
  REQUIRE(stripes->size() == 4);
  for (const Path& s : *stripes) {
    REQUIRE(s.links.size() == 8);
    CHECK(std::equal(s.links.begin() + 2, s.links.end(), p.links.begin() + 2));
    CHECK(t.link_target(s.links[1]) == gpu_of(t, 0, 5));
  }
  CHECK(t.link_target((*stripes)[0].links[0]) != t.link_target((*stripes)[1].links[0]));
}

TEST_CASE("PXN relays only through a GPU NVLink reaches without another GPU between (NCCL's PATH_NVL)", "[clusters]") {
  ClusterSpec spec = system_spec("dgx1-v100");  // hybrid cube mesh: GPU0 is cabled to GPUs 1-4 only
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  Router pxn(t, RouterOptions{.seed = 1, .pxn = true});
  const auto first_hop_kind = [&](uint32_t peer) {
    return t.link(pxn.route(gpu_of(t, 0, 0), gpu_of(t, 1, peer), 0).links[0]).kind;
  };
  CHECK(first_hop_kind(2) == LinkKind::nvlink);  // a neighbour with NIC1: reached over NVLink
  CHECK(first_hop_kind(6) != LinkKind::nvlink);  // two NVLink hops away: GPU0's own NIC
  CHECK(first_hop_kind(1) != LinkKind::nvlink);  // shares GPU0's PCIe switch and NIC0: sent directly
  // One NIC per box, which every GPU shares: no relay over the RTX 3090 pairs' bridges.
  ClusterSpec boxes = system_spec("pcie-3090x8-nvlink");
  boxes.nodes = 2;
  Topology b = build_cluster(boxes);
  Router r(b, RouterOptions{.seed = 1, .pxn = true});
  CHECK(b.link(r.route(gpu_of(b, 0, 0), gpu_of(b, 1, 1), 0).links[0]).kind != LinkKind::nvlink);
}

TEST_CASE("intra-node: NVLink beats a shared PCIe switch; P2P off stages through host memory", "[clusters]") {
  SECTION("DGX H100: four NVSwitch paths, never the PCIe switch two GPUs share") {
    Topology t = build_cluster(system_spec("dgx-h100"));
    Router r(t, 1);
    PathSet p = r.paths(t.gpus()[0], t.gpus()[1]);
    CHECK(p.size() == 4);
    for (const Path& path : p) CHECK(t.link(path.links[0]).kind == LinkKind::nvlink);
  }
  SECTION("GPUs on one PCIe switch: P2P through the switch, or through the CPU when off") {
    ClusterSpec spec = system_spec("pcie-4090x8");
    spec.node.gpus_per_pcie_switch = 4;
    spec.node.p2p = true;
    Topology on = build_cluster(spec);
    Router r_on(on, 1);
    const Path& direct = r_on.route(on.gpus()[0], on.gpus()[1], 0);
    CHECK(direct.links.size() == 2);
    CHECK_FALSE(crosses(on, direct, NodeKind::cpu));
    spec.node.p2p = false;
    Topology off = build_cluster(spec);
    Router r_off(off, 1);
    const Path& staged = r_off.route(off.gpus()[0], off.gpus()[1], 0);
    CHECK(crosses(off, staged, NodeKind::cpu));
    CHECK(staged.links.size() == 4);  // GPU -> switch -> CPU (host memory) -> switch -> GPU
  }
  SECTION("NVLink-bridged pair uses its bridge even with P2P off; other pairs go through the CPU") {
    Topology t = build_cluster(system_spec("pcie-3090x8-nvlink"));
    Router r(t, 1);
    const Path& bridged = r.route(t.gpus()[0], t.gpus()[1], 0);
    REQUIRE(bridged.links.size() == 1);
    CHECK(t.link(bridged.links[0]).kind == LinkKind::nvlink);
    CHECK(crosses(t, r.route(t.gpus()[0], t.gpus()[2], 0), NodeKind::cpu));
  }
}

TEST_CASE("every catalogue system builds, two nodes joined, with the GPUs it promises", "[clusters]") {
  for (const SystemPreset& preset : system_presets()) {
    INFO(preset.name);
    ClusterSpec spec = preset.spec();
    spec.nodes = 2;
    Topology t = build_cluster(spec);
    CHECK(t.gpus().size() == static_cast<size_t>(2 * spec.node.gpus));
    Router r(t, 1);
    CHECK(r.route(t.gpus().front(), t.gpus().back(), 0).links.size() > 0);
    CHECK(r.path_count(t.gpus().front(), t.gpus().back()) >= 1);
  }
}

TEST_CASE("3-tier rail-optimised fabric: pods and cores sized by the switch radix", "[clusters]") {
  // 128 DGX H100 at radix 16 (8 down, 8 up): 16 rail groups x 8 rails = 128 leaves, pods of 8
  // leaves -> 16 pods x 8 aggregation switches; core group g holds the 8 uplinks of aggregation
  // switch g of all 16 pods: 16 x 8 / 16 = 8 cores per group, 64 in all.
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 128;
  spec.network.radix = 16;
  Topology t = build_cluster(spec);
  auto nodes = node_counts(t);
  CHECK(nodes["leaf"] == 128);
  CHECK(nodes["spine"] == 128);
  CHECK(nodes["core"] == 64);
  Router r(t, 1);
  // Across pods on different rails: 8 aggregation switches x 8 cores on the way up = 64 paths.
  CHECK(r.path_count(gpu_of(t, 0, 0), gpu_of(t, 127, 1)) == 64);
}

TEST_CASE("routes are a pure function of (seed, src, dst, entropy)", "[clusters]") {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 8;
  spec.network.radix = 8;  // several spines, so the hash matters
  Topology t = build_cluster(spec);
  Router a(t, 7), b(t, 7), c(t, 8);
  int differ = 0;
  for (uint64_t e = 0; e < 64; ++e) {
    NodeIndex s = gpu_of(t, 0, e % 8), d = gpu_of(t, 7, (e + 3) % 8);
    CHECK(a.route(s, d, e).links == b.route(s, d, e).links);
    differ += a.route(s, d, e).links != c.route(s, d, e).links;
  }
  CHECK(differ > 0);
}

TEST_CASE("bad cluster specs are ConfigErrors that say what is wrong", "[clusters]") {
  ClusterSpec spec = system_spec("dgx-h100");
  CHECK_NOTHROW(set_field(spec, "node.gpu", "h1000"));               // any text is a name here...
  CHECK_THROWS_WITH(build_cluster(spec), Catch::Contains("h1000"));  // ...and rejected on build
  spec = system_spec("dgx-h100");
  spec.node.pcie_lanes = 0;
  CHECK_THROWS_WITH(build_cluster(spec), Catch::Contains("pcie_lanes"));
  spec = system_spec("dgx-h100");
  spec.network.port_gbps = -1;
  spec.nodes = 2;
  CHECK_THROWS_WITH(build_cluster(spec), Catch::Contains("port rate"));
  spec.network.port_gbps = 300;
  CHECK_THROWS_WITH(build_cluster(spec), Catch::Contains("300"));
  CHECK_THROWS_WITH(system_spec("dgx-h10"), Catch::Contains("did you mean 'dgx-h100'"));
  ClusterSpec s2 = system_spec("dgx-h100");
  CHECK_THROWS_WITH(set_field(s2, "node.pcie_lane", "8"), Catch::Contains("node.pcie_lanes"));
  CHECK_THROWS_WITH(set_field(s2, "nodes", "four"), Catch::Contains("expected a whole number"));
  CHECK_THROWS_WITH(set_field(s2, "network.shape", "torus"), Catch::Contains("rail-optimized"));
  // One grammar with the YAML reader (sim/core/units.h): true/false, reals with fractions.
  CHECK_THROWS_WITH(set_field(s2, "node.p2p", "yes"), Catch::Equals("node.p2p: expected true or false, got 'yes'"));
  set_field(s2, "node.p2p", "False");
  CHECK_FALSE(s2.node.p2p);
  set_field(s2, "network.oversubscription", "3/2");
  CHECK(s2.network.oversubscription == 1.5);
  s2.nodes = 3;
  s2.network.shape = NetworkShape::none;
  CHECK_THROWS_WITH(build_cluster(s2), Catch::Contains("not be connected"));
  // A graph with a GPU that no cable reaches.
  Topology t;
  t.add_node({NodeKind::gpu, "a"});
  t.add_node({NodeKind::gpu, "b"});
  CHECK_THROWS_WITH(t.require_connected(), Catch::Contains("GPU 1 (b) cannot reach GPU 0"));
}

TEST_CASE("network link specs follow the catalogue: rates, headers, switch latency", "[clusters]") {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  const catalogue::Latencies& lat = catalogue::latencies();
  int checked = 0;
  for (LinkId l = 0; l < t.link_count(); ++l) {
    const LinkProps& p = t.link(l);
    if (p.kind != LinkKind::infiniband) continue;
    CHECK(p.rate == Bandwidth::gbps(400));
    CHECK(p.header_bytes == 26);  // LRH 8 + BTH 12 + ICRC 4 + VCRC 2
    bool into_switch = t.node(t.link_target(l)).kind == NodeKind::network_switch;
    Time cable =
        lat.cable_per_metre *
        (t.node(t.link_source(l)).kind == NodeKind::nic || t.node(t.link_target(l)).kind == NodeKind::nic ? 3 : 30);
    CHECK(p.latency == cable + (into_switch ? lat.ib_switch : Time()));
    ++checked;
  }
  CHECK(checked > 0);
  spec.network.mtu = 2048;  // the RDMA MTU reaches InfiniBand links (it reached RoCE links only)
  Topology small_mtu = build_cluster(spec);
  for (LinkId l = 0; l < small_mtu.link_count(); ++l) {
    if (small_mtu.link(l).kind == LinkKind::infiniband) CHECK(small_mtu.link(l).mtu == 2048);
  }
}

TEST_CASE("next_hops: the equal-cost choices a packet-level switch sprays or adapts over", "[clusters]") {
  // 2 DGX H100: 8 rail leaves of 32 uplinks; 8 x 32 / 64 ports = 4 spines, 8 parallel cables each.
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  Router r(t, RouterOptions{.seed = 1, .policy = parse_routing_policy("spray")});
  NodeIndex leaf0 = 0, leaf5 = 0, spine = 0;
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    if (t.node(n).name == "leaf0") leaf0 = n;
    if (t.node(n).name == "leaf5") leaf5 = n;
    if (t.node(n).name == "spine2") spine = n;
  }
  std::vector<LinkId> hops;
  r.next_hops(leaf0, leaf5, hops);
  CHECK(hops.size() == 32);  // every uplink leads to a spine one hop from leaf5
  r.next_hops(spine, leaf5, hops);
  CHECK(hops.size() == 8);  // the spine's 8 parallel cables down to leaf5
  r.next_hops(leaf5, leaf5, hops);
  CHECK(hops.empty());
  CHECK(to_string(r.options().policy) == "spray");
  CHECK_THROWS_WITH(parse_routing_policy("random"), Catch::Contains("ecmp, spray or adaptive"));
}

TEST_CASE("multi-plane: one network per NIC port; a flow stays on one plane, flows use both", "[clusters]") {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 2;
  spec.node.nic_ports = 2;
  Topology t = build_cluster(spec);
  Router r(t, 1);
  std::set<int> planes_used;
  for (uint64_t e = 0; e < 32; ++e) {
    const Path& p = r.route(gpu_of(t, 0, 1), gpu_of(t, 1, 6), e);
    std::set<int> planes;
    for (LinkId l : p.links) {
      const NodeProps& to = t.node(t.link_target(l));
      if (to.kind == NodeKind::network_switch || to.kind == NodeKind::nic) planes.insert(to.plane);
    }
    CHECK(planes.size() == 1);
    planes_used.insert(*planes.begin());
  }
  CHECK(planes_used == std::set<int>{0, 1});
  // Two planes, each the one-plane fabric: the cross-rail path count doubles.
  ClusterSpec single = system_spec("dgx-h100");
  single.nodes = 2;
  Topology one = build_cluster(single);
  Router r_one(one, 1);
  CHECK(r.path_count(gpu_of(t, 0, 1), gpu_of(t, 1, 6)) == 2 * r_one.path_count(gpu_of(one, 0, 1), gpu_of(one, 1, 6)));
}
