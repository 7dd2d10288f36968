#include "sim/group_paths.h"

#include <fmt/format.h>
#include <algorithm>

#include "sim/core/errors.h"
#include "sim/core/rng.h"

namespace weft {
namespace {

constexpr uint32_t kFar = UINT32_MAX;  // no switch path

bool network_switch(const Topology& t, NodeIndex n) { return t.node(n).kind == NodeKind::network_switch; }

// The cable between a NIC and its leaf: the direction leaving the NIC (up) or entering it.
LinkId nic_cable(const Topology& t, NodeIndex nic, bool up) {
  if (up) {
    for (LinkId link : t.out_links(nic)) {
      if (network_switch(t, t.link_target(link))) return link;
    }
  } else {
    for (LinkId link : t.in_links(nic)) {
      if (network_switch(t, t.link_source(link))) return link;
    }
  }
  throw ModelError(fmt::format("{} is not cabled to a network switch", t.node(nic).name));
}

NodeIndex leaf_of(const Topology& t, NodeIndex nic) { return t.link_target(nic_cable(t, nic, true)); }

// Switch hops from `from` to every node over switch-to-switch links (kFar where there is no path).
// Cables are full duplex, so the table also gives the hops toward `from`.
std::vector<uint32_t> switch_hops(const Topology& t, NodeIndex from) {
  std::vector<uint32_t> hops(t.node_count(), kFar);
  std::vector<NodeIndex> queue{from};
  hops[from] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    NodeIndex v = queue[head];
    for (LinkId link : t.out_links(v)) {
      auto u = t.link_target(link);
      if (!network_switch(t, u) || hops[u] != kFar) continue;
      hops[u] = hops[v] + 1;
      queue.push_back(u);
    }
  }
  return hops;
}

const std::vector<NodeIndex>& nics_or_throw(const Topology& t, NodeIndex member) {
  const std::vector<NodeIndex>& nics = t.nics_of(member);
  if (nics.empty()) {
    throw ModelError(
        fmt::format("{} has no NIC to reach the in-network reducing switches (SHARP)", t.node(member).name));
  }
  return nics;
}

// The reducing network switches whose farthest member is nearest (see group_switches).
std::vector<NodeIndex> network_roots(const Topology& t, const GroupTransfer& g) {
  std::vector<NodeIndex> members = g.srcs;
  members.insert(members.end(), g.dsts.begin(), g.dsts.end());
  std::unordered_map<NodeIndex, std::vector<uint32_t>> from_leaf;  // hop tables, one per distinct leaf
  std::vector<std::vector<const std::vector<uint32_t>*>> tables(members.size());
  for (size_t m = 0; m < members.size(); ++m) {
    for (NodeIndex nic : nics_or_throw(t, members[m])) {
      NodeIndex leaf = leaf_of(t, nic);
      auto it = from_leaf.try_emplace(leaf).first;
      if (it->second.empty()) it->second = switch_hops(t, leaf);
      tables[m].push_back(&it->second);
    }
  }
  uint32_t best = kFar;
  std::vector<NodeIndex> roots;
  for (NodeIndex s = 0; s < t.node_count(); ++s) {
    if (!network_switch(t, s) || !t.node(s).reduces) continue;
    uint32_t farthest = 0;
    for (const auto& member_tables : tables) {
      uint32_t nearest = kFar;
      for (const std::vector<uint32_t>* hops : member_tables) nearest = std::min(nearest, (*hops)[s]);
      farthest = std::max(farthest, nearest);
    }
    if (farthest < best) roots.clear();
    if (farthest <= best && farthest != kFar) {
      best = farthest;
      roots.push_back(s);
    }
  }
  if (roots.empty()) {
    throw ModelError(
        fmt::format("a group across hosts (from {}) has no in-network reducing switch that reaches "
                    "every member: CollNet needs SHARP switches (network.sharp on InfiniBand)",
                    t.node(g.srcs.front()).name));
  }
  return roots;
}

}  // namespace

size_t GroupPaths::KeyHash::operator()(const std::vector<NodeIndex>& key) const {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (NodeIndex n : key) h = (h ^ n) * 0x100000001B3ULL;
  return h;
}

