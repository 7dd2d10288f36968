// Bytes each directed link carried over simulated time, in equal bins: the data behind the
// link-utilisation counters of a Chrome trace. Bins start 1 us wide and double (neighbours merged)
// whenever the run outgrows them, so memory stays at `max_bins` values per link that carried
// traffic, whatever the run's length. A Recorder sink: fabrics report a transfer's bytes with the
// interval they crossed a link in (Hook::link_bytes); the bytes are spread evenly over it (exact
// totals, smoothed shape).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/recorder.h"
#include "sim/core/units.h"
#include "topologies/topology.h"

namespace weft {

class LinkTimeline final : public RecorderSink {
 public:
  explicit LinkTimeline(size_t links, uint32_t max_bins = 128, Time first_width = Time::us(1));

  uint8_t hooks() const override { return static_cast<uint8_t>(Hook::link_bytes); }
  void on_link_bytes(const LinkBytes& r) override { add(r.link, r.from, r.to, r.bytes); }

  // `bytes` crossed `link` evenly during [from, to] (from == to: all at that instant).
  void add(LinkId link, Time from, Time to, double bytes);

  Time bin_width() const { return width_; }
  // Bins up to the last one that holds any bytes, on any link.
  size_t bins() const { return used_bins_; }
  // Bytes per bin (bins() values; empty for a link that carried nothing).
  std::vector<double> bytes(LinkId link) const;
  double total(LinkId link) const;
  // The `k` links that carried the most bytes relative to their rate (the busiest first; ties by id).
  std::vector<LinkId> busiest(const Topology& topology, size_t k) const;

 private:
  void grow_to(int64_t end_ps);

  uint32_t max_bins_;
  Time width_;
  size_t used_bins_ = 0;
  std::vector<std::vector<double>> bins_;  // [link][bin], allocated on a link's first bytes
};

}  // namespace weft
