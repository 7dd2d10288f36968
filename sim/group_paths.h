// The links a group transfer (multicast / in-switch reduction, see GroupTransfer) occupies: for
// each reducing switch the group goes through, the union of the sources' paths to it and its paths
// to the destinations. Inside a node (NVLS), a GPU spreads its multimem traffic over all its
// NVSwitches, so a group is striped over every reducing switch next to it in equal parts. Across
// hosts (SHARP), the group's aggregation tree is rooted at the reducing network switches nearest to
// all members; the union makes every switch below the root aggregate too (a link is carried once).
// Paths are built once per (group, switch).
#pragma once

#include <deque>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/fabric.h"
#include "topologies/routing.h"

namespace weft {

// The switches next to `member` that reduce and multicast in the network; throws ModelError naming
// what is missing when there is none.
std::vector<NodeIndex> reducing_switches(const Topology& topology, NodeIndex member);

// The reducing switches `group` is striped over. All members in one host or NVLink domain: those
// next to the first source (reducing_switches). Otherwise the reducing network switches whose
// farthest member (by switch hops from the leaf of its nearest NIC) is nearest: the members' one
// leaf when they share it, every spine of a 2-tier fat-tree when they do not, on every plane.
// Throws ModelError when no reducing network switch reaches every member (CollNet needs SHARP).
std::vector<NodeIndex> group_switches(const Topology& topology, const GroupTransfer& group);

// All members in the first source's host or NVLink domain: the group stays inside the node.
bool inside_one_node(const Topology& topology, const GroupTransfer& group);

// The legs of a group inside one node through reducing switch `via`, routed with the group's
// entropy: each source's path to `via`, then `via`'s path to each destination (a member that is
// `via` has none). GroupPaths joins them into one path; isolation keys list them.
struct GroupLegs {
  std::vector<const Path*> in;
  std::vector<const Path*> out;
};
GroupLegs local_group_legs(Router& router, const GroupTransfer& group, NodeIndex via);

class GroupPaths {
 public:
  explicit GroupPaths(Router& router) : router_(router) {}

  // One path per switch of group_switches(); throws ModelError when there is none (NVLS needs
  // NVSwitch gen 3+, SHARP needs reducing network switches).
  const std::vector<const Path*>& stripes(const GroupTransfer& group);

 private:
  // Keys are {srcs.size(), srcs..., dsts...}; a group step looks its key up through a view of its
  // own lists (heterogeneous lookup), so a cache hit allocates nothing.
  struct KeyView {
    std::span<const NodeIndex> srcs;
    std::span<const NodeIndex> dsts;
  };
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(const std::vector<NodeIndex>& key) const;
    size_t operator()(const KeyView& key) const;
  };
  struct KeyEqual {
    using is_transparent = void;
    bool operator()(const std::vector<NodeIndex>& a, const std::vector<NodeIndex>& b) const { return a == b; }
    bool operator()(const KeyView& a, const std::vector<NodeIndex>& b) const;
    bool operator()(const std::vector<NodeIndex>& a, const KeyView& b) const { return (*this)(b, a); }
  };
  const Path& union_path(const GroupTransfer& group, NodeIndex via);
  const Path& network_union_path(const GroupTransfer& group, NodeIndex via);
  // hops: switch_hops from `via` (group_paths.cpp).
  std::vector<LinkId> network_leg(NodeIndex member, NodeIndex via, const std::vector<uint32_t>& hops, uint64_t entropy,
                                  bool up);

  Router& router_;
  std::deque<Path> paths_;  // stable addresses
  std::unordered_map<std::vector<NodeIndex>, std::vector<const Path*>, KeyHash, KeyEqual> cache_;
};

}  // namespace weft