// The same hash as of the key vector the view stands for.
size_t GroupPaths::KeyHash::operator()(const KeyView& key) const {
  uint64_t h = (0xCBF29CE484222325ULL ^ static_cast<NodeIndex>(key.srcs.size())) * 0x100000001B3ULL;
  for (NodeIndex n : key.srcs) h = (h ^ n) * 0x100000001B3ULL;
  for (NodeIndex n : key.dsts) h = (h ^ n) * 0x100000001B3ULL;
  return h;
}

bool GroupPaths::KeyEqual::operator()(const KeyView& a, const std::vector<NodeIndex>& b) const {
  return b.size() == a.srcs.size() + a.dsts.size() + 1 && b.front() == a.srcs.size() &&
         std::equal(a.srcs.begin(), a.srcs.end(), b.begin() + 1) &&
         std::equal(a.dsts.begin(), a.dsts.end(), b.begin() + 1 + static_cast<std::ptrdiff_t>(a.srcs.size()));
}

std::vector<NodeIndex> reducing_switches(const Topology& t, NodeIndex member) {
  std::vector<NodeIndex> switches;
  for (LinkId link : t.out_links(member)) {
    auto next = t.link_target(link);
    if (t.node(next).reduces && std::find(switches.begin(), switches.end(), next) == switches.end()) {
      switches.push_back(next);
    }
  }
  if (switches.empty()) {
    throw ModelError(
        fmt::format("{} has no in-network reducing switch next to it (NVLS needs NVSwitch generation 3 "
                    "or later; CollNet needs SHARP switches)",
                    t.node(member).name));
  }
  return switches;
}

bool inside_one_node(const Topology& t, const GroupTransfer& g) {
  const NodeProps& first = t.node(g.srcs.front());
  auto together = [&](NodeIndex n) {
    const NodeProps& p = t.node(n);
    return (first.host >= 0 && p.host == first.host) || (first.domain >= 0 && p.domain == first.domain);
  };
  return std::all_of(g.srcs.begin(), g.srcs.end(), together) && std::all_of(g.dsts.begin(), g.dsts.end(), together);
}

GroupLegs local_group_legs(Router& router, const GroupTransfer& group, NodeIndex via) {
  GroupLegs legs;
  for (NodeIndex s : group.srcs) {
    if (s != via) legs.in.push_back(&router.route(s, via, group.entropy));
  }
  for (NodeIndex d : group.dsts) {
    if (d != via) legs.out.push_back(&router.route(via, d, group.entropy));
  }
  return legs;
}

std::vector<NodeIndex> group_switches(const Topology& t, const GroupTransfer& group) {
  WEFT_ASSERT(!group.srcs.empty() && !group.dsts.empty());
  if (inside_one_node(t, group)) return reducing_switches(t, group.srcs.front());
  return network_roots(t, group);
}

const std::vector<const Path*>& GroupPaths::stripes(const GroupTransfer& group) {
  WEFT_ASSERT(!group.srcs.empty() && !group.dsts.empty());
  auto it = cache_.find(KeyView{group.srcs, group.dsts});
  if (it != cache_.end()) return it->second;
  std::vector<NodeIndex> key;
  key.reserve(group.srcs.size() + group.dsts.size() + 1);
  key.push_back(static_cast<NodeIndex>(group.srcs.size()));
  key.insert(key.end(), group.srcs.begin(), group.srcs.end());
  key.insert(key.end(), group.dsts.begin(), group.dsts.end());
  const Topology& t = router_.topology();
  const bool local = inside_one_node(t, group);
  std::vector<const Path*> out;
  for (NodeIndex via : group_switches(t, group)) {
    out.push_back(local ? &union_path(group, via) : &network_union_path(group, via));
  }
  return cache_.emplace(std::move(key), std::move(out)).first->second;
}

