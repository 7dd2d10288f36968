// The local repair: an instant whose starts and finishes the skip and rejoin rules cannot absorb
// re-solves only the flows whose rate can move, not their whole component. On the Nemotron-4 15B
// step of 256 GPUs a solved component averaged ~70 flows, of which ~6 % were fixed (in the last
// solve) by a link the instant touched or were new; on a 128-rank ring crossing spines the
// component is a thousand flows and one chunk's finish moves a few of them.
//
// What it solves: the free flows, i.e. the flows that joined in this instant or changed weight,
// and, transitively, every flow fixed by a link of the region (the links of the free flows, and
// the links the instant changed). Every other flow crossing the region is frozen at the rate and
// fixing link (or limit) of the last consistent state (after a solve, skip, rejoin or repair).
//
// Why it is exact: the fill (flow_fabric_fill.cpp) over the whole component pops links and limits
// in (share, key) order. A frozen flow's fixing link B is outside the region, so no free flow
// crosses it and its flows are those of the last state, all frozen; until a region link pops one
// of them, each is fixed at its own unchanged pop, so B pops as in the last solve: at the flow's
// rate, with key B. The repair runs the same fill over the region's links with the free flows and
// the frozen flows that cross them, each frozen flow waiting for its own pop (rate, B) as a limit
// waits for its share. That is the whole fill seen from the region's links, pop for pop, as long
// as no region link pops while a frozen flow on it is unfixed (it would fix it at another share or
// by another link). When one does, that flow is freed and the repair runs again on the larger
// region (Nemotron: 1.5 attempts per repair); after kRepairAttempts, or a failed attempt over a
// large region, the components are solved whole (0.7 % of its repairs), and so are instants of
// many changes (flow_fabric.h says why: the repair was slower there on NVL72 sweeps). Ties between
// a frozen flow's pop and a region link break by LinkId as in the fill (B is not a region link, so
// they never coincide); a frozen limit comes after every link of its share, as limits do. With
// check_invariants on, every repair re-solves the components around its region and checks each
// rate, what fixed it and each link's count.
#include <algorithm>

#include "sim/flow_fabric.h"

