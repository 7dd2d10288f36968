// A Topology is data: a directed graph of nodes (GPUs, switches, ...) and links, stored as plain
// vectors (adjacency lists of link ids) so that the 150 files that see it do not parse Boost.Graph. A
// full-duplex cable is two directed links, each with its own rate.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/core/recorder.h"
#include "sim/core/units.h"

namespace weft {

using LinkId = uint32_t;

enum class NodeKind : uint8_t { gpu, cpu, pcie_switch, nvswitch, nic, network_switch };
enum class LinkKind : uint8_t {
  generic,
  nvlink,
  pcie,
  infiniband,
  ethernet,
  inter_socket
};  // inter_socket: UPI / xGMI

struct NodeProps {
  NodeKind kind = NodeKind::gpu;
  std::string name;
  int32_t gpu_index = -1;    // rank of the GPU in the topology's GPU list; -1 for other nodes
  int32_t host = -1;         // server (or compute tray) the node sits in; -1 for fabric switches
  int32_t domain = -1;       // scale-up (NVLink) domain of GPUs and NVSwitches; -1 when none
  int16_t local_index = -1;  // GPU or NIC number inside its host
  uint8_t tier = 0;          // network switches: 1 leaf, 2 spine, 3 core
  uint8_t plane = 0;         // network plane of a NIC port or switch (multi-plane fabrics)
  bool forwards = false;     // a GPU that relays others' traffic (direct-connect rings, tori)
  bool p2p = true;           // a GPU that may DMA to peers over PCIe (off: staged via host memory)
  bool reduces = false;      // a switch that reduces and multicasts in the network (NVLS, SHARP)
};

// What a builder asks for on every cable it lays.
struct LinkSpec {
  LinkKind kind = LinkKind::generic;
  Bandwidth rate;             // bit/s per direction after line encoding (128b/130b, 64b/66b, ...)
  Time latency;               // propagation + port-to-port latency of this hop
  uint32_t mtu = 4096;        // payload bytes per packet (TLP max payload size for PCIe)
  uint16_t header_bytes = 0;  // wire bytes each packet adds to its payload (headers, CRCs, framing)
  uint8_t generation = 0;     // NVLink / PCIe generation, 0 when not applicable
  uint8_t lanes = 0;          // PCIe lanes, 0 when not applicable

  // Payload rate when every packet is full: rate * mtu / (mtu + header_bytes).
  Bandwidth goodput() const;
};

// One direction of a link.
struct LinkProps : LinkSpec {
  LinkId id = 0;  // dense index, 0..link_count()-1
};

class Topology {
 public:
  NodeIndex add_node(NodeProps props);
  // Lays a full-duplex cable: one directed link a->b and one b->a, both per `spec`.
  void add_duplex_link(NodeIndex a, NodeIndex b, const LinkSpec& spec) { add_duplex_link(a, b, spec, spec); }
  // A cable whose two directions differ (e.g. each direction's latency includes the port it enters).
  void add_duplex_link(NodeIndex a, NodeIndex b, const LinkSpec& a_to_b, const LinkSpec& b_to_a);

  size_t node_count() const { return nodes_.size(); }
  size_t link_count() const { return links_.size(); }
  const NodeProps& node(NodeIndex n) const { return nodes_[n]; }
  const LinkProps& link(LinkId l) const { return links_[l]; }
  NodeIndex link_source(LinkId l) const { return ends_[l].source; }
  NodeIndex link_target(LinkId l) const { return ends_[l].target; }
  // The links leaving (entering) a node, in the order they were laid.
  std::span<const LinkId> out_links(NodeIndex n) const { return adjacency_[n].out; }
  std::span<const LinkId> in_links(NodeIndex n) const { return adjacency_[n].in; }

  // GPU nodes in rank order: gpus()[r] is the node of rank r.
  const std::vector<NodeIndex>& gpus() const { return gpus_; }

  // The NICs a GPU sends through to other hosts, nearest first (one per rail or plane); builders
  // state this affinity explicitly, as NCCL derives it from the PCIe tree.
  void attach_nic(NodeIndex gpu, NodeIndex nic);
  const std::vector<NodeIndex>& nics_of(NodeIndex gpu) const;

  // Throws ConfigError naming a GPU that cannot reach GPU 0 (or that GPU 0 cannot reach).
  void require_connected() const;

  std::string name;         // e.g. "dgx-h100 x4, rail-optimised"
  std::string description;  // one line for `weft topo`

 private:
  struct Ends {
    NodeIndex source;
    NodeIndex target;
  };
  struct Adjacency {
    std::vector<LinkId> out;
    std::vector<LinkId> in;
  };

  std::vector<NodeProps> nodes_;      // by NodeIndex
  std::vector<Adjacency> adjacency_;  // by NodeIndex
  std::vector<LinkProps> links_;      // by LinkId
  std::vector<Ends> ends_;            // by LinkId
  std::vector<NodeIndex> gpus_;
  std::vector<std::vector<NodeIndex>> nics_;  // by node index; empty for all but GPUs with NICs
};

}  // namespace weft
