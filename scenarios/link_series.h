// The busiest links of a run as named utilisation series over time: what the Chrome trace's link
// counters and the Python package's `links` table show. Built from a LinkTimeline that listened on
// the run's Recorder; the names are for people ("gpu0 -> nvswitch1 (nvlink, 450.0 Gb/s)").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/link_timeline.h"
#include "topologies/topology.h"

namespace weft {

struct LinkSeries {
  std::string name;                 // "gpu0 -> nvswitch1 (nvlink, 450.0 Gb/s)"
  std::vector<double> utilisation;  // per bin: wire bits / (rate x bin width), 0..1
};

struct BusiestLinks {
  std::vector<LinkSeries> links;  // the busiest first
  Time bin;                       // the width of their bins
};

// The `k` links of `timeline` that carried the most relative to their rate.
BusiestLinks busiest_links(const Topology& topology, const LinkTimeline& timeline, uint32_t k);

}  // namespace weft
