#include "sim/maxmin.h"

#include <algorithm>

#include "sim/core/errors.h"
#include "sim/core/units.h"

namespace weft {
namespace {

// Min-heap order by (share, link) so that ties resolve the same way on every run.
bool after(const auto& a, const auto& b) { return a.share != b.share ? a.share > b.share : a.link > b.link; }

}  // namespace

void MaxMinSolver::clear() {
  capacity_.clear();
  flow_offset_.assign(1, 0);
  flow_links_.clear();
  weight_.clear();
}

uint32_t MaxMinSolver::add_link(uint64_t capacity_bps) {
  WEFT_ASSERT(capacity_bps > 0);
  capacity_.push_back(capacity_bps);
  return static_cast<uint32_t>(capacity_.size() - 1);
}

uint32_t MaxMinSolver::add_flow(std::span<const uint32_t> links, uint32_t weight) {
  WEFT_ASSERT(!links.empty() && weight > 0);
  weight_.push_back(weight);
  flow_links_.insert(flow_links_.end(), links.begin(), links.end());
  flow_offset_.push_back(static_cast<uint32_t>(flow_links_.size()));
  return static_cast<uint32_t>(flow_offset_.size() - 2);
}

void MaxMinSolver::index_flows_by_link() {
  size_t links = capacity_.size();
  link_offset_.assign(links + 1, 0);
  unfixed_.assign(links, 0);
  for (uint32_t f = 0; f + 1 < flow_offset_.size(); ++f) {
    for (uint32_t i = flow_offset_[f]; i < flow_offset_[f + 1]; ++i) {
      ++link_offset_[flow_links_[i] + 1];
      unfixed_[flow_links_[i]] += weight_[f];
    }
  }
  for (size_t l = 0; l < links; ++l) link_offset_[l + 1] += link_offset_[l];
  link_flows_.resize(flow_links_.size());
  cursor_.assign(link_offset_.begin(), link_offset_.end() - 1);
  for (uint32_t f = 0; f + 1 < flow_offset_.size(); ++f) {
    for (uint32_t i = flow_offset_[f]; i < flow_offset_[f + 1]; ++i) link_flows_[cursor_[flow_links_[i]]++] = f;
  }
}

void MaxMinSolver::fix_flows_of(uint32_t link, uint64_t share) {
  for (uint32_t i = link_offset_[link]; i < link_offset_[link + 1]; ++i) {
    uint32_t f = link_flows_[i];
    if (fixed_[f]) continue;
    fixed_[f] = 1;
    --unfixed_flows_;
    rate_[f] = share;
    uint32_t w = weight_[f];
    for (uint32_t j = flow_offset_[f]; j < flow_offset_[f + 1]; ++j) {
      uint32_t other = flow_links_[j];
      // share >= 1 may exceed a tiny link; w copies one after another would stop at zero too.
      uint128 taken = static_cast<uint128>(share) * w;
      remaining_[other] -= static_cast<uint64_t>(std::min<uint128>(taken, remaining_[other]));
      unfixed_[other] -= w;
    }
  }
}

// Fixing flows at the smallest share s never lowers another link's share: each link l still in the
// heap has floor(R/U) >= s, and losing w flows at s leaves (R - s*w) / (U - w) >= R/U. (With s raised
// to 1 on a link of share 0, any share is >= 0.) So the heap keeps one entry per link, updated lazily
// when popped: its key is never above the link's share, and the pops in (share, link) order are those
// of a heap updated on every change (Bertsekas & Gallager's progressive filling, unchanged).
void MaxMinSolver::solve() {
  size_t flows = flow_offset_.size() - 1;
  index_flows_by_link();
  remaining_ = capacity_;
  rate_.assign(flows, 0);
  fixed_.assign(flows, 0);
  heap_.clear();
  for (uint32_t l = 0; l < capacity_.size(); ++l) {
    if (unfixed_[l] > 0) heap_.push_back({remaining_[l] / unfixed_[l], l});
  }
  std::make_heap(heap_.begin(), heap_.end(), after<Candidate, Candidate>);
  unfixed_flows_ = flows;
  // Every flow crosses a link, so the heap empties of useful entries exactly when no flow is left.
  while (unfixed_flows_ > 0 && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), after<Candidate, Candidate>);
    Candidate c = heap_.back();
    heap_.pop_back();
    if (unfixed_[c.link] == 0) continue;  // fixed by the other links of its flows
    // Stale entry: the link lost flows since it was pushed. Its share only grew (see above), so it
    // goes back with its current share and is fixed in the same order as with eager updates.
    uint64_t share = remaining_[c.link] / unfixed_[c.link];
    if (share != c.share) {
      heap_.push_back({share, c.link});
      std::push_heap(heap_.begin(), heap_.end(), after<Candidate, Candidate>);
      continue;
    }
    fix_flows_of(c.link, std::max<uint64_t>(c.share, 1));
  }
}

}  // namespace weft
