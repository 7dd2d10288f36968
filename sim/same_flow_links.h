// Links of one flow-fabric component that carry exactly the same flows (the NIC's PCIe port and its
// uplink, the hops of a path segment no other flow shares) are one constraint for max-min. On a
// 1,024-GPU training step a component of ~170 links held only ~57 distinct flow sets; the fill
// (sim/flow_fabric_fill.cpp) and the component search need only one link of each.
// The flow fabric keeps, per link, the sum of a 128-bit key of each of its flows (a set's sum moves
// as flows come and go, in whatever order). This table groups a component's links by that sum and
// their flow count, in one pass: each set's first link (the one whose flows the search scans) and
// the link it keeps for the fill, the least capacity, ties to the least LinkId.
// Two different sets collide only when their key sums agree in all 128 bits; with the fabric's
// check_invariants on, every link is compared with its set's first link, flow by flow.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.h"
#include "topologies/topology.h"

namespace weft {

class SameFlowLinks {
 public:
  // The key a flow adds to each link it crosses (a fixed mix of its index: two keys of 64 bits).
  static uint128 flow_key(uint32_t flow);

  // Starts a component (the storage is kept).
  void clear();
  // Enters link l (its flows' key sum, how many flows, its capacity): the index of its set in this
  // component.
  uint32_t enter(LinkId l, uint128 key_sum, uint32_t flows, uint64_t capacity);
  LinkId first(uint32_t set) const { return sets_[set].first; }
  LinkId kept(uint32_t set) const { return sets_[set].kept; }
  uint64_t kept_capacity(uint32_t set) const { return sets_[set].kept_capacity; }

 private:
  struct Set {
    uint128 key_sum = 0;
    uint32_t flows = 0;
    LinkId first = 0;
    LinkId kept = 0;
    uint64_t kept_capacity = 0;
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;
  void grow();
  std::vector<Set> sets_;         // of this component, in the order they were met
  std::vector<uint32_t> table_;   // open addressing: an index into sets_ or kEmpty; at most half full
  std::vector<uint32_t> filled_;  // table_ slots taken since clear()
};

}  // namespace weft
