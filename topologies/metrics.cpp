#include "topologies/metrics.h"

#include <fmt/format.h>
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

namespace weft {

std::string_view to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::gpu:
      return "gpu";
    case NodeKind::cpu:
      return "cpu";
    case NodeKind::pcie_switch:
      return "pcie-switch";
    case NodeKind::nvswitch:
      return "nvswitch";
    case NodeKind::nic:
      return "nic";
    case NodeKind::network_switch:
      return "switch";
  }
  return "?";
}

std::string_view to_string(LinkKind kind) {
  switch (kind) {
    case LinkKind::generic:
      return "generic";
    case LinkKind::nvlink:
      return "nvlink";
    case LinkKind::pcie:
      return "pcie";
    case LinkKind::infiniband:
      return "infiniband";
    case LinkKind::ethernet:
      return "ethernet";
    case LinkKind::inter_socket:
      return "inter-socket";
  }
  return "?";
}

namespace {

std::string node_label(const NodeProps& n) {
  if (n.kind != NodeKind::network_switch || n.tier == 0) return std::string(to_string(n.kind));
  static constexpr const char* kTier[] = {"switch", "leaf", "spine", "core"};
  return kTier[std::min<int>(n.tier, 3)];
}

Bandwidth out_goodput(const Topology& t, NodeIndex node, LinkKind kind) {
  uint64_t sum = 0;
  for (LinkId link : t.out_links(node)) {
    const LinkProps& l = t.link(link);
    if (l.kind == kind) sum += l.goodput().bps();
  }
  return Bandwidth::bps(sum);
}

// The GPU's share of each NIC port it sends through: a port shared by k GPUs gives each 1/k.
Bandwidth scale_out(const Topology& t, NodeIndex gpu) {
  if (t.nics_of(gpu).empty()) {  // a GPU cabled straight to the network (simple topologies)
    return Bandwidth::bps(out_goodput(t, gpu, LinkKind::generic).bps() + out_goodput(t, gpu, LinkKind::ethernet).bps() +
                          out_goodput(t, gpu, LinkKind::infiniband).bps());
  }
  uint64_t sum = 0;
  for (NodeIndex nic : t.nics_of(gpu)) {
    uint64_t sharing = 0;
    for (NodeIndex g : t.gpus()) {
      const auto& nics = t.nics_of(g);
      sharing += std::count(nics.begin(), nics.end(), nic) ? 1 : 0;
    }
    for (LinkId link : t.out_links(nic)) {
      const LinkProps& l = t.link(link);
      if (l.kind == LinkKind::infiniband || l.kind == LinkKind::ethernet) sum += l.goodput().bps() / sharing;
    }
  }
  return Bandwidth::bps(sum);
}

uint32_t diameter(const Topology& t, Router& router) {
  const auto& gpus = t.gpus();
  uint32_t most = 0;
  for (NodeIndex from : {gpus.front(), gpus.back()}) {
    for (NodeIndex to : gpus) most = std::max<uint32_t>(most, router.route(from, to, 0).links.size());
  }
  return most;
}

}  // namespace

Bandwidth bisection_bandwidth(const Topology& topology) {
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, int64_t,
                      boost::property<boost::edge_residual_capacity_t, int64_t,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const auto& gpus = topology.gpus();
  if (gpus.size() < 2) return Bandwidth();
  FlowGraph g(topology.node_count() + 2);
  auto capacity = boost::get(boost::edge_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  auto add = [&](size_t a, size_t b, int64_t cap) {
    auto forward = boost::add_edge(a, b, g).first;
    auto back = boost::add_edge(b, a, g).first;
    capacity[forward] = cap;
    capacity[back] = 0;
    reverse[forward] = back;
    reverse[back] = forward;
  };
  for (LinkId l = 0; l < topology.link_count(); ++l) {
    add(topology.link_source(l), topology.link_target(l), static_cast<int64_t>(topology.link(l).goodput().bps()));
  }
  // Source feeds the first half, the second half drains to the sink; a GPU can move no more than
  // all its links, which bounds these edges without an "infinite" that could overflow.
  const size_t source = topology.node_count();
  const size_t sink = source + 1;
  for (size_t r = 0; r < gpus.size(); ++r) {
    int64_t all_links = 0;
    for (LinkId link : topology.out_links(gpus[r])) {
      all_links += static_cast<int64_t>(topology.link(link).goodput().bps());
    }
    if (r < gpus.size() / 2)
      add(source, gpus[r], all_links);
    else
      add(gpus[r], sink, all_links);
  }
  int64_t flow = boost::push_relabel_max_flow(g, source, sink);
  return Bandwidth::bps(static_cast<uint64_t>(flow));
}

TopologySummary summarize(const Topology& topology, Router& router) {
  TopologySummary s;
  for (NodeIndex n = 0; n < topology.node_count(); ++n) ++s.nodes[node_label(topology.node(n))];
  for (LinkId l = 0; l < topology.link_count(); l += 2) ++s.cables[std::string(to_string(topology.link(l).kind))];
  s.gpus = topology.gpus().size();
  if (s.gpus == 0) return s;
  NodeIndex first = topology.gpus().front();
  s.scale_up_per_gpu = out_goodput(topology, first, LinkKind::nvlink);
  s.scale_out_per_gpu = scale_out(topology, first);
  s.bisection = bisection_bandwidth(topology);
  s.diameter = diameter(topology, router);
  // Between GPU 0 and a GPU of the last host on another rail (local index), when there is one.
  s.diversity_src = first;
  s.diversity_dst = topology.gpus().back();
  for (NodeIndex g : topology.gpus()) {
    const NodeProps& p = topology.node(g);
    if (p.host == topology.node(s.diversity_dst).host && p.local_index != topology.node(first).local_index) {
      s.diversity_dst = g;
      break;
    }
  }
  s.path_diversity = router.path_count(s.diversity_src, s.diversity_dst);
  return s;
}

}  // namespace weft
