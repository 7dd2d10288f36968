// When the flows that start in an instant take, path for path, the places of the flows that
// finished in it, the flow fabric gives each its predecessor's rate without a solve. That is a
// channel's chunk draining from a NIC its other channels also saturate (so the skip rules of
// flow_fabric_skip.cpp cannot drop it) while the channel's next chunk already waits behind it on
// the same queue pair. On the Nemotron-4 15B step of 256 GPUs it was 110,000 of 1.85 M instants
// (and a fifth of the replay's time): most chunks find their next one not yet there (its data
// arrives one path latency later), so the finish and the start are solved apart.
//
// Why it is exact: the fill's rates are a function of the component's flows as a multiset of
// (path, sender limit, weight) alone (ties by LinkId; flow_fabric_fill.cpp), and one flow of weight
// w moves exactly as w flows of weight 1 would (a pop fixes all copies at one share, as
// MaxMinSolver does). If every link changed in this instant carries the same total weight of each
// (path, limit) as at the last consistent state (after a solve or a skip), the multiset is the
// same everywhere, so each rate per copy is what it was: a flow now on (path, limit) gets the rate
// of one that left it, and the same link or limit fixes it (so the skip rules' counts stay true).
// Each link keeps, per instant, the sum of path_key · weight over the flows that joined it minus
// those that left; a zero sum on every changed link is the test. A sum of 128-bit keys can agree
// by chance only; with check_invariants on, every rejoin re-solves the components it touched and
// checks each rate, the links that fixed them and their counts.
// A flow that gains followers counts as joined with their weight (its links dirty, their sums moved).
// Not tried on a rank quotient, or when a limit times a weight leaves 64 bits (the fill's limit
// share then depends on how the weight is split).
#include <algorithm>

#include "sim/core/rng.h"
#include "sim/flow_fabric.h"

namespace weft {
namespace {

bool limit_overflows(uint64_t max_rate, uint32_t weight) {
  return static_cast<uint128>(max_rate) * weight > UINT64_MAX;
}

}  // namespace

// A SplitMix64 mix of the path's address, then of that and the limit: two keys of 64 bits.
uint128 FlowFabric::path_key(uint32_t f) const {
  uint64_t state = reinterpret_cast<uintptr_t>(flows_[f].path);
  state = splitmix64(state) ^ hot_[f].max_rate;
  const uint64_t high = splitmix64(state);
  return static_cast<uint128>(high) << 64U | splitmix64(state);
}

void FlowFabric::note_change(uint32_t f, uint32_t weight, bool joined) {
  const uint128 change = path_key(f) * weight;
  for (LinkId l : links_of(f)) {
    LinkChange& c = changes_[l];
    if (c.instant != instant_) c = {0, instant_};
    c.delta = joined ? c.delta + change : c.delta - change;
  }
}

bool FlowFabric::rejoin_without_solve() {
  if (quotient_.active() || arrivals_.empty()) return false;
  for (LinkId l : dirty_) {
    if (changes_[l].instant == instant_ && changes_[l].delta != 0) return false;
  }
  auto by_path = [](const Departed& d) { return std::pair(d.path, d.max_rate); };
  for (const Departed& d : departed_) {
    if (limit_overflows(d.max_rate, d.weight)) return false;
  }
  std::ranges::sort(departed_, {}, by_path);
  matched_.clear();
  for (uint32_t f : arrivals_) {
    const std::pair wanted(flows_[f].path, hot_[f].max_rate);
    auto it = std::ranges::lower_bound(departed_, wanted, {}, by_path);
    if (it == departed_.end() || by_path(*it) != wanted || limit_overflows(wanted.second, hot_[f].weight)) return false;
    matched_.push_back(static_cast<uint32_t>(it - departed_.begin()));
  }
  for (const Departed& d : departed_) {
    if (d.fixed_by != kLimitKey) --links_[d.fixed_by].fixed_here;
  }
  for (size_t i = 0; i < arrivals_.size(); ++i) {
    const Departed& d = departed_[matched_[i]];
    FlowHot& hot = hot_[arrivals_[i]];
    hot.solved = d.rate;
    hot.fixed_by = d.fixed_by;
    if (d.fixed_by != kLimitKey) ++links_[d.fixed_by].fixed_here;
    rerate(arrivals_[i], d.rate);
  }
  ++stats_.solves_skipped;
  if (config_.check_invariants) check_skip(dirty_);
  return true;
}

}  // namespace weft
