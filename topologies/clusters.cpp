#include "topologies/clusters.h"

#include <fmt/format.h>
#include <algorithm>

#include "sim/core/errors.h"
#include "topologies/catalogue/links.h"
#include "topologies/catalogue/nics.h"

namespace weft {

NetworkShape parse_network_shape(std::string_view name) {
  if (name == "none") return NetworkShape::none;
  if (name == "single-switch") return NetworkShape::single_switch;
  if (name == "fat-tree" || name == "leaf-spine") return NetworkShape::fat_tree;
  if (name == "rail-optimized" || name == "rail-optimised") return NetworkShape::rail_optimized;
  throw ConfigError(fmt::format(
      "network shape: unknown '{}' (expected none, single-switch, fat-tree, leaf-spine or rail-optimized)", name));
}

std::string_view to_string(NetworkShape shape) {
  switch (shape) {
    case NetworkShape::none:
      return "none";
    case NetworkShape::single_switch:
      return "single-switch";
    case NetworkShape::fat_tree:
      return "fat-tree";
    case NetworkShape::rail_optimized:
      return "rail-optimized";
  }
  return "?";
}

NetworkTechnology parse_network_technology(std::string_view name) {
  if (name == "infiniband" || name == "ib") return NetworkTechnology::infiniband;
  if (name == "roce" || name == "rocev2") return NetworkTechnology::roce;
  if (name == "ethernet" || name == "tcp") return NetworkTechnology::ethernet;
  throw ConfigError(fmt::format("network technology: unknown '{}' (expected infiniband, roce or ethernet)", name));
}

std::string_view to_string(NetworkTechnology technology) {
  switch (technology) {
    case NetworkTechnology::infiniband:
      return "infiniband";
    case NetworkTechnology::roce:
      return "roce";
    case NetworkTechnology::ethernet:
      return "ethernet";
  }
  return "?";
}

namespace {

// Ports of one leaf that face NICs, and those that face spines: down / up = oversubscription.
struct LeafPorts {
  int down = 0;
  int up = 0;
};

LeafPorts leaf_ports(const NetworkSpec& n) {
  auto down = static_cast<int>(n.radix * n.oversubscription / (1.0 + n.oversubscription));
  down = std::clamp(down, 1, n.radix - 1);
  return {down, n.radix - down};
}

int port_gbps(const ClusterSpec& spec) {
  if (spec.network.port_gbps > 0) return spec.network.port_gbps;
  return static_cast<int>(catalogue::nic(spec.node.nic).port_rate.bps() / 1'000'000'000);
}

std::string_view infiniband_name(int gbps) {
  switch (gbps) {
    case 100:
      return "edr";
    case 200:
      return "hdr";
    case 400:
      return "ndr";
    case 800:
      return "xdr";
    default:
      throw ConfigError(
          fmt::format("network: InfiniBand has no {} Gb/s 4x port (expected 100, 200, 400 or 800)", gbps));
  }
}

// One cable type of the network, `metres` long; latency is added per direction by the caller.
LinkSpec wire(const ClusterSpec& spec, double metres) {
  const NetworkSpec& n = spec.network;
  int gbps = port_gbps(spec);
  switch (n.technology) {
    case NetworkTechnology::infiniband:
      return catalogue::infiniband_link(infiniband_name(gbps), metres, n.mtu);
    case NetworkTechnology::roce:
      return catalogue::ethernet_link(gbps, n.mtu, metres);
    case NetworkTechnology::ethernet: {
      // TCP/IP over Ethernet at a 1500 B IP MTU: 1460 B of payload per frame carries Ethernet 14 +
      // IPv4 20 + TCP 20 + FCS 4 + preamble/SFD 8 + inter-frame gap 12 = 78 B (IEEE 802.3, RFC 791/793).
      LinkSpec link = catalogue::ethernet_link(gbps, 1024, metres);
      link.mtu = 1460;
      link.header_bytes = 78;
      return link;
    }
  }
  return {};
}

Time switch_latency(NetworkTechnology technology) {
  return technology == NetworkTechnology::infiniband ? catalogue::latencies().ib_switch
                                                     : catalogue::latencies().ethernet_switch;
}

// The smallest divisor of n that is at least `minimum` (n itself if none is smaller).
int smallest_divisor_at_least(int n, int minimum) {
  for (int d = std::max(minimum, 1); d < n; ++d) {
    if (n % d == 0) return d;
  }
  return n;
}

// Lays the network of one plane over its NIC ports. Each directed link's latency is its cable plus
// the traversal of the switch it enters, if any.
class PlaneBuilder {
 public:
  PlaneBuilder(Topology& t, const ClusterSpec& spec, int plane, int planes)
      : t_(t), spec_(spec), prefix_(planes > 1 ? fmt::format("p{}/", plane) : ""), plane_(plane) {
    nic_wire_ = wire(spec, spec.network.nic_cable_metres);
    switch_wire_ = wire(spec, spec.network.switch_cable_metres);
    switch_latency_ = switch_latency(spec.network.technology);
  }

  // ports[i] = the NIC port; leaf_of[i] = the leaf it is cabled to.
  void build(const std::vector<NodeIndex>& ports, const std::vector<int>& leaf_of, int tiers) {
    int leaves = *std::max_element(leaf_of.begin(), leaf_of.end()) + 1;
    std::vector<NodeIndex> leaf(leaves);
    for (int i = 0; i < leaves; ++i) leaf[i] = add_switch(fmt::format("leaf{}", i), 1);
    for (size_t i = 0; i < ports.size(); ++i) cable_nic(ports[i], leaf[leaf_of[i]]);
    if (tiers == 2) add_spines(leaf);
    if (tiers == 3) add_pods(leaf);
  }

 private:
  NodeIndex add_switch(const std::string& name, uint8_t tier) {
    NodeProps props{NodeKind::network_switch, prefix_ + name};
    props.tier = tier;
    props.reduces = spec_.network.sharp;
    props.plane = static_cast<uint8_t>(plane_);
    return t_.add_node(std::move(props));
  }

  // The NIC's own traversal is on its host-side link (nodes.cpp), so the wire adds only itself.
  void cable_nic(NodeIndex nic, NodeIndex leaf) {
    LinkSpec up = nic_wire_;
    up.latency = nic_wire_.latency + switch_latency_;
    t_.add_duplex_link(nic, leaf, up, nic_wire_);
  }

  void cable_switches(NodeIndex a, NodeIndex b) {
    LinkSpec link = switch_wire_;
    link.latency = switch_wire_.latency + switch_latency_;
    t_.add_duplex_link(a, b, link);
  }

  // 2 tiers: as few spines as hold every leaf's `up` uplinks, each leaf with the same number of
  // parallel cables to each spine (one cable each once the fabric is large).
  void add_spines(const std::vector<NodeIndex>& leaves) {
    const int up = leaf_ports(spec_.network).up;
    const int spines = smallest_divisor_at_least(
        up, (static_cast<int>(leaves.size()) * up + spec_.network.radix - 1) / spec_.network.radix);
    for (int s = 0; s < spines; ++s) {
      NodeIndex spine = add_switch(fmt::format("spine{}", s), 2);
      for (NodeIndex leaf : leaves) {
        for (int k = 0; k < up / spines; ++k) cable_switches(leaf, spine);
      }
    }
  }

  // 3 tiers (k-ary fat-tree generalised to an oversubscribed leaf): pods of radix/2 leaves, each
  // leaf cabled to the pod's `up` aggregation switches; aggregation switch g of every pod is cabled
  // to the radix/2 cores of core group g.
  void add_pods(const std::vector<NodeIndex>& leaves) {
    const int half = spec_.network.radix / 2;
    const int up = leaf_ports(spec_.network).up;
    const int pods = (static_cast<int>(leaves.size()) + half - 1) / half;
    // Core group g takes the `half` uplinks of aggregation switch g of every pod: as few cores as
    // have the ports, with parallel cables from each aggregation switch to each core of its group.
    const int group = smallest_divisor_at_least(half, (pods * half + spec_.network.radix - 1) / spec_.network.radix);
    std::vector<std::vector<NodeIndex>> cores(up);
    for (int g = 0; g < up; ++g) {
      for (int c = 0; c < group; ++c) cores[g].push_back(add_switch(fmt::format("core{}", g * group + c), 3));
    }
    for (int p = 0; p < pods; ++p) {
      for (int g = 0; g < up; ++g) {
        NodeIndex agg = add_switch(fmt::format("pod{}/spine{}", p, g), 2);
        for (int l = p * half; l < std::min<int>((p + 1) * half, static_cast<int>(leaves.size())); ++l) {
          cable_switches(leaves[l], agg);
        }
        for (NodeIndex core : cores[g]) {
          for (int k = 0; k < half / group; ++k) cable_switches(agg, core);
        }
      }
    }
  }

  Topology& t_;
  const ClusterSpec& spec_;
  std::string prefix_;
  int plane_;
  LinkSpec nic_wire_;
  LinkSpec switch_wire_;
  Time switch_latency_;
};

struct Endpoints {
  std::vector<std::vector<NodeIndex>> ports;  // by plane
  std::vector<std::vector<int>> rail;         // NIC number inside its host, by plane
  std::vector<std::vector<int>> host;         // host index, by plane
};

int leaves_needed(const ClusterSpec& spec, const std::vector<int>& rail, const std::vector<int>& host,
                  std::vector<int>& leaf_of) {
  const NetworkSpec& n = spec.network;
  leaf_of.assign(rail.size(), 0);
  if (n.shape == NetworkShape::single_switch) return 1;
  int down = leaf_ports(n).down;
  if (n.shape == NetworkShape::fat_tree) {
    for (size_t i = 0; i < rail.size(); ++i) leaf_of[i] = static_cast<int>(i) / down;
  } else {
    int rails = *std::max_element(rail.begin(), rail.end()) + 1;
    for (size_t i = 0; i < rail.size(); ++i) leaf_of[i] = (host[i] / down) * rails + rail[i];
  }
  return *std::max_element(leaf_of.begin(), leaf_of.end()) + 1;
}

// The fewest tiers whose switches have the ports for `leaves` leaves (or the tiers asked for).
int tiers_for(const NetworkSpec& n, int leaves) {
  int fit = leaves == 1 ? 1 : leaves <= n.radix ? 2 : 3;
  int half = n.radix / 2;
  if (fit == 3 && (leaves + half - 1) / half > n.radix) {
    throw ConfigError(
        fmt::format("network: {} leaves need more than 3 tiers of {}-port switches "
                    "(3 tiers reach {} leaves); raise network.radix",
                    leaves, n.radix, half * n.radix));
  }
  if (n.tiers == 0 || n.shape == NetworkShape::single_switch) return n.shape == NetworkShape::single_switch ? 1 : fit;
  if (n.tiers < fit) {
    throw ConfigError(fmt::format("network: tiers = {} cannot hold {} leaves of {}-port switches (needs {})", n.tiers,
                                  leaves, n.radix, fit));
  }
  return n.tiers;
}

// SHARP needs InfiniBand switches of HDR or later (see NetworkSpec::sharp).
void validate_sharp(const ClusterSpec& spec) {
  const NetworkSpec& n = spec.network;
  if (!n.sharp) return;
  if (n.technology != NetworkTechnology::infiniband) {
    throw ConfigError(
        fmt::format("network: sharp = true on {}; SHARP in-network reduction exists only in InfiniBand "
                    "switches (Quantum HDR: SHARPv2, Quantum-2 NDR: SHARPv3, Quantum-3 XDR); set "
                    "network.technology = infiniband or network.sharp = false",
                    to_string(n.technology)));
  }
  if (port_gbps(spec) < 200) {
    throw ConfigError(
        fmt::format("network: sharp = true on {} Gb/s InfiniBand; the streaming aggregation NCCL's "
                    "CollNet needs starts with HDR (200 Gb/s, Quantum, SHARPv2): NDR 400 and XDR 800 "
                    "have it too",
                    port_gbps(spec)));
  }
}

}  // namespace

void validate(const ClusterSpec& spec) {
  validate(spec.node);
  const NetworkSpec& n = spec.network;
  if (spec.nodes < 1) throw ConfigError(fmt::format("cluster: nodes = {}; expected 1 or more", spec.nodes));
  if (n.shape == NetworkShape::none) {
    if (spec.nodes > 1) {
      throw ConfigError(
          fmt::format("cluster: {} nodes with network shape none; nodes would not be connected "
                      "(pick single-switch, fat-tree or rail-optimized)",
                      spec.nodes));
    }
    if (n.sharp) throw ConfigError("network: sharp = true with network shape none; there are no switches to reduce in");
    return;
  }
  if (spec.node.nics < 1 || spec.node.nic.empty()) {
    throw ConfigError("cluster: the node has no NIC, so it cannot join a network (set node.nic and node.nics)");
  }
  if (n.radix < 4 || n.radix % 2 != 0) {
    throw ConfigError(fmt::format("network: radix = {}; expected an even port count of 4 or more", n.radix));
  }
  if (!(n.oversubscription > 0)) {
    throw ConfigError(
        fmt::format("network: oversubscription = {}; expected a ratio above 0 (1 = non-blocking)", n.oversubscription));
  }
  if (n.tiers < 0 || n.tiers > 3)
    throw ConfigError(fmt::format("network: tiers = {}; expected 0 (auto), 1, 2 or 3", n.tiers));
  if (n.port_gbps < 0 || port_gbps(spec) <= 0) {
    throw ConfigError(
        fmt::format("network: port rate {} Gb/s; expected a positive rate (network.port_gbps, or the NIC's)",
                    n.port_gbps < 0 ? n.port_gbps : port_gbps(spec)));
  }
  wire(spec, n.nic_cable_metres);  // throws for rates the technology does not have
  validate_sharp(spec);
}

Topology build_cluster(const ClusterSpec& spec) {
  validate(spec);
  Topology t;
  Endpoints ends;
  int planes = spec.node.nic_ports;
  ends.ports.resize(planes);
  ends.rail.resize(planes);
  ends.host.resize(planes);
  int next_host = 0;
  for (int n = 0; n < spec.nodes; ++n) {
    std::string prefix = spec.nodes > 1 ? fmt::format("n{}/", n) : "";
    BuiltNode node = add_node(t, spec.node, next_host, n, prefix);
    next_host += node.hosts;
    for (NodeIndex port : node.nic_ports) {
      const NodeProps& p = t.node(port);
      ends.ports[p.plane].push_back(port);
      ends.rail[p.plane].push_back(p.local_index);
      ends.host[p.plane].push_back(p.host);
    }
  }
  if (spec.network.shape != NetworkShape::none) {
    for (int plane = 0; plane < planes; ++plane) {
      std::vector<int> leaf_of;
      int leaves = leaves_needed(spec, ends.rail[plane], ends.host[plane], leaf_of);
      PlaneBuilder(t, spec, plane, planes).build(ends.ports[plane], leaf_of, tiers_for(spec.network, leaves));
    }
  }
  t.name = fmt::format("{} x{}", spec.name.empty() ? spec.node.gpu : spec.name, spec.nodes);
  t.description = fmt::format("{} node(s) of {} {} GPUs, {} {} network", spec.nodes, spec.node.gpus, spec.node.gpu,
                              to_string(spec.network.shape), to_string(spec.network.technology));
  t.require_connected();
  return t;
}

}  // namespace weft