namespace weft {

// A frozen flow fixed by its sender limit waits after every link and every free limit of its share
// (the order among limits moves no rate: each fixes only its own flow).
constexpr uint32_t kFrozenLimitKey = ~0U;

void FlowFabric::enter_region(LinkId l) {
  Link& link = links_[l];
  if (link.mark == epoch_) return;
  link.mark = epoch_;
  link.remaining = link.capacity;
  link.unfixed = 0;
  link.fixed_here = 0;
  component_links_.push_back(l);
}

void FlowFabric::free_flow(uint32_t f) {
  FlowHot& hot = hot_[f];
  hot.mark = epoch_;
  hot.solved = 0;
  component_flows_.push_back(f);
  for (LinkId l : links_of(f)) enter_region(l);
}

// The region and its free flows: every link this instant changed, every flow that joined or
// changed weight, and every flow fixed by a region link, until no more join.
void FlowFabric::gather_region() {
  component_links_.clear();
  component_flows_.clear();
  ++epoch_;
  for (LinkId l : dirty_) enter_region(l);
  for (uint32_t f : reweighted_) {
    if (hot_[f].mark != epoch_) free_flow(f);
  }
  for (uint32_t f : forced_) {
    if (hot_[f].mark != epoch_) free_flow(f);
  }
  for (size_t next = 0; next < component_links_.size(); ++next) {
    const LinkId l = component_links_[next];
    for (uint32_t f : links_[l].flows) {
      const FlowHot& hot = hot_[f];
      if (hot.mark != epoch_ && (hot.rate == 0 || hot.fixed_by == l)) free_flow(f);
    }
  }
}

// The frozen flows crossing the region, each once, as pops (rate, fixing key) in fill order; every
// flow's weight counted on the region's links.
void FlowFabric::list_frozen() {
  fill_frozen_.clear();
  fill_next_frozen_ = 0;
  const uint32_t frozen = ++epoch_;  // marks listed frozen flows; free ones keep epoch_ - 1
  for (LinkId l : component_links_) {
    Link& link = links_[l];
    for (uint32_t f : link.flows) {
      FlowHot& hot = hot_[f];
      link.unfixed += hot.weight;
      if (hot.mark == frozen || hot.mark == frozen - 1) continue;
      hot.mark = frozen;
      hot.solved = 0;
      fill_frozen_.push_back({{hot.rate, hot.fixed_by == kLimitKey ? kFrozenLimitKey : hot.fixed_by}, f});
    }
  }
  std::sort(fill_frozen_.begin(), fill_frozen_.end(),
            [](const FrozenPop& a, const FrozenPop& b) { return a.pop.packed < b.pop.packed; });
}

// A frozen flow's own pop: it leaves the region's links at its rate.
void FlowFabric::fix_frozen(uint32_t f) {
  FlowHot& hot = hot_[f];
  hot.solved = hot.rate;
  const uint128 taken = static_cast<uint128>(hot.rate) * hot.weight;
  for (LinkId l : links_of(f)) {
    Link& link = links_[l];
    if (link.mark != epoch_ - 1) continue;  // outside the region
    link.remaining -= static_cast<uint64_t>(std::min<uint128>(taken, link.remaining));
    link.unfixed -= hot.weight;
  }
}

// The fill over the region; false when a region link would fix a frozen flow.
bool FlowFabric::fill_region() {
  list_limits();
  list_frozen();
  fill_order_.clear();
  fill_heap_.clear();
  for (LinkId l : component_links_) {
    const Link& link = links_[l];
    if (link.unfixed > 0) fill_order_.emplace_back(link.remaining / link.unfixed, l);
  }
  std::sort(fill_order_.begin(), fill_order_.end(),
            [](const FillCandidate& a, const FillCandidate& b) { return a.packed < b.packed; });
  fill_next_link_ = 0;
  fill_next_limit_ = 0;
  size_t unfixed = component_flows_.size() + fill_frozen_.size();
  while (unfixed > 0) {
    FillSource from = FillSource::none;
    const FillCandidate c = next_candidate(&from);
    if (from == FillSource::none) break;
    if (from == FillSource::frozen) {
      fix_frozen(fill_frozen_[fill_next_frozen_ - 1].flow);
      --unfixed;
      continue;
    }
    if (from == FillSource::limit) {
      unfixed -= fix_at_limit(c) ? 1 : 0;
      continue;
    }
    uint64_t share = 0;
    if (!link_due(c, share)) continue;
    const Link& link = links_[c.key()];
    const size_t forced = forced_.size();
    for (uint32_t f : link.flows) {
      if (hot_[f].solved == 0 && hot_[f].mark != epoch_ - 1) forced_.push_back(f);
    }
    if (forced_.size() > forced) return false;  // frozen flows it would fix: they are free next time
    for (uint32_t f : link.flows) {
      if (hot_[f].solved != 0) continue;
      fix_flow(f, std::max<uint64_t>(share, 1), c.key());
      --unfixed;
    }
  }
  return true;
}

bool FlowFabric::repair() {
  if (quotient_.active() || dirty_.size() > kRepairMaxChanged) return false;
  forced_.clear();
  for (int attempt = 0; attempt < kRepairAttempts; ++attempt) {
    gather_region();
    if (component_flows_.empty()) {
      // Flows remain on the changed links but none of them was fixed there: nothing moves.
      const bool any = std::any_of(component_links_.begin(), component_links_.end(),
                                   [this](LinkId l) { return !links_[l].flows.empty(); });
      if (any) ++stats_.solves_skipped;
      return true;
    }
    if (!fill_region()) {
      if (component_flows_.size() + fill_frozen_.size() > kRepairMaxRetried) break;
      // The next attempt frees the same flows and more: their fixing links were rewritten by this one.
      forced_.insert(forced_.end(), component_flows_.begin(), component_flows_.end());
      continue;
    }
    ++stats_.rate_solves;
    ++stats_.repairs;
    stats_.flows_solved += component_flows_.size();
    for (uint32_t f : component_flows_) rerate(f, hot_[f].solved);
    if (config_.check_invariants) {
      const std::vector<LinkId> region = component_links_;
      check_skip(region);
    }
    return true;
  }
  return false;
}

}  // namespace weft