const Path& GroupPaths::union_path(const GroupTransfer& group, NodeIndex via) {
  std::vector<LinkId> links;
  auto add = [&](const Path& p) {
    for (LinkId l : p.links) {
      if (std::find(links.begin(), links.end(), l) == links.end()) links.push_back(l);
    }
  };
  // Latency: the slowest source's way in plus the slowest destination's way out.
  const GroupLegs legs = local_group_legs(router_, group, via);
  Time in, out;
  for (const Path* p : legs.in) {
    in = std::max(in, p->latency);
    add(*p);
  }
  for (const Path* p : legs.out) {
    out = std::max(out, p->latency);
    add(*p);
  }
  Path path{std::move(links), in + out, Bandwidth::bps(UINT64_MAX), router_.new_path_id()};
  const Topology& t = router_.topology();
  for (LinkId l : path.links) path.bottleneck = std::min(path.bottleneck, t.link(l).goodput());
  paths_.push_back(std::move(path));
  return paths_.back();
}

// One member's way to the root (up) or from it: through the member's own NIC nearest the root (as
// NCCL's CollNet uses the GPU's NIC; the router's shortest path could take a neighbour's), then the
// switch network, each hop choosing among equal-cost next hops by hashing (leaf, entropy).
std::vector<LinkId> GroupPaths::network_leg(NodeIndex member, NodeIndex via, const std::vector<uint32_t>& hops,
                                            uint64_t entropy, bool up) {
  const Topology& t = router_.topology();
  NodeIndex nic = 0;
  uint32_t nearest = kFar;
  for (NodeIndex candidate : nics_or_throw(t, member)) {
    uint32_t h = hops[leaf_of(t, candidate)];
    if (h < nearest) {
      nic = candidate;
      nearest = h;
    }
  }
  if (nearest == kFar)
    throw ModelError(fmt::format("{} has no NIC on the network of {}", t.node(member).name, t.node(via).name));
  NodeIndex leaf = leaf_of(t, nic);
  std::vector<LinkId> walk;  // leaf -> via (up) or via -> leaf
  std::vector<LinkId> choices;
  // Hashing the leaf, not the member: members below one leaf share its way up and down, so the leaf
  // aggregates them (one copy per cable) as a SHARP tree does.
  uint64_t state = entropy ^ (static_cast<uint64_t>(leaf) << 32);
  for (NodeIndex at = up ? leaf : via, toward = up ? via : leaf; at != toward; at = t.link_target(walk.back())) {
    router_.next_hops(at, toward, choices);
    if (choices.empty())
      throw ModelError(fmt::format("no switch path from {} to {}", t.node(at).name, t.node(toward).name));
    walk.push_back(choices[splitmix64(state) % choices.size()]);
  }
  std::vector<LinkId> links;
  auto append = [&links](const std::vector<LinkId>& more) { links.insert(links.end(), more.begin(), more.end()); };
  if (up) {
    append(router_.route(member, nic, entropy).links);
    links.push_back(nic_cable(t, nic, true));
    append(walk);
  } else {
    append(walk);
    links.push_back(nic_cable(t, nic, false));
    append(router_.route(nic, member, entropy).links);
  }
  return links;
}

// As union_path, with each member's leg through its own NIC (network_leg).
const Path& GroupPaths::network_union_path(const GroupTransfer& group, NodeIndex via) {
  const Topology& t = router_.topology();
  std::vector<LinkId> links;
  Time in, out;
  auto add = [&](const std::vector<LinkId>& leg, Time& slowest) {
    Time latency;
    for (LinkId l : leg) {
      latency += t.link(l).latency;
      if (std::find(links.begin(), links.end(), l) == links.end()) links.push_back(l);
    }
    slowest = std::max(slowest, latency);
  };
  const std::vector<uint32_t> hops = switch_hops(t, via);
  for (NodeIndex s : group.srcs) add(network_leg(s, via, hops, group.entropy, true), in);
  for (NodeIndex d : group.dsts) add(network_leg(d, via, hops, group.entropy, false), out);
  Path path{std::move(links), in + out, Bandwidth::bps(UINT64_MAX), router_.new_path_id()};
  for (LinkId l : path.links) path.bottleneck = std::min(path.bottleneck, t.link(l).goodput());
  paths_.push_back(std::move(path));
  return paths_.back();
}

}  // namespace weft
