#include "workloads/sm_share.h"

#include <algorithm>
#include <cmath>

#include "sim/core/errors.h"

namespace weft {

SmShare::SmShare(Engine& engine, uint32_t ranks, uint32_t sms) : engine_(engine), sms_(sms), ranks_(ranks) {}

double SmShare::rate(uint32_t rank) const {
  if (sms_ == 0) return 1.0;
  // NCCL cannot take every SM (a kernel with more blocks than SMs waits for them); keep one.
  const uint32_t held = std::min(ranks_[rank].held, sms_ - 1);
  return static_cast<double>(sms_ - held) / sms_;
}

void SmShare::start(uint32_t rank, Time work, EventCallback done) {
  RankState& r = ranks_[rank];
  r.running.push_back({next_key_++, EventId{}, static_cast<double>(work.ps()), engine_.now(), std::move(done)});
  schedule(rank, r.running.size() - 1);
}

void SmShare::schedule(uint32_t rank, size_t i) {
  Running& op = ranks_[rank].running[i];
  const double r = rate(rank);
  // Untouched at full speed, an op ends exactly `work` after its start: a run without NCCL beside
  // its compute keeps every duration to the picosecond.
  const double ps = std::ceil(op.work_left_ps / r);
  const uint64_t key = op.key;
  op.event = engine_.schedule_in(Time::ps(static_cast<int64_t>(ps)), [this, rank, key] { complete(rank, key); });
}

void SmShare::retime(uint32_t rank, double old_rate) {
  RankState& r = ranks_[rank];
  if (r.running.empty() || rate(rank) == old_rate) return;
  for (size_t i = 0; i < r.running.size(); ++i) {
    Running& op = r.running[i];
    const double ran = static_cast<double>((engine_.now() - op.since).ps()) * old_rate;
    op.work_left_ps = std::max(0.0, op.work_left_ps - ran);
    op.since = engine_.now();
    engine_.cancel(op.event);
    schedule(rank, i);
  }
}

void SmShare::hold(uint32_t rank, uint32_t blocks) {
  const double before = rate(rank);
  ranks_[rank].held += blocks;
  retime(rank, before);
}

void SmShare::release(uint32_t rank, uint32_t blocks) {
  WEFT_ASSERT(ranks_[rank].held >= blocks);
  const double before = rate(rank);
  ranks_[rank].held -= blocks;
  retime(rank, before);
}

void SmShare::complete(uint32_t rank, uint64_t key) {
  std::vector<Running>& running = ranks_[rank].running;
  const auto it = std::find_if(running.begin(), running.end(), [key](const Running& op) { return op.key == key; });
  WEFT_ASSERT(it != running.end());
  // Out of the list before it runs: `done` may start the rank's next op.
  EventCallback done = std::move(it->done);
  running.erase(it);
  done();
}

}  // namespace weft
