// Routing between hosts (see routing.h): the GPU's NIC, per-hop ECMP over the switch network, the
// peer's NIC; and the switch-level views the packet fabric uses (next hops, path variants).
#include <fmt/format.h>
#include <algorithm>
#include <functional>

#include "sim/core/errors.h"
#include "topologies/routing.h"
#include "topologies/routing_detail.h"

namespace weft {

using namespace routing_detail;

PathSet Router::variants(NodeIndex src, NodeIndex dst, uint64_t entropy, uint32_t limit) {
  if (!crosses_network(src, dst)) return paths(src, dst, limit);
  const std::vector<LinkId>& base = route(src, dst, entropy).links;
  // The switch segment: from the first link that leaves a switch to the last that enters one.
  size_t first = base.size(), last = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    bool from_switch = switch_index_[topology_.link_source(base[i])] != kNoSwitch;
    bool to_switch = switch_index_[topology_.link_target(base[i])] != kNoSwitch;
    if (from_switch && to_switch) {
      first = std::min(first, i);
      last = i + 1;
    }
  }
  if (first >= last) return {route(src, dst, entropy)};  // source and destination NICs share a leaf
  NodeIndex from = topology_.link_source(base[first]);
  NodeIndex toward = topology_.link_target(base[last - 1]);
  PathSet out;
  std::vector<LinkId> links(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(first));
  std::function<void(NodeIndex)> walk = [&](NodeIndex at) {
    if (out.size() >= limit) return;
    if (at == toward) {
      std::vector<LinkId> full = links;
      full.insert(full.end(), base.begin() + static_cast<std::ptrdiff_t>(last), base.end());
      out.push_back(intern(std::move(full)));
      return;
    }
    std::vector<LinkId> hops;
    next_hops(at, toward, hops);
    for (LinkId l : hops) {
      links.push_back(l);
      walk(topology_.link_target(l));
      links.pop_back();
    }
  };
  walk(from);
  return out;
}

void Router::next_hops(NodeIndex at, NodeIndex toward, std::vector<LinkId>& out) {
  out.clear();
  const std::vector<uint16_t>& dist = switch_distances(toward);
  uint32_t here = switch_index_[at];
  if (here == kNoSwitch || dist[here] == kUnreachable || at == toward) return;
  for (LinkId link : topology_.out_links(at)) {
    uint32_t next = switch_index_[topology_.link_target(link)];
    if (next != kNoSwitch && dist[next] != kUnreachable && dist[next] + 1 == dist[here]) out.push_back(link);
  }
}

// ---------------------------------------------------------------------------------------------
// Between hosts: GPU -> NIC -> switch network -> NIC -> GPU

// With PXN, the GPU of the source host on the destination's rail (same local index) sends, as NCCL's
// ncclTopoGetNetDev does at P2P_PXN_LEVEL 2 (graph/search.cc) and its ring graphs through PATH_PXN
// (graph/paths.cc): only when NVLink joins the two directly or through NVSwitches (PATH_NVL, never
// along a chain of GPUs as a cube mesh would need), the relay reaches its NIC through PCIe switches
// alone (PATH_PXB: not through a CPU) and the sender does not share that NIC already.
NodeIndex Router::egress_gpu(NodeIndex src, NodeIndex dst) {
  if (!options_.pxn) return src;
  const NodeProps& s = topology_.node(src);
  int16_t rail = topology_.node(dst).local_index;
  if (s.local_index == rail || s.domain < 0) return src;
  const uint64_t key = uint64_t{src} << 16 | static_cast<uint16_t>(rail);
  if (auto it = relay_gpu_.find(key); it != relay_gpu_.end()) return it->second;
  NodeIndex egress = src;
  for (NodeIndex g : topology_.gpus()) {
    const NodeProps& p = topology_.node(g);
    if (p.host == s.host && p.local_index == rail && p.domain == s.domain && !topology_.nics_of(g).empty()) {
      if (relays_for(src, g)) egress = g;
      break;
    }
  }
  return relay_gpu_[key] = egress;
}

// NCCL's conditions for `relay` to send on src's behalf (egress_gpu).
bool Router::relays_for(NodeIndex src, NodeIndex relay) {
  const NodeIndex nic = topology_.nics_of(relay).front();
  const std::vector<NodeIndex>& own = topology_.nics_of(src);
  if (std::find(own.begin(), own.end(), nic) != own.end()) return false;
  for (const Path& path : local_paths(src, relay)) {
    for (LinkId link : path.links) {
      const NodeIndex via = topology_.link_target(link);
      if (topology_.link(link).kind != LinkKind::nvlink) return false;
      if (via != relay && topology_.node(via).kind == NodeKind::gpu) return false;
    }
  }
  const Path& to_nic = route(relay, nic, 0);
  return std::none_of(to_nic.links.begin(), to_nic.links.end(),
                      [&](LinkId link) { return topology_.node(topology_.link_target(link)).kind == NodeKind::cpu; });
}

NodeIndex Router::matching_nic(NodeIndex dst, NodeIndex src_nic) const {
  uint8_t plane = topology_.node(src_nic).plane;
  for (NodeIndex nic : topology_.nics_of(dst)) {
    if (topology_.node(nic).plane == plane) return nic;
  }
  throw ModelError(fmt::format("route: {} has no NIC on plane {} (the plane of {})", topology_.node(dst).name, plane,
                               topology_.node(src_nic).name));
}

