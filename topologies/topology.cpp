#include "topologies/topology.h"

#include <fmt/format.h>

#include <tuple>
#include <utility>

#include "sim/core/errors.h"

namespace weft {

Bandwidth LinkSpec::goodput() const {
  if (header_bytes == 0) return rate;
  uint128 scaled = static_cast<uint128>(rate.bps()) * mtu / (mtu + header_bytes);
  return Bandwidth::bps(static_cast<uint64_t>(scaled));
}

NodeIndex Topology::add_node(NodeProps props) {
  if (props.kind == NodeKind::gpu) props.gpu_index = static_cast<int32_t>(gpus_.size());
  auto v = static_cast<NodeIndex>(nodes_.size());
  if (props.kind == NodeKind::gpu) gpus_.push_back(v);
  nodes_.push_back(std::move(props));
  adjacency_.emplace_back();
  return v;
}

void Topology::add_duplex_link(NodeIndex a, NodeIndex b, const LinkSpec& a_to_b, const LinkSpec& b_to_a) {
  WEFT_ASSERT(a < node_count() && b < node_count() && a != b);
  for (auto [from, to, spec] : {std::tuple{a, b, &a_to_b}, std::tuple{b, a, &b_to_a}}) {
    auto id = static_cast<LinkId>(links_.size());
    links_.push_back(LinkProps{*spec, id});
    ends_.push_back({from, to});
    adjacency_[from].out.push_back(id);
    adjacency_[to].in.push_back(id);
  }
}

void Topology::attach_nic(NodeIndex gpu, NodeIndex nic) {
  WEFT_ASSERT(gpu < node_count() && nic < node_count());
  WEFT_ASSERT(node(gpu).kind == NodeKind::gpu && node(nic).kind == NodeKind::nic);
  if (nics_.size() <= gpu) nics_.resize(gpu + 1);
  nics_[gpu].push_back(nic);
}

const std::vector<NodeIndex>& Topology::nics_of(NodeIndex gpu) const {
  static const std::vector<NodeIndex> kNone;
  return gpu < nics_.size() ? nics_[gpu] : kNone;
}

// Links are laid in duplex pairs, so reachability from GPU 0 over out-edges is symmetric.
void Topology::require_connected() const {
  if (gpus_.empty()) throw ConfigError(fmt::format("topology '{}': has no GPUs", name));
  std::vector<bool> seen(node_count(), false);
  std::vector<NodeIndex> queue{gpus_[0]};
  seen[gpus_[0]] = true;
  for (size_t head = 0; head < queue.size(); ++head) {
    for (LinkId l : out_links(queue[head])) {
      NodeIndex v = link_target(l);
      if (!seen[v]) {
        seen[v] = true;
        queue.push_back(v);
      }
    }
  }
  for (NodeIndex g : gpus_) {
    if (!seen[g]) {
      throw ConfigError(fmt::format("topology '{}': GPU {} ({}) cannot reach GPU 0 ({}): no cable path joins them",
                                    name, nodes_[g].gpu_index, nodes_[g].name, nodes_[gpus_[0]].name));
    }
  }
}

}  // namespace weft
