// The links a group transfer (multicast / in-switch reduction, see GroupTransfer) occupies: for
// each reducing switch next to the group, the union of the sources' paths to it and its paths to
// the destinations. NVLS spreads a GPU's multimem traffic over all its NVSwitches, so a group is
// striped over every such switch in equal parts. Paths are built once per (group, switch).
#pragma once

#include <deque>
#include <unordered_map>
#include <vector>

#include "sim/fabric.h"
#include "topologies/routing.h"

namespace weft {

// The switches next to `member` that reduce and multicast in the network; throws ModelError naming
// what is missing when there is none.
std::vector<NodeIndex> reducing_switches(const Topology& topology, NodeIndex member);

class GroupPaths {
 public:
  explicit GroupPaths(Router& router) : router_(router) {}

  // One path per reducing switch next to the group's first member; throws ModelError when there is
  // none (NVLS needs NVSwitch gen 3+, SHARP needs a reducing network switch).
  const std::vector<const Path*>& stripes(const GroupTransfer& group);

 private:
  struct KeyHash {
    size_t operator()(const std::vector<NodeIndex>& key) const;
  };
  const Path& union_path(const GroupTransfer& group, NodeIndex via);

  Router& router_;
  std::deque<Path> paths_;  // stable addresses
  std::unordered_map<std::vector<NodeIndex>, std::vector<const Path*>, KeyHash> cache_;
};

}  // namespace weft
