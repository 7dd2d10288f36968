#include "topologies/routing.h"

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/core/rng.h"

namespace weft {

Router::Router(const Topology& topology, uint64_t seed, uint32_t max_paths)
    : topology_(topology),
      seed_(seed),
      max_paths_(max_paths),
      distance_(topology.node_count()),
      stamp_(topology.node_count(), 0) {}

const PathSet& Router::paths(NodeIndex src, NodeIndex dst) {
  uint64_t key = (static_cast<uint64_t>(src) << 32) | dst;
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, compute(src, dst)).first;
  return it->second;
}

const Path& Router::route(NodeIndex src, NodeIndex dst, uint64_t entropy) {
  const PathSet& set = paths(src, dst);
  if (set.size() == 1) return set.front();
  uint64_t state = seed_ ^ (entropy * 0x9E3779B97F4A7C15ULL) ^ ((static_cast<uint64_t>(src) << 32) | dst);
  return set[splitmix64(state) % set.size()];
}

// Backward BFS from dst over incoming links; stops once `stop_at` is reached, since every node
// closer to dst than it is then final, and only those lie on shortest paths from it.
void Router::distances_to(NodeIndex dst, NodeIndex stop_at) {
  ++epoch_;
  queue_.clear();
  queue_.push_back(dst);
  stamp_[dst] = epoch_;
  distance_[dst] = 0;
  const TopologyGraph& g = topology_.graph();
  for (size_t head = 0; head < queue_.size(); ++head) {
    NodeIndex v = queue_[head];
    if (v == stop_at) return;
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
      auto u = static_cast<NodeIndex>(boost::source(*e, g));
      if (stamp_[u] == epoch_) continue;
      stamp_[u] = epoch_;
      distance_[u] = distance_[v] + 1;
      queue_.push_back(u);
    }
  }
}

void Router::enumerate(NodeIndex at, NodeIndex dst, std::vector<LinkId>& prefix, PathSet& out) {
  if (out.size() >= max_paths_) return;
  if (at == dst) {
    out.push_back(make_path(prefix));
    return;
  }
  const TopologyGraph& g = topology_.graph();
  for (auto [e, end] = boost::out_edges(at, g); e != end; ++e) {
    auto next = static_cast<NodeIndex>(boost::target(*e, g));
    if (stamp_[next] != epoch_ || distance_[next] + 1 != distance_[at]) continue;
    prefix.push_back(g[*e].id);
    enumerate(next, dst, prefix, out);
    prefix.pop_back();
  }
}

Path Router::make_path(std::vector<LinkId> links) const {
  Path p{std::move(links), Time(), Bandwidth::bps(UINT64_MAX)};
  for (LinkId l : p.links) {
    const LinkProps& props = topology_.link(l);
    p.latency += props.latency;
    p.bottleneck = std::min(p.bottleneck, props.goodput());
  }
  return p;
}

PathSet Router::compute(NodeIndex src, NodeIndex dst) {
  if (src >= topology_.node_count() || dst >= topology_.node_count()) {
    throw ModelError(fmt::format("route: node {} or {} is not in the topology", src, dst));
  }
  PathSet out;
  if (src == dst) {
    out.push_back(Path{{}, Time(), Bandwidth::bps(UINT64_MAX)});
    return out;
  }
  distances_to(dst, src);
  if (stamp_[src] != epoch_) {
    throw ModelError(fmt::format("route: no path from {} to {}", topology_.node(src).name,
                                 topology_.node(dst).name));
  }
  std::vector<LinkId> prefix;
  enumerate(src, dst, prefix, out);
  return out;
}

}  // namespace weft
