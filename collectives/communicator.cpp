#include "collectives/communicator.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "collectives/tuner.h"
#include "sim/core/errors.h"

namespace weft {

namespace {

// What NCCL counts as a node for each GPU: its host, or its NVLink domain when that domain spans
// several hosts (an NVL72 rack's 18 compute trays are one NVLink domain of 72 GPUs, which NCCL's
// multi-node NVLink support (MNNVL, NCCL 2.20+) treats as one node: nNodes counts NVLink cliques).
std::vector<int32_t> node_of_gpus(const Topology& topology) {
  std::map<int32_t, int32_t> host_of_domain;  // domain -> one host, or -2 when it spans several
  for (NodeIndex g : topology.gpus()) {
    const NodeProps& p = topology.node(g);
    if (p.domain < 0) continue;
    auto [it, fresh] = host_of_domain.emplace(p.domain, p.host);
    if (!fresh && it->second != p.host) it->second = -2;
  }
  std::vector<int32_t> node;
  node.reserve(topology.gpus().size());
  for (NodeIndex g : topology.gpus()) {
    const NodeProps& p = topology.node(g);
    const bool rack = p.domain >= 0 && host_of_domain[p.domain] == -2;
    node.push_back(rack ? -3 - p.domain : p.host);  // domains below -2, hosts from 0: never equal
  }
  return node;
}

}  // namespace

CommunicatorLayout layout_of(const Topology& topology, std::span<const uint32_t> gpus) {
  if (gpus.empty()) throw ConfigError("communicator: expected at least one rank");
  const auto count = static_cast<uint32_t>(topology.gpus().size());
  const std::vector<int32_t> node_of = node_of_gpus(topology);
  std::vector<bool> seen(count, false);
  std::vector<int32_t> host_order;  // hosts by their first rank
  std::map<int32_t, std::vector<uint32_t>> ranks_of_host;
  for (uint32_t r = 0; r < gpus.size(); ++r) {
    if (gpus[r] >= count) {
      throw ConfigError(fmt::format("communicator: rank {} is on GPU {}, but the system has {} GPUs (0..{})", r,
                                    gpus[r], count, count - 1));
    }
    if (seen[gpus[r]]) throw ConfigError(fmt::format("communicator: GPU {} holds two ranks", gpus[r]));
    seen[gpus[r]] = true;
    const int32_t host = node_of[gpus[r]];
    if (!ranks_of_host.contains(host)) host_order.push_back(host);
    ranks_of_host[host].push_back(r);
  }
  CommunicatorLayout layout;
  layout.nodes = static_cast<uint32_t>(host_order.size());
  layout.per_node = static_cast<uint32_t>(ranks_of_host[host_order.front()].size());
  for (int32_t host : host_order) {
    const std::vector<uint32_t>& ranks = ranks_of_host[host];
    layout.uniform = layout.uniform && ranks.size() == layout.per_node;
    for (uint32_t r : ranks) {
      layout.by_position.push_back(r);
      layout.gpu_of_position.push_back(gpus[r]);
    }
  }
  return layout;
}

std::vector<std::vector<bool>> nvlink_neighbours(const Topology& t, std::span<const uint32_t> gpus) {
  const size_t n = gpus.size();
  std::vector<int32_t> position(t.gpus().size(), -1);
  for (size_t p = 0; p < n; ++p) position[gpus[p]] = static_cast<int32_t>(p);
  std::vector<std::vector<bool>> adj(n, std::vector<bool>(n, false));
  for (LinkId l = 0; l < t.link_count(); ++l) {
    if (t.link(l).kind != LinkKind::nvlink) continue;
    const NodeProps& a = t.node(t.link_source(l));
    const NodeProps& b = t.node(t.link_target(l));
    if (a.kind != NodeKind::gpu || b.kind != NodeKind::gpu) continue;
    const int32_t i = position[a.gpu_index], j = position[b.gpu_index];
    if (i >= 0 && j >= 0) adj[i][j] = true;
  }
  return adj;
}

TunerInput describe_communicator(const Topology& topology, const ClusterSpec& spec, const CommunicatorLayout& layout,
                                 CollectiveOp op, Bytes size) {
  TunerInput in = describe_for_tuner(topology, spec, op, size);
  const auto ranks = static_cast<uint32_t>(layout.by_position.size());
  in.nodes = layout.uniform ? layout.nodes : ranks;
  in.gpus_per_node = layout.uniform ? layout.per_node : 1;
  // A bridged pair inside a PCIe host (describe_for_tuner says PCI for the host as a whole).
  if (in.gpus_per_node == 2 && in.intra == IntraLink::pci) {
    std::vector<uint32_t> pair(layout.gpu_of_position.begin(), layout.gpu_of_position.begin() + 2);
    auto adj = nvlink_neighbours(topology, pair);
    if (adj[0][1]) {
      in.intra = IntraLink::nvlink;
      in.bw_intra_GBps = nvlink_GBps(spec.node);
    }
  }
  return in;
}

}  // namespace weft
