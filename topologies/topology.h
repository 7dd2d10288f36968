// A Topology is data: a Boost.Graph of nodes (GPUs, switches, ...) and directed links. A full-duplex
// cable is two directed links, each with its own rate.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/recorder.h"
#include "sim/core/units.h"

namespace weft {

using LinkId = uint32_t;

enum class NodeKind : uint8_t { gpu, cpu, pcie_switch, nvswitch, nic, network_switch };
enum class LinkKind : uint8_t { generic, nvlink, pcie, infiniband, ethernet };

struct NodeProps {
  NodeKind kind = NodeKind::gpu;
  std::string name;
  int32_t gpu_index = -1;  // rank of the GPU in the topology's GPU list; -1 for other nodes
};

// One direction of a link.
struct LinkProps {
  LinkKind kind = LinkKind::generic;
  Bandwidth rate;      // bit/s, this direction
  Time latency;        // propagation + port-to-port latency of this hop
  uint32_t mtu = 4096; // bytes of payload per packet (used by packet-level models)
  LinkId id = 0;       // dense index, 0..link_count()-1
};

// What a builder asks for on every cable it lays.
struct LinkSpec {
  LinkKind kind = LinkKind::generic;
  Bandwidth rate;
  Time latency;
  uint32_t mtu = 4096;
};

using TopologyGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, NodeProps, LinkProps>;

class Topology {
 public:
  Topology() = default;
  // Edge descriptors point into the graph they came from: copies and moves re-index the links.
  Topology(const Topology& other);
  Topology(Topology&& other) noexcept;
  Topology& operator=(const Topology& other);
  Topology& operator=(Topology&& other) noexcept;
  ~Topology() = default;

  NodeIndex add_node(NodeProps props);
  // Lays a full-duplex cable: one directed link a->b and one b->a, both per `spec`.
  void add_duplex_link(NodeIndex a, NodeIndex b, const LinkSpec& spec);

  const TopologyGraph& graph() const { return graph_; }
  size_t node_count() const { return boost::num_vertices(graph_); }
  size_t link_count() const { return links_.size(); }
  const NodeProps& node(NodeIndex n) const { return graph_[n]; }
  const LinkProps& link(LinkId l) const { return graph_[links_[l]]; }
  NodeIndex link_source(LinkId l) const { return static_cast<NodeIndex>(boost::source(links_[l], graph_)); }
  NodeIndex link_target(LinkId l) const { return static_cast<NodeIndex>(boost::target(links_[l], graph_)); }

  // GPU nodes in rank order: gpus()[r] is the node of rank r.
  const std::vector<NodeIndex>& gpus() const { return gpus_; }

 private:
  void index_links();

  TopologyGraph graph_;
  std::vector<TopologyGraph::edge_descriptor> links_;  // by LinkId
  std::vector<NodeIndex> gpus_;
};

}  // namespace weft
