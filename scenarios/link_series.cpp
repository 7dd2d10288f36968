#include "scenarios/link_series.h"

#include <fmt/format.h>
#include <algorithm>

#include "topologies/metrics.h"

namespace weft {
namespace {

LinkSeries series(const Topology& topology, const LinkTimeline& timeline, LinkId l) {
  const LinkProps& link = topology.link(l);
  LinkSeries s;
  s.name = fmt::format("{} -> {} ({}, {:.1f} Gb/s)", topology.node(topology.link_source(l)).name,
                       topology.node(topology.link_target(l)).name, to_string(link.kind), link.rate.bps() / 1e9);
  const double bits_per_bin = static_cast<double>(link.rate.bps()) * timeline.bin_width().seconds();
  // Bytes are spread evenly over each transfer's time on the link, so a bin can show more than the
  // link's rate where transfers overlapped unevenly: clamped (the totals stay exact).
  for (double bytes : timeline.bytes(l)) s.utilisation.push_back(std::min(1.0, bytes * 8 / bits_per_bin));
  return s;
}

}  // namespace

BusiestLinks busiest_links(const Topology& topology, const LinkTimeline& timeline, uint32_t k) {
  BusiestLinks out;
  out.bin = timeline.bin_width();
  for (LinkId l : timeline.busiest(topology, k)) out.links.push_back(series(topology, timeline, l));
  return out;
}

}  // namespace weft