LinkId Router::uplink_of(NodeIndex nic) const {
  for (LinkId link : topology_.out_links(nic)) {
    if (switch_index_[topology_.link_target(link)] != kNoSwitch) return link;
  }
  throw ModelError(fmt::format("route: NIC {} is not cabled to a network switch", topology_.node(nic).name));
}

NodeIndex Router::leaf_of(NodeIndex nic) const { return topology_.link_target(uplink_of(nic)); }

LinkId Router::downlink_to(NodeIndex nic) const {
  for (LinkId link : topology_.in_links(nic)) {
    if (switch_index_[topology_.link_source(link)] != kNoSwitch) return link;
  }
  throw ModelError(fmt::format("route: NIC {} is not cabled to a network switch", topology_.node(nic).name));
}

std::vector<LinkId> Router::inter_host_links(NodeIndex src, NodeIndex dst, uint64_t entropy) {
  NodeIndex egress = egress_gpu(src, dst);
  std::vector<LinkId> links;
  if (egress != src) links = route(src, egress, entropy).links;
  network_links(egress, src, dst, entropy, links);
  return links;
}

// The way from the sending GPU `egress` (src, or its PXN relay) on: its NIC, the switch network and
// the peer's NIC to dst. The flow's hash stays that of (src, dst).
void Router::network_links(NodeIndex egress, NodeIndex src, NodeIndex dst, uint64_t entropy,
                           std::vector<LinkId>& links) {
  uint64_t h = flow_hash(options_.seed, src, dst, entropy, 1);
  const std::vector<NodeIndex>& nics = topology_.nics_of(egress);
  NodeIndex nic_s = nics[h % nics.size()];
  NodeIndex nic_d = matching_nic(dst, nic_s);
  auto append = [&links](const Path& p) { links.insert(links.end(), p.links.begin(), p.links.end()); };
  append(route(egress, nic_s, entropy));
  links.push_back(uplink_of(nic_s));
  NodeIndex from = leaf_of(nic_s);
  NodeIndex toward = leaf_of(nic_d);
  if (from != toward) walk_network(from, toward, flow_hash(options_.seed, src, dst, entropy, 2), links);
  links.push_back(downlink_to(nic_d));
  append(route(nic_d, dst, entropy));
}

// A PXN send whose relay GPU the sender reaches over several NVLink paths (NVSwitches) interleaves
// its NVLink leg over all of them, as any NVLink transfer does (sim/stripes.h); from the relay on,
// every stripe takes the same way. Null when the send is not relayed so.
const PathSet* Router::relay_stripes(NodeIndex src, NodeIndex dst, uint64_t entropy) {
  if (!options_.pxn) return nullptr;
  const RelayKey key{src, dst, entropy};
  if (auto it = relays_.find(key); it != relays_.end()) return &it->second;  // per transfer: one lookup
  const NodeIndex egress = egress_gpu(src, dst);
  if (egress == src || !local_routes(src, egress).nvlink_striped) return nullptr;
  std::vector<LinkId> rest;
  network_links(egress, src, dst, entropy, rest);
  PathSet stripes;
  for (const Path& leg : local_paths(src, egress)) {
    std::vector<LinkId> links = leg.links;
    links.insert(links.end(), rest.begin(), rest.end());
    stripes.push_back(make_path(std::move(links)));
  }
  return &relays_.emplace(key, std::move(stripes)).first->second;
}

// Hop counts from every network switch to `toward`, over switch-to-switch links only.
const std::vector<uint16_t>& Router::switch_distances(NodeIndex toward) {
  auto it = distances_.find(toward);
  if (it != distances_.end()) return it->second;
  std::vector<uint16_t> dist(switch_count_, kUnreachable);
  std::vector<NodeIndex> queue{toward};
  dist[switch_index_[toward]] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    NodeIndex v = queue[head];
    for (LinkId link : topology_.in_links(v)) {
      auto u = topology_.link_source(link);
      uint32_t ui = switch_index_[u];
      if (ui == kNoSwitch || dist[ui] != kUnreachable) continue;
      dist[ui] = static_cast<uint16_t>(dist[switch_index_[v]] + 1);
      queue.push_back(u);
    }
  }
  return distances_.emplace(toward, std::move(dist)).first->second;
}

// Each switch on the way picks one of its equal-cost next hops by hashing the flow with the hop.
void Router::walk_network(NodeIndex from, NodeIndex toward, uint64_t hash, std::vector<LinkId>& out) {
  std::vector<LinkId> choices;
  NodeIndex at = from;
  for (uint64_t hop = 0; at != toward; ++hop) {
    next_hops(at, toward, choices);
    if (choices.empty()) {
      throw ModelError(
          fmt::format("route: no switch path from {} to {}", topology_.node(from).name, topology_.node(toward).name));
    }
    uint64_t state = hash + hop;
    LinkId link = choices[splitmix64(state) % choices.size()];
    out.push_back(link);
    at = topology_.link_target(link);
  }
}

uint64_t Router::count_network(NodeIndex from, NodeIndex toward) {
  if (from == toward) return 1;
  std::unordered_map<NodeIndex, uint64_t> memo;
  std::function<uint64_t(NodeIndex)> count = [&](NodeIndex at) -> uint64_t {
    if (at == toward) return 1;
    if (auto it = memo.find(at); it != memo.end()) return it->second;
    std::vector<LinkId> hops;
    next_hops(at, toward, hops);
    uint64_t total = 0;
    for (LinkId l : hops) total += count(topology_.link_target(l));
    return memo[at] = total;
  };
  return count(from);
}

}  // namespace weft
