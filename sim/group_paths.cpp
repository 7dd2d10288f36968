#include "sim/group_paths.h"

#include <algorithm>
#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {

size_t GroupPaths::KeyHash::operator()(const std::vector<NodeIndex>& key) const {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (NodeIndex n : key) h = (h ^ n) * 0x100000001B3ULL;
  return h;
}

std::vector<NodeIndex> reducing_switches(const Topology& t, NodeIndex member) {
  std::vector<NodeIndex> switches;
  for (auto [e, end] = boost::out_edges(member, t.graph()); e != end; ++e) {
    auto next = static_cast<NodeIndex>(boost::target(*e, t.graph()));
    if (t.node(next).reduces && std::find(switches.begin(), switches.end(), next) == switches.end()) {
      switches.push_back(next);
    }
  }
  if (switches.empty()) {
    throw ModelError(fmt::format("{} has no in-network reducing switch next to it (NVLS needs NVSwitch generation 3 "
                                 "or later; CollNet needs SHARP switches)",
                                 t.node(member).name));
  }
  return switches;
}

const std::vector<const Path*>& GroupPaths::stripes(const GroupTransfer& group) {
  WEFT_ASSERT(!group.srcs.empty() && !group.dsts.empty());
  std::vector<NodeIndex> key;
  key.reserve(group.srcs.size() + group.dsts.size() + 1);
  key.push_back(static_cast<NodeIndex>(group.srcs.size()));
  key.insert(key.end(), group.srcs.begin(), group.srcs.end());
  key.insert(key.end(), group.dsts.begin(), group.dsts.end());
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  std::vector<const Path*> out;
  for (NodeIndex via : reducing_switches(router_.topology(), group.srcs.front())) out.push_back(&union_path(group, via));
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
  Time in, out;
  for (NodeIndex s : group.srcs) {
    if (s == via) continue;
    const Path& p = router_.route(s, via, group.entropy);
    in = std::max(in, p.latency);
    add(p);
  }
  for (NodeIndex d : group.dsts) {
    if (d == via) continue;
    const Path& p = router_.route(via, d, group.entropy);
    out = std::max(out, p.latency);
    add(p);
  }
  Path path{std::move(links), in + out, Bandwidth::bps(UINT64_MAX)};
  const Topology& t = router_.topology();
  for (LinkId l : path.links) path.bottleneck = std::min(path.bottleneck, t.link(l).goodput());
  paths_.push_back(std::move(path));
  return paths_.back();
}

}  // namespace weft
