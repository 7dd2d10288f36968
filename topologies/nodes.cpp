// Node builders. Every rate and latency comes from the catalogue; this file only decides the wiring.
//
// Latency convention: a cable keeps the catalogue's per-hop latency (nvlink_link: the two NVLink
// ports; pcie_link: one PCIe switch traversal per hop) and adds half the traversal of each element
// at its ends that the hop does not cover (NVSwitch, CPU root complex), so a path through such an
// element pays it once. A NIC port's PCIe cable carries the NIC's whole traversal (host to wire,
// catalogue::NicSpec::latency): a path to another host crosses one such cable at each end, so
// cluster cables must not add it again.
//
// Socket placement: PCIe switches (or GPUs on the root complex) fill the sockets in contiguous
// blocks, the first half on CPU 0, as on DGX-1 (GPUs 0-3 on CPU 0, topo -m cited at kCubeMesh),
// DGX A100 (GPUs 0-3 on NUMA nodes 1 and 3 of socket 0) and DGX H100 (user guide, table 6:
// network module 0 / CPU 0 serves GPUs 0-3).
#include "topologies/nodes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <span>
#include <tuple>

#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/catalogue/links.h"
#include "topologies/catalogue/nics.h"
#include "topologies/node_checks.h"

namespace weft {
namespace {

using node_spec::gpu_of;
using node_spec::links_per_switch;
using node_spec::nic_of;
using node_spec::resolved;

// --- building --------------------------------------------------------------------------------

// Where a host's parts go: its number and the prefix of their names.
struct Host {
  int index = 0;
  std::string prefix;
};

NodeProps part(NodeKind kind, const Host& h, const std::string& name) {
  NodeProps p;
  p.kind = kind;
  p.name = h.prefix + name;
  p.host = h.index;
  return p;
}

// Adds half of a switching element's traversal latency to a cable ending at it (see the top of the file).
LinkSpec through(LinkSpec link, Time traversal) {
  link.latency += Time::ps(traversal.ps() / 2);
  return link;
}

// Where a host's GPUs hang in its PCIe tree.
struct PcieTree {
  std::vector<NodeIndex> cpus;
  std::vector<NodeIndex> parent;  // per GPU: its PCIe switch, or its CPU when on the root complex
  std::vector<int> slot;          // per GPU: its PCIe switch number, or its socket on the root complex
  std::vector<int> socket;        // per GPU
};

// PCIe switch uplinks are x16 at the GPUs' generation: the switch is bought for the GPUs under it
// (DGX-1: PLX PEX8764 Gen3 x16 for Gen3 V100s, NCCL topology dump in NVIDIA/nccl#671), and an older
// NIC beside them negotiates its own link down without slowing the uplink.
LinkSpec uplink(const NodeSpec& s) {
  return through(catalogue::pcie_link(s.pcie_generation, 16, s.max_payload), catalogue::latencies().pcie_root_complex);
}

LinkSpec socket_link() {
  return {LinkKind::inter_socket, catalogue::cpu_interconnect_rate(), catalogue::latencies().cpu_interconnect};
}

PcieTree add_pcie_tree(Topology& t, const NodeSpec& s, std::span<const NodeIndex> gpus, const Host& h) {
  const auto& lat = catalogue::latencies();
  PcieTree tree;
  for (int c = 0; c < s.cpu_sockets; ++c) {
    tree.cpus.push_back(t.add_node(part(NodeKind::cpu, h, fmt::format("cpu{}", c))));
  }
  if (s.cpu_sockets == 2) {
    LinkSpec upi = through(through(socket_link(), lat.pcie_root_complex), lat.pcie_root_complex);
    t.add_duplex_link(tree.cpus[0], tree.cpus[1], upi);
  }

  int g = static_cast<int>(gpus.size());
  int per_switch = s.gpus_per_pcie_switch;
  int switches = per_switch > 0 ? (g + per_switch - 1) / per_switch : 0;
  std::vector<NodeIndex> switch_nodes;
  for (int w = 0; w < switches; ++w) {
    switch_nodes.push_back(t.add_node(part(NodeKind::pcie_switch, h, fmt::format("pcie{}", w))));
    t.add_duplex_link(switch_nodes.back(), tree.cpus[static_cast<size_t>(w * s.cpu_sockets / switches)], uplink(s));
  }
  LinkSpec link = catalogue::pcie_link(s.pcie_generation, s.pcie_lanes, s.max_payload);
  for (int i = 0; i < g; ++i) {
    int slot = switches > 0 ? i / per_switch : i * s.cpu_sockets / g;
    int socket = switches > 0 ? slot * s.cpu_sockets / switches : slot;
    NodeIndex parent = switches > 0 ? switch_nodes[static_cast<size_t>(slot)] : tree.cpus[static_cast<size_t>(slot)];
    t.add_duplex_link(gpus[static_cast<size_t>(i)], parent, switches > 0 ? link : through(link, lat.pcie_root_complex));
    tree.parent.push_back(parent);
    tree.slot.push_back(slot);
    tree.socket.push_back(socket);
  }
  return tree;
}

// The GPU whose NICs GPU i uses: itself if it has some, else the nearest one that has: same
// socket first, then the nearest PCIe switch, then the nearest GPU number. Some GPU has NICs.
size_t nic_donor(int i, const PcieTree& tree, const std::vector<std::vector<NodeIndex>>& beside) {
  auto u = static_cast<size_t>(i);
  auto distance = [&](size_t j) {
    return std::tuple{tree.socket[j] != tree.socket[u], std::abs(tree.slot[j] - tree.slot[u]),
                      std::abs(static_cast<int>(j) - i), j};
  };
  int best = -1;
  for (size_t j = 0; j < beside.size(); ++j) {
    if (beside[j].empty()) continue;
    if (best < 0 || distance(j) < distance(static_cast<size_t>(best))) best = static_cast<int>(j);
  }
  WEFT_ASSERT(best >= 0);
  return static_cast<size_t>(best);
}

// NIC n sits beside GPU floor(n * G / N), on that GPU's PCIe switch (or CPU without switches):
// with one NIC per GPU, GPU i and NIC i share a switch (DGX A100 and H100: each GPU is PIX or PXB
// to its own NIC in nvidia-smi topo -m); fewer NICs spread evenly (DGX-1: one ConnectX-4 per
// switch, shared by its 2 GPUs). Each port is a node cabled to the NIC's PCIe parent (an upper
// bound: the ports of a multi-port NIC really share its one PCIe link). Returns the ports NIC-major.
std::vector<NodeIndex> add_nics(Topology& t, const NodeSpec& s, std::span<const NodeIndex> gpus, const PcieTree& tree,
                                const Host& h) {
  std::vector<NodeIndex> ports;
  if (s.nics == 0) return ports;
  const catalogue::NicSpec& nic = nic_of(s);
  const auto& lat = catalogue::latencies();
  LinkSpec link = catalogue::pcie_link(nic.pcie_generation, nic.pcie_lanes, s.max_payload);
  link.latency += nic.latency;
  bool on_switches = s.gpus_per_pcie_switch > 0;
  std::vector<std::vector<NodeIndex>> beside(gpus.size());
  for (int n = 0; n < s.nics; ++n) {
    auto gpu = static_cast<size_t>(static_cast<int64_t>(n) * static_cast<int64_t>(gpus.size()) / s.nics);
    for (int p = 0; p < s.nic_ports; ++p) {
      std::string name = s.nic_ports == 1 ? fmt::format("nic{}", n) : fmt::format("nic{}p{}", n, p);
      NodeProps props = part(NodeKind::nic, h, name);
      props.local_index = static_cast<int16_t>(n);
      props.plane = static_cast<uint8_t>(p);
      NodeIndex port = t.add_node(std::move(props));
      t.add_duplex_link(port, tree.parent[gpu], on_switches ? link : through(link, lat.pcie_root_complex));
      ports.push_back(port);
      beside[gpu].push_back(port);
    }
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (NodeIndex port : beside[nic_donor(static_cast<int>(i), tree, beside)]) {
      t.attach_nic(gpus[i], port);
    }
  }
  return ports;
}

// One host: `count` GPUs, its PCIe tree and its NICs.
BuiltNode add_host(Topology& t, const NodeSpec& s, int count, const Host& h, int gpu_domain) {
  BuiltNode b;
  for (int i = 0; i < count; ++i) {
    NodeProps props = part(NodeKind::gpu, h, fmt::format("gpu{}", i));
    props.domain = gpu_domain;
    props.local_index = static_cast<int16_t>(i);
    props.p2p = s.p2p;
    b.gpus.push_back(t.add_node(std::move(props)));
  }
  PcieTree tree = add_pcie_tree(t, s, b.gpus, h);
  b.nic_ports = add_nics(t, s, b.gpus, tree, h);
  return b;
}

// Every GPU cabled to every NVSwitch chip, one cable per (GPU, chip) bundling its share of links.
void add_nvswitch_fabric(Topology& t, const NodeSpec& s, const std::vector<NodeIndex>& gpus, const Host& h,
                         int domain) {
  const catalogue::NvswitchGeneration& gen = catalogue::nvswitch(s.nvswitch_generation);
  std::vector<int> split = links_per_switch(s.nvlink_links, s.nvswitches);
  for (int j = 0; j < s.nvswitches; ++j) {
    NodeProps props = part(NodeKind::nvswitch, h, fmt::format("nvsw{}", j));
    props.domain = domain;
    props.reduces = gen.reduces;
    NodeIndex sw = t.add_node(std::move(props));
    LinkSpec link = through(catalogue::nvlink_link(s.nvlink_generation, split[static_cast<size_t>(j)]), gen.latency);
    for (NodeIndex g : gpus) t.add_duplex_link(g, sw, link);
  }
}

// DGX-1 with V100: the NVLink2 hybrid cube mesh, two fully connected quads {0..3}, {4..7} plus
// i <-> i+4, with the link counts `nvidia-smi topo -m` prints on a DGX-1V (NV1 / NV2; e.g.
// Microway, "nvidia-smi: Control Your GPUs"; NVIDIA, "DGX-1 with Tesla V100 System Architecture"
// white paper, figure of the hybrid cube-mesh). Each GPU uses all 6 of its links.
struct MeshCable {
  int a, b, links;
};
constexpr MeshCable kCubeMesh[] = {
    {0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
    {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2},
};

void add_cube_mesh(Topology& t, const NodeSpec& s, const std::vector<NodeIndex>& gpus) {
  for (const MeshCable& c : kCubeMesh) {
    t.add_duplex_link(gpus[static_cast<size_t>(c.a)], gpus[static_cast<size_t>(c.b)],
                      catalogue::nvlink_link(s.nvlink_generation, c.links));
  }
}

// GB200 NVL72 class: trays of gpus_per_host GPUs, each tray a host with its own CPUs, PCIe tree and
// NICs; one NVLink domain with its NVSwitch chips outside every host (host -1). The Grace <-> GPU
// NVLink-C2C (900 GB/s, no catalogue entry) is modelled as the spec's PCIe GPU link (x16 of the
// GPU's generation by default; it carries only host traffic here). The spec's PCIe fields apply per
// tray as in any layout; we model GB200 with gpus_per_pcie_switch = 0, GPUs and ConnectX-7s straight
// on their Grace [unverified: compute-node diagram of NVIDIA's multi-node NVLink tuning guide,
// docs.nvidia.com/multi-node-nvlink-systems]. The tray's two Graces are joined like two sockets.
BuiltNode add_rack(Topology& t, const NodeSpec& s, int first_host, int domain, const std::string& prefix) {
  BuiltNode rack;
  rack.hosts = s.gpus / s.gpus_per_host;
  for (int tray = 0; tray < rack.hosts; ++tray) {
    BuiltNode b = add_host(t, s, s.gpus_per_host, {first_host + tray, fmt::format("{}tray{}/", prefix, tray)}, domain);
    rack.gpus.insert(rack.gpus.end(), b.gpus.begin(), b.gpus.end());
    rack.nic_ports.insert(rack.nic_ports.end(), b.nic_ports.begin(), b.nic_ports.end());
  }
  add_nvswitch_fabric(t, s, rack.gpus, {-1, prefix}, domain);
  return rack;
}

std::string scale_up_text(const NodeSpec& s) {
  switch (s.layout) {
    case NodeLayout::nvswitch:
    case NodeLayout::nvl_rack:
      return fmt::format("{} NVSwitch gen {} chips, {} NVLink {} links per GPU", s.nvswitches, s.nvswitch_generation,
                         s.nvlink_links, s.nvlink_generation);
    case NodeLayout::cube_mesh:
      return fmt::format("NVLink {} hybrid cube mesh", s.nvlink_generation);
    case NodeLayout::pcie:
      break;
  }
  return s.nvlink_bridges ? fmt::format("NVLink {} bridges in pairs", s.nvlink_generation) : "no NVLink";
}

std::string describe(const NodeSpec& s) {
  return fmt::format("{} x {}: {}; PCIe {} x{}, {} GPUs per PCIe switch, {} socket(s); {} x {} NIC, {} port(s) each",
                     s.gpus, s.gpu, scale_up_text(s), s.pcie_generation, s.pcie_lanes, s.gpus_per_pcie_switch,
                     s.cpu_sockets, s.nics, s.nics > 0 ? s.nic : "no", s.nic_ports);
}

}  // namespace

std::string_view to_string(NodeLayout layout) {
  switch (layout) {
    case NodeLayout::nvswitch:
      return "nvswitch";
    case NodeLayout::cube_mesh:
      return "cube-mesh";
    case NodeLayout::nvl_rack:
      return "nvl-rack";
    case NodeLayout::pcie:
      return "pcie";
  }
  return "?";
}

BuiltNode add_node(Topology& t, const NodeSpec& spec, int first_host, int domain, const std::string& prefix) {
  validate(spec);
  NodeSpec s = resolved(spec);
  Host host{first_host, prefix};
  switch (s.layout) {
    case NodeLayout::nvswitch: {
      BuiltNode b = add_host(t, s, s.gpus, host, domain);
      add_nvswitch_fabric(t, s, b.gpus, host, domain);
      return b;
    }
    case NodeLayout::cube_mesh: {
      BuiltNode b = add_host(t, s, s.gpus, host, domain);
      add_cube_mesh(t, s, b.gpus);
      return b;
    }
    case NodeLayout::nvl_rack:
      return add_rack(t, s, first_host, domain, prefix);
    case NodeLayout::pcie:
      break;
  }
  // PCIe box: a scale-up domain only when bridges join GPU pairs (the router decides per pair).
  BuiltNode b = add_host(t, s, s.gpus, host, s.nvlink_bridges ? domain : -1);
  if (s.nvlink_bridges) {
    LinkSpec bridge = catalogue::nvlink_link(s.nvlink_generation, s.nvlink_links);
    for (size_t i = 0; i + 1 < b.gpus.size(); i += 2) t.add_duplex_link(b.gpus[i], b.gpus[i + 1], bridge);
  }
  return b;
}

Topology build_node(const NodeSpec& spec) {
  Topology t;
  t.name = fmt::format("{} x{} ({})", spec.gpu, spec.gpus, to_string(spec.layout));
  add_node(t, spec, 0, 0, "");
  t.description = describe(resolved(spec));
  t.require_connected();
  return t;
}

}  // namespace weft
