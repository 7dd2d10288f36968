// When a start or a finish changes no other flow's rate, the flow fabric skips the solve of its
// component. On a data-parallel ring over a rail-optimised fabric most starts and finishes are such:
// each flow is held by its channel's rate limit or by its own NIC, and a 64-rank ring's component
// spans some 240 links only through spine links where the flows do not meet their bottleneck.
//
// The rules are exact for the fill as it is (integer shares, floor(remaining / unfixed weight), ties
// by LinkId, limits after links; flow_fabric_fill.cpp), not only for max-min in real numbers, and
// their proof runs the fill with and without the flow side by side:
// - A finish: no link of the flow fixed another flow in the last solve. Without the flow, every
//   link of its path has at least the share it had at each pop (less weight, or its rate given
//   back), so it never comes up before it did; when it does, the flows it fixed before (this one
//   or none) are the only ones it could fix, and they are gone. Every other link and limit pops as
//   before, with the same remaining capacity, and fixes the same flows at the same shares.
// - A start of w copies limited to c bit/s each: on every link of its path the capacity is at
//   least the load + (c + 1)·w + the weight U of the flows already there. The slack then keeps each
//   such link's share above the level of every pop while it still holds an unfixed flow (its
//   remaining capacity is the unfixed flows' old rates + at least (c + 1)·w + U, so its share is at
//   least one more than the smallest of those rates, and one more than c while the new flow is
//   unfixed): it never fixes a flow, the new flow's limit fixes it at c, and every other pop is
//   as before. The + 1 is what rounding needs: with the bare max-min slack a link could come up at
//   a share rounded down and fix a flow 1 bit/s below its rate.
// The rates being a function of the component's flows alone (ties by LinkId), the state after a
// skip is the one a solve would have left, and the next rule can start from it. A skip is tried
// only when no solve is pending in this instant (its rates would not be current yet), and not on a
// rank quotient (its capacities stand for orbits). With check_invariants on, every skip re-solves
// the components around the flow's path and checks that no rate moved.
#include <algorithm>

#include "sim/core/errors.h"
#include "sim/flow_fabric.h"

namespace weft {

bool FlowFabric::may_skip() const { return dirty_.empty() && !recompute_pending_ && !quotient_.active(); }

bool FlowFabric::join_without_solve(uint32_t f) {
  FlowHot& hot = hot_[f];
  if (hot.max_rate == 0 || !may_skip()) return false;
  const uint32_t w = hot.weight;
  // The limit's share as the fill takes it (list_limits), at least 1 as a pop fixes it.
  const uint64_t limit =
      static_cast<uint64_t>(std::min<uint128>(static_cast<uint128>(hot.max_rate) * w, UINT64_MAX)) / w;
  const uint64_t rate = std::max<uint64_t>(limit, 1);
  const uint128 needed = static_cast<uint128>(rate + 1) * w;
  for (LinkId l : links_of(f)) {
    const Link& link = links_[l];
    uint128 taken = needed;
    for (uint32_t g : link.flows) taken += static_cast<uint128>(hot_[g].rate + 1) * hot_[g].weight;
    if (taken > link.capacity) return false;
  }
  attach(f, /*dirty=*/false);
  hot.solved = rate;
  hot.fixed_by = kLimitKey;
  rerate(f, rate);
  ++stats_.solves_skipped;
  if (config_.check_invariants) check_skip(links_of(f));
  return true;
}

bool FlowFabric::leave_without_solve(uint32_t f) {
  const FlowHot& hot = hot_[f];
  if (!may_skip()) return false;
  for (LinkId l : links_of(f)) {
    if (links_[l].fixed_here != (hot.fixed_by == l ? 1U : 0U)) return false;
  }
  if (hot.fixed_by != kLimitKey) --links_[hot.fixed_by].fixed_here;
  detach(f, /*dirty=*/false);
  ++stats_.solves_skipped;
  if (config_.check_invariants) check_skip(links_of(f));
  return true;
}

// The fill's first pop for a flow alone: the link of least (share, LinkId), unless its limit's share
// is below that (a limit comes after the links of an equal share). `rate` is the rate it got.
uint32_t FlowFabric::alone_fixed_by(uint32_t f, uint64_t rate) const {
  const FlowHot& hot = hot_[f];
  uint32_t best = kLimitKey;
  uint64_t best_share = UINT64_MAX;
  for (LinkId l : links_of(f)) {
    const uint64_t share = std::max<uint64_t>(1, links_[l].capacity / hot.weight);
    if (share < best_share || (share == best_share && l < best)) {
      best = l;
      best_share = share;
    }
  }
  return rate < best_share ? kLimitKey : best;
}

// Its solves are the check's, not the run's: the counters stay as the run would leave them. Besides
// the rates, what fixed each flow and how many each link fixed must be the solve's: the next skip
// reads them.
void FlowFabric::check_skip(std::span<const LinkId> links) {
  const FabricStats counted = stats_;
  ++epoch_;
  std::vector<uint32_t> fixed_here(links_.size());
  for (LinkId l = 0; l < links_.size(); ++l) fixed_here[l] = links_[l].fixed_here;
  std::vector<std::pair<uint64_t, uint32_t>> before;
  for (LinkId l : links) {
    if (links_[l].mark == epoch_) continue;
    gather_component(l);
    if (component_flows_.empty()) continue;
    before.clear();
    for (uint32_t f : component_flows_) before.emplace_back(hot_[f].rate, hot_[f].fixed_by);
    solve_component();
    for (size_t i = 0; i < component_flows_.size(); ++i) {
      const FlowHot& hot = hot_[component_flows_[i]];
      WEFT_ASSERT(hot.rate == before[i].first && hot.fixed_by == before[i].second);
    }
    for (LinkId c : component_links_) WEFT_ASSERT(links_[c].fixed_here == fixed_here[c]);
  }
  stats_ = counted;
}

}  // namespace weft
