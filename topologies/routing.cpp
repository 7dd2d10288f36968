// Routing (see routing.h): the public queries and routing inside a host or an NVLink domain;
// routing_network.cpp has the way between hosts.
#include "topologies/routing.h"

#include <fmt/format.h>
#include <algorithm>
#include <functional>

#include "sim/core/errors.h"
#include "sim/core/rng.h"
#include "topologies/routing_detail.h"

namespace weft {

using namespace routing_detail;

RoutingPolicy parse_routing_policy(std::string_view name) {
  if (name == "ecmp") return RoutingPolicy::ecmp;
  if (name == "spray") return RoutingPolicy::spray;
  if (name == "adaptive") return RoutingPolicy::adaptive;
  throw ConfigError(fmt::format("routing: unknown policy '{}' (expected ecmp, spray or adaptive)", name));
}

std::string_view to_string(RoutingPolicy policy) {
  switch (policy) {
    case RoutingPolicy::ecmp:
      return "ecmp";
    case RoutingPolicy::spray:
      return "spray";
    case RoutingPolicy::adaptive:
      return "adaptive";
  }
  return "?";
}

size_t Router::LinksHash::operator()(const std::vector<LinkId>& links) const {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (LinkId l : links) h = (h ^ l) * 0x100000001B3ULL;
  return h;
}

Router::Router(const Topology& topology, RouterOptions options)
    : topology_(topology),
      options_(options),
      switch_index_(topology.node_count(), kNoSwitch),
      distance_(topology.node_count()),
      stamp_(topology.node_count(), 0) {
  for (NodeIndex n = 0; n < topology.node_count(); ++n) {
    const NodeProps& p = topology.node(n);
    if (p.kind == NodeKind::network_switch) switch_index_[n] = switch_count_++;
    if (p.kind == NodeKind::cpu && p.host >= 0) {
      if (cpus_by_host_.size() <= static_cast<size_t>(p.host)) cpus_by_host_.resize(p.host + 1);
      cpus_by_host_[p.host].push_back(n);
    }
  }
}

Router::~Router() = default;

// ---------------------------------------------------------------------------------------------
// Public queries

const Path& Router::route(NodeIndex src, NodeIndex dst, uint64_t entropy) {
  const PathSet* stripes = nullptr;
  return route(src, dst, entropy, stripes);
}

const Path& Router::route(NodeIndex src, NodeIndex dst, uint64_t entropy, const PathSet*& stripes) {
  stripes = nullptr;
  if (!crosses_network(src, dst)) {
    const LocalRoutes& local = local_routes(src, dst);
    const PathSet& set = local.paths;
    if (local.nvlink_striped) stripes = &set;
    if (set.size() == 1) return set.front();
    return set[flow_hash(options_.seed, src, dst, entropy, 0) % set.size()];
  }
  if (const PathSet* relayed = relay_stripes(src, dst, entropy)) {
    stripes = relayed;
    return relayed->front();
  }
  uint64_t state = pair_key(src, dst) ^ (entropy * 0x9E3779B97F4A7C15ULL);
  const uint64_t hash = splitmix64(state);
  if (const Path* known = routes_.find_or_add(src, dst, entropy, hash)) return *known;
  // Asked again once interned: working the path out may have added other keys (and moved the slots).
  const Path& path = intern(inter_host_links(src, dst, entropy));
  routes_.find_or_add(src, dst, entropy, hash) = &path;
  return path;
}

PathSet Router::paths(NodeIndex src, NodeIndex dst, uint32_t limit) {
  if (!crosses_network(src, dst)) {
    const PathSet& set = local_paths(src, dst);
    return PathSet(set.begin(), set.begin() + std::min<size_t>(limit, set.size()));
  }
  // Sample the flow hash: distinct paths in the order entropies first reach them.
  PathSet out;
  std::vector<const Path*> seen;
  for (uint64_t entropy = 0; entropy < 16ULL * limit && out.size() < limit; ++entropy) {
    const Path& p = route(src, dst, entropy);
    if (std::find(seen.begin(), seen.end(), &p) != seen.end()) continue;
    seen.push_back(&p);
    out.push_back(p);
  }
  return out;
}

uint64_t Router::path_count(NodeIndex src, NodeIndex dst) {
  if (!crosses_network(src, dst)) return count_local(src, dst);
  NodeIndex egress = egress_gpu(src, dst);
  uint64_t to_egress = egress == src ? 1 : count_local(src, egress);
  uint64_t total = 0;
  for (NodeIndex nic_s : topology_.nics_of(egress)) {
    for (NodeIndex nic_d : topology_.nics_of(dst)) {
      if (topology_.node(nic_d).plane != topology_.node(nic_s).plane) continue;
      total += to_egress * count_local(egress, nic_s) * count_network(leaf_of(nic_s), leaf_of(nic_d)) *
               count_local(nic_d, dst);
    }
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// Inside a host or an NVLink domain (and any topology without NIC affinity)

bool Router::crosses_network(NodeIndex src, NodeIndex dst) const {
  if (src >= topology_.node_count() || dst >= topology_.node_count()) {
    throw ModelError(fmt::format("route: node {} or {} is not in the topology", src, dst));
  }
  const NodeProps& s = topology_.node(src);
  const NodeProps& d = topology_.node(dst);
  if (s.kind != NodeKind::gpu || d.kind != NodeKind::gpu || s.host < 0 || s.host == d.host) return false;
  if (s.domain >= 0 && s.domain == d.domain) return false;  // one NVLink domain (e.g. NVL72 trays)
  return !topology_.nics_of(src).empty() && !topology_.nics_of(dst).empty();
}

const PathSet& Router::local_paths(NodeIndex src, NodeIndex dst) { return local_routes(src, dst).paths; }

const Router::LocalRoutes& Router::local_routes(NodeIndex src, NodeIndex dst) {
  auto it = local_cache_.find(pair_key(src, dst));
  if (it != local_cache_.end()) return it->second;
  LocalRoutes local{compute_local(src, dst)};
  local.nvlink_striped =
      local.paths.size() > 1 && std::all_of(local.paths.begin(), local.paths.end(), [&](const Path& p) {
        return std::all_of(p.links.begin(), p.links.end(),
                           [&](LinkId l) { return topology_.link(l).kind == LinkKind::nvlink; });
      });
  return local_cache_.emplace(pair_key(src, dst), std::move(local)).first->second;
}

PathSet Router::compute_local(NodeIndex src, NodeIndex dst) {
  if (src == dst) return {make_path({})};
  const NodeProps& s = topology_.node(src);
  const NodeProps& d = topology_.node(dst);
  bool same_host = s.host >= 0 && s.host == d.host;
  bool same_domain = s.domain >= 0 && s.domain == d.domain;
  if (s.kind == NodeKind::gpu && d.kind == NodeKind::gpu && (same_host || same_domain)) {
    // GPU peers talk over NVLink when it joins them (NCCL ranks NVLink above PCIe); without NVLink
    // they use PCIe peer-to-peer, or, where P2P is off, stage through host memory.
    // Every NVLink path, whatever max_paths: a GPU's traffic to a peer interleaves over all its links
    // (18 to the 18 switch trays of an NVL72 rack; capped at 16 it lost 1/9 of its bandwidth).
    PathSet over_nvlink = shortest(src, dst, LinkFilter::nvlink_only, std::max(options_.max_paths, kNvlinkPathsMax));
    if (!over_nvlink.empty()) return over_nvlink;
    if (same_host && (!s.p2p || !d.p2p)) return via_host_memory(src, dst);
  }
  PathSet set = shortest(src, dst, LinkFilter::any, options_.max_paths);
  if (set.empty()) {
    throw ModelError(fmt::format("route: no path from {} to {}", s.name, d.name));
  }
  return set;
}

// GPU -> nearest CPU of its host (the sender's socket memory) -> GPU, as NCCL's SHM transport.
PathSet Router::via_host_memory(NodeIndex src, NodeIndex dst) {
  const NodeProps& s = topology_.node(src);
  if (static_cast<size_t>(s.host) >= cpus_by_host_.size() || cpus_by_host_[s.host].empty()) {
    throw ModelError(fmt::format("route: {} has no PCIe P2P and its host has no CPU to stage through", s.name));
  }
  PathSet up;
  for (NodeIndex cpu : cpus_by_host_[s.host]) {
    PathSet candidate = shortest(src, cpu, LinkFilter::any, options_.max_paths);
    if (!candidate.empty() && (up.empty() || candidate[0].links.size() < up[0].links.size())) up = std::move(candidate);
  }
  if (up.empty()) throw ModelError(fmt::format("route: {} reaches no CPU of its host", s.name));
  NodeIndex cpu = topology_.link_target(up[0].links.back());
  PathSet down = shortest(cpu, dst, LinkFilter::any, options_.max_paths);
  if (down.empty()) throw ModelError(fmt::format("route: no path from host memory to {}", topology_.node(dst).name));
  PathSet out;
  for (const Path& a : up) {
    for (const Path& b : down) {
      if (out.size() >= options_.max_paths) return out;
      std::vector<LinkId> links = a.links;
      links.insert(links.end(), b.links.begin(), b.links.end());
      out.push_back(make_path(std::move(links)));
    }
  }
  return out;
}

// Who may carry traffic between src and dst: switches and host parts of the two hosts involved;
// never a GPU (unless built as a relay), never a foreign server, and never the network for two
// endpoints of one host.
bool Router::may_relay(NodeIndex node, NodeIndex src, NodeIndex dst) const {
  const NodeProps& n = topology_.node(node);
  int32_t hs = topology_.node(src).host;
  int32_t hd = topology_.node(dst).host;
  bool same_host = hs >= 0 && hs == hd;
  bool own_host = n.host == hs || n.host == hd;
  switch (n.kind) {
    case NodeKind::gpu:
      return n.forwards;
    case NodeKind::network_switch:
      return !same_host;
    case NodeKind::nic:
      return !same_host && n.host >= 0 && own_host;
    default:
      return n.host < 0 || own_host;
  }
}

bool Router::usable(LinkId link, LinkFilter filter) const {
  return filter == LinkFilter::any || topology_.link(link).kind == LinkKind::nvlink;
}

// Backward BFS from dst over incoming links; stops once src is reached, since every node closer to
// dst is then final, and only those lie on shortest paths from it.
void Router::distances_to(NodeIndex src, NodeIndex dst, LinkFilter filter) {
  ++epoch_;
  queue_.clear();
  queue_.push_back(dst);
  stamp_[dst] = epoch_;
  distance_[dst] = 0;
  for (size_t head = 0; head < queue_.size(); ++head) {
    NodeIndex v = queue_[head];
    if (v == src) return;
    if (v != dst && !may_relay(v, src, dst)) continue;
    for (LinkId link : topology_.in_links(v)) {
      auto u = topology_.link_source(link);
      if (stamp_[u] == epoch_ || !usable(link, filter)) continue;
      stamp_[u] = epoch_;
      distance_[u] = distance_[v] + 1;
      queue_.push_back(u);
    }
  }
}

void Router::enumerate(NodeIndex at, NodeIndex src, NodeIndex dst, LinkFilter filter, uint32_t limit,
                       std::vector<LinkId>& prefix, PathSet& out) {
  if (out.size() >= limit) return;
  if (at == dst) {
    out.push_back(make_path(prefix));
    return;
  }
  for (LinkId link : topology_.out_links(at)) {
    auto next = topology_.link_target(link);
    if (stamp_[next] != epoch_ || distance_[next] + 1 != distance_[at] || !usable(link, filter)) continue;
    if (next != dst && !may_relay(next, src, dst)) continue;
    prefix.push_back(link);
    enumerate(next, src, dst, filter, limit, prefix, out);
    prefix.pop_back();
  }
}

PathSet Router::shortest(NodeIndex src, NodeIndex dst, LinkFilter filter, uint32_t limit) {
  distances_to(src, dst, filter);
  PathSet out;
  if (stamp_[src] != epoch_) return out;
  std::vector<LinkId> prefix;
  enumerate(src, src, dst, filter, limit, prefix, out);
  return out;
}

// Counts the paths of the shortest-path DAG that compute_local draws from, without the cap.
uint64_t Router::count_local(NodeIndex src, NodeIndex dst) {
  if (src == dst) return 1;
  const PathSet& set = local_paths(src, dst);  // validates reachability and picks the regime
  if (set.size() < options_.max_paths) return set.size();
  distances_to(src, dst, LinkFilter::any);
  if (stamp_[src] != epoch_ || set.front().links.size() != distance_[src]) return set.size();  // staged paths
  // Number of shortest paths from each node to dst, memoised over the BFS DAG.
  std::unordered_map<NodeIndex, uint64_t> memo;
  std::function<uint64_t(NodeIndex)> count = [&](NodeIndex at) -> uint64_t {
    if (at == dst) return 1;
    if (auto it = memo.find(at); it != memo.end()) return it->second;
    uint64_t total = 0;
    for (LinkId link : topology_.out_links(at)) {
      auto next = topology_.link_target(link);
      if (stamp_[next] != epoch_ || distance_[next] + 1 != distance_[at]) continue;
      if (next != dst && !may_relay(next, src, dst)) continue;
      total += count(next);
    }
    return memo[at] = total;
  };
  return count(src);
}

// ---------------------------------------------------------------------------------------------

Path Router::make_path(std::vector<LinkId> links) {
  Path p{std::move(links), Time(), Bandwidth::bps(UINT64_MAX), new_path_id()};
  for (LinkId l : p.links) {
    const LinkProps& props = topology_.link(l);
    p.latency += props.latency;
    p.bottleneck = std::min(p.bottleneck, props.goodput());
  }
  return p;
}

const Path& Router::intern(std::vector<LinkId> links) {
  auto it = interned_.find(links);
  if (it != interned_.end()) return *it->second;
  auto path = std::make_unique<Path>(make_path(links));
  return *interned_.emplace(std::move(links), std::move(path)).first->second;
}

}  // namespace weft
