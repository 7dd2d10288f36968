#include "sim/analytic_fabric.h"

#include <algorithm>
#include <vector>

namespace weft {

AnalyticFabric::AnalyticFabric(Engine& engine, Router& router, Recorder& recorder)
    : engine_(engine),
      router_(router),
      recorder_(recorder),
      calendar_(engine, [this](const std::vector<uint64_t>& slots) { finish(slots); }) {}

// A transfer between GPUs on NVSwitches interleaves over every NVLink path, as in flow (sim/stripes.h).
TransferId AnalyticFabric::start(const Transfer& transfer, OnTransferDone on_done) {
  return joins_.start(router_, transfer, std::move(on_done), starter());
}

// As flow's: one part per reducing switch over the union of the group's links through it
// (sim/group_paths.h), in its own queue pair.
TransferId AnalyticFabric::start_group(const GroupTransfer& group, OnTransferDone on_done) {
  return joins_.start_group(groups_.stripes(group), group, std::move(on_done), starter());
}

TransferId AnalyticFabric::start_on(const Path& path, const Transfer& transfer, OnTransferDone on_done) {
  Time drained = engine_.now();
  if (!path.links.empty() && transfer.bytes.count() > 0) {
    Time& free_at = sender_free_at_[{transfer.src, transfer.entropy}];
    Bandwidth rate = path.bottleneck;
    if (transfer.max_rate > 0) rate = std::min(rate, Bandwidth::bps(transfer.max_rate));
    drained = std::max(drained, free_at) + transmit_time(transfer.bytes, rate);
    free_at = drained;
  }
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(pending_.size());
    pending_.push_back({transfer, next_id_, engine_.now(), std::move(on_done)});
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    pending_[slot] = {transfer, next_id_, engine_.now(), std::move(on_done)};
  }
  ++stats_.transfers_started;
  calendar_.add(drained + path.latency, slot);
  return next_id_++;
}

void AnalyticFabric::finish(const std::vector<uint64_t>& slots) {
  for (uint64_t s : slots) {
    Pending& p = pending_[s];
    count_delivered(stats_, recorder_, p.id, p.transfer, p.start, engine_.now());
    OnTransferDone done = std::move(p.on_done);
    free_slots_.push_back(static_cast<uint32_t>(s));
    done();
  }
}

}  // namespace weft
