// Max-min fair rates of one component of the flow fabric, by progressive filling over the
// fabric's own adjacency (Link::flows, FlowHot::links): the same pops, shares and rates as
// MaxMinSolver::solve on the component (whose proof of the lazy heap holds here unchanged) with
// links numbered in LinkId order and each sender limit a private link after them, in the order of
// its flow. Ties between links break by LinkId, not by the search's order, so that the rates are a
// function of the component's flows alone, whichever link a solve starts from (the integer shares
// round, and which of two links of equal share fixes its flows first can move a rate by 1 bit/s):
// what lets a start or a finish skip the solve when it provably changes no other rate
// (flow_fabric_skip.cpp). The fabric's invariant check (on in tests) re-solves every component with
// MaxMinSolver and compares each rate to the bit/s; tests/fabrics/test_flow_fabric.cpp runs random
// components through it.
// It saves building the solver's copy of the component, which on a 256-GPU all-to-all (some
// 60,000 flows per component) was a third of the run.
#include <algorithm>

#include "sim/core/errors.h"
#include "sim/flow_fabric.h"
#include "sim/maxmin.h"

namespace weft {
namespace {

// Min-heap order by (share, key): ties resolve by the link's place, as in MaxMinSolver.
bool after(const auto& a, const auto& b) { return a.packed > b.packed; }

}  // namespace

// Fixes one flow (all its copies) at `rate`, by link `by` or its limit (kLimitKey): it leaves every
// link it crosses.
void FlowFabric::fix_flow(uint32_t f, uint64_t rate, uint32_t by) {
  FlowHot& hot = hot_[f];
  hot.solved = rate;
  hot.fixed_by = by;
  if (by != kLimitKey) ++links_[by].fixed_here;
  // rate >= 1 may exceed a tiny link; w copies one after another would stop at zero too.
  const uint128 taken = static_cast<uint128>(rate) * hot.weight;
  for (LinkId l : links_of(f)) {
    Link& link = links_[l];
    link.remaining -= static_cast<uint64_t>(std::min<uint128>(taken, link.remaining));
    link.unfixed -= hot.weight;
  }
}

// A sender's own limit is a private link that only this flow crosses (each copy its own): its share
// never changes, so the limits wait in a list sorted by (share, key) beside the links, and each
// fixes its flow unless a link did first.
void FlowFabric::list_limits() {
  fill_limits_.clear();
  limited_flows_.clear();
  for (uint32_t f : component_flows_) {
    const FlowHot& hot = hot_[f];
    if (hot.max_rate == 0) continue;
    const uint128 limit = std::min<uint128>(static_cast<uint128>(hot.max_rate) * hot.weight, UINT64_MAX);
    fill_limits_.emplace_back(static_cast<uint64_t>(limit) / hot.weight,
                              kLimitKey | static_cast<uint32_t>(limited_flows_.size()));
    limited_flows_.push_back(f);
  }
  // A collective's channels mostly share one limit, and keys rise in order: often sorted already.
  auto before = [](const FillCandidate& a, const FillCandidate& b) { return after(b, a); };
  if (!std::ranges::is_sorted(fill_limits_, before)) std::ranges::sort(fill_limits_, before);
}

// The pops' order: the smallest (share, key) among the links in order of their first share, the
// links that went back with a grown share (a heap), and the limits.
FlowFabric::FillCandidate FlowFabric::next_candidate(FillSource* source) {
  const FillCandidate* best = nullptr;
  FillSource from = FillSource::none;
  auto consider = [&](const FillCandidate* c, FillSource source) {
    if (c != nullptr && (best == nullptr || after(*best, *c))) {
      best = c;
      from = source;
    }
  };
  consider(fill_next_link_ < fill_order_.size() ? &fill_order_[fill_next_link_] : nullptr, FillSource::order);
  consider(fill_heap_.empty() ? nullptr : &fill_heap_.front(), FillSource::heap);
  consider(fill_next_limit_ < fill_limits_.size() ? &fill_limits_[fill_next_limit_] : nullptr, FillSource::limit);
  consider(fill_next_frozen_ < fill_frozen_.size() ? &fill_frozen_[fill_next_frozen_].pop : nullptr,
           FillSource::frozen);
  const FillCandidate c = best == nullptr ? FillCandidate(0, UINT32_MAX) : *best;
  if (from == FillSource::order) ++fill_next_link_;
  if (from == FillSource::limit) ++fill_next_limit_;
  if (from == FillSource::frozen) ++fill_next_frozen_;
  if (source != nullptr) *source = from;
  if (from == FillSource::heap) {
    std::pop_heap(fill_heap_.begin(), fill_heap_.end(), after<FillCandidate, FillCandidate>);
    fill_heap_.pop_back();
  }
  return c;
}

// Whether link l can fix a flow. Not when another link k of the component carries the same flows
// (sim/same_flow_links.h) and always comes up first: the same fixed rates T leave each of them its
// capacity c - T over the same unfixed weight u, so k, of the least capacity, has the lesser share
// (ties go to the lesser LinkId, k when the capacities are equal) and fixes all their flows before
// l is popped. Strictly lesser, even after rounding down, once c_l >= c_k + U, U being the
// weight of all their flows (U >= u: (c_l - T) / u >= (c_k - T) / u + 1). A link closer in
// capacity than that stays in the fill, as without the grouping: the fill pops the same links in
// the same order, and fixes the same flows at the same rates, as it would with every link in it.
bool FlowFabric::pops_in_fill(LinkId l) const {
  const Link& link = links_[l];
  if (same_flows_.kept(link.flow_set) == l) return true;
  const uint64_t c_k = same_flows_.kept_capacity(link.flow_set);
  return link.capacity != c_k && link.capacity - c_k < link.unfixed;
}

// A limit's pop: fixes its flow unless a link did first; true when it did.
bool FlowFabric::fix_at_limit(const FillCandidate& c) {
  const uint32_t f = limited_flows_[c.key() & ~kLimitKey];
  if (hot_[f].solved != 0) return false;
  fix_flow(f, std::max<uint64_t>(c.share(), 1), kLimitKey);
  return true;
}

// A link's pop: true, with its share, when it still has unfixed flows at the share it was queued
// with. A stale entry (the link lost flows since) goes back with its grown share.
bool FlowFabric::link_due(const FillCandidate& c, uint64_t& share) {
  const Link& link = links_[c.key()];
  if (link.unfixed == 0) return false;  // fixed by the other links of its flows
  share = link.remaining / link.unfixed;
  if (share == c.share()) return true;
  fill_heap_.emplace_back(share, c.key());
  std::push_heap(fill_heap_.begin(), fill_heap_.end(), after<FillCandidate, FillCandidate>);
  return false;
}

// gather_component left each link's unfixed weight and each flow's `solved` at 0. Sorting the links
// once costs less than a heap of them all: most pops find a link whose flows were fixed already.
void FlowFabric::fill_component() {
  list_limits();
  fill_frozen_.clear();  // the repair's, when it gave up
  fill_next_frozen_ = 0;
  fill_order_.clear();
  fill_heap_.clear();
  for (LinkId l : component_links_) {
    Link& link = links_[l];
    link.remaining = link.capacity;
    if (!pops_in_fill(l)) continue;
    fill_order_.emplace_back(link.remaining / link.unfixed, l);
  }
  std::ranges::sort(fill_order_, [](const FillCandidate& a, const FillCandidate& b) { return after(b, a); });
  fill_next_link_ = 0;
  fill_next_limit_ = 0;
  size_t unfixed = component_flows_.size();
  while (unfixed > 0) {
    const FillCandidate c = next_candidate();
    if (c.key() == UINT32_MAX) break;  // every flow crosses a link: not reached while one is unfixed
    if ((c.key() & kLimitKey) != 0) {
      unfixed -= fix_at_limit(c) ? 1 : 0;
      continue;
    }
    uint64_t share = 0;
    if (!link_due(c, share)) continue;
    const Link& link = links_[c.key()];
    for (size_t i = 0; i < link.flows.size(); ++i) {
      if (i + kPrefetchAhead < link.flows.size()) prefetch(link.flows[i + kPrefetchAhead]);
      const uint32_t f = link.flows[i];
      if (hot_[f].solved != 0) continue;
      fix_flow(f, std::max<uint64_t>(share, 1), c.key());
      --unfixed;
    }
  }
}

// The reference: MaxMinSolver on a copy of the component, its links in LinkId order (the fill's
// tie-break) and each sender limit a private link after them, gives every flow the rate the fill
// gave it; and no link carries more than its rate.
void FlowFabric::check_component() const {
  MaxMinSolver solver;
  std::vector<LinkId> by_id = component_links_;
  std::ranges::sort(by_id);
  for (LinkId l : by_id) solver.add_link(links_[l].capacity);
  std::vector<uint32_t> path;
  for (uint32_t f : component_flows_) {
    const FlowHot& hot = hot_[f];
    path.clear();
    for (LinkId l : links_of(f)) {
      path.push_back(static_cast<uint32_t>(std::ranges::lower_bound(by_id, l) - by_id.begin()));
    }
    if (hot.max_rate > 0) {
      const uint128 limit = std::min<uint128>(static_cast<uint128>(hot.max_rate) * hot.weight, UINT64_MAX);
      path.push_back(solver.add_link(static_cast<uint64_t>(limit)));
    }
    solver.add_flow(path, hot.weight);
  }
  solver.solve();
  for (uint32_t i = 0; i < component_flows_.size(); ++i)
    WEFT_ASSERT(solver.rate(i) == hot_[component_flows_[i]].solved);
  for (LinkId l : component_links_) {
    WEFT_ASSERT(link_load(l) <= links_[l].capacity);
    std::vector<uint32_t> flows = links_[l].flows, first = links_[same_flows_.first(links_[l].flow_set)].flows;
    std::ranges::sort(flows);
    std::ranges::sort(first);
    WEFT_ASSERT(flows == first);  // no two sets' key sums collided
  }
}

}  // namespace weft
