#include "sim/link_timeline.h"

#include <algorithm>
#include <numeric>

#include "sim/core/errors.h"

namespace weft {

LinkTimeline::LinkTimeline(size_t links, uint32_t max_bins, Time first_width)
    : max_bins_(std::max<uint32_t>(2, max_bins)), width_(first_width), bins_(links) {
  WEFT_ASSERT(first_width > Time());
}

// Doubles the bin width, merging neighbours, until `end_ps` falls inside the last bin.
void LinkTimeline::grow_to(int64_t end_ps) {
  while (end_ps >= width_.ps() * max_bins_) {
    for (std::vector<double>& b : bins_) {
      if (b.empty()) continue;
      for (size_t i = 0; i < max_bins_ / 2; ++i) b[i] = b[2 * i] + b[2 * i + 1];
      std::fill(b.begin() + max_bins_ / 2, b.end(), 0.0);
    }
    width_ = Time::ps(width_.ps() * 2);
    used_bins_ = (used_bins_ + 1) / 2;
  }
}

void LinkTimeline::add(LinkId link, Time from, Time to, double bytes) {
  WEFT_ASSERT(link < bins_.size() && from <= to && from >= Time());
  if (bytes <= 0) return;
  grow_to(to.ps());
  std::vector<double>& b = bins_[link];
  if (b.empty()) b.assign(max_bins_, 0.0);
  const int64_t w = width_.ps();
  const auto first = static_cast<size_t>(from.ps() / w), last = static_cast<size_t>(to.ps() / w);
  used_bins_ = std::max(used_bins_, last + 1);
  if (first == last) {
    b[first] += bytes;
    return;
  }
  // Each bin gets the share of [from, to] that falls inside it.
  const double per_ps = bytes / static_cast<double>((to - from).ps());
  for (size_t i = first; i <= last; ++i) {
    const int64_t lo = std::max<int64_t>(from.ps(), static_cast<int64_t>(i) * w);
    const int64_t hi = std::min<int64_t>(to.ps(), static_cast<int64_t>(i + 1) * w);
    b[i] += per_ps * static_cast<double>(hi - lo);
  }
}

std::vector<double> LinkTimeline::bytes(LinkId link) const {
  const std::vector<double>& b = bins_.at(link);
  if (b.empty()) return {};
  return {b.begin(), b.begin() + static_cast<std::ptrdiff_t>(used_bins_)};
}

double LinkTimeline::total(LinkId link) const {
  const std::vector<double>& b = bins_.at(link);
  return std::accumulate(b.begin(), b.end(), 0.0);
}

std::vector<LinkId> LinkTimeline::busiest(const Topology& topology, size_t k) const {
  std::vector<std::pair<double, LinkId>> load;
  for (LinkId l = 0; l < bins_.size(); ++l) {
    if (!bins_[l].empty()) load.emplace_back(total(l) * 8 / static_cast<double>(topology.link(l).rate.bps()), l);
  }
  std::sort(load.begin(), load.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<LinkId> out;
  for (size_t i = 0; i < load.size() && i < k; ++i) out.push_back(load[i].second);
  return out;
}

}  // namespace weft
