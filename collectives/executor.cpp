#include "collectives/executor.h"

#include <algorithm>
#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {

ScheduleExecutor::ScheduleExecutor(Engine& engine, Fabric& fabric, const Schedule& schedule,
                                   std::span<const NodeIndex> rank_nodes, Recorder& recorder)
    : engine_(engine), fabric_(fabric), schedule_(schedule), rank_nodes_(rank_nodes), recorder_(recorder) {
  if (rank_nodes.size() < schedule.ranks) {
    throw ModelError(fmt::format("{}: needs {} ranks, the topology has {} GPUs", schedule.name, schedule.ranks,
                                 rank_nodes.size()));
  }
  if (schedule.max_in_flight < 1 || schedule.max_in_flight > 64) {
    throw ModelError(fmt::format("{}: max_in_flight must be 1..64", schedule.name));
  }
  size_t n = schedule.streams.size();
  cursors_.resize(n);
  done_.assign(n, 0);
  done_beyond_.assign(n, 0);
  total_steps_.resize(n);
  std::vector<std::vector<uint32_t>> waiting(n);
  for (uint32_t s = 0; s < n; ++s) {
    total_steps_[s] = step_count(schedule.streams[s]);
    for (const StepRun& r : schedule.streams[s].runs) {
      for (int32_t target : {r.wait_stream, r.also_wait_stream}) {
        if (target < 0) continue;
        auto& list = waiting[static_cast<size_t>(target)];
        if (list.empty() || list.back() != s) list.push_back(s);
      }
    }
  }
  dependent_offset_.assign(1, 0);
  for (auto& list : waiting) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    dependents_.insert(dependents_.end(), list.begin(), list.end());
    dependent_offset_.push_back(static_cast<uint32_t>(dependents_.size()));
  }
}

void ScheduleExecutor::start(OnComplete on_complete) {
  on_complete_ = std::move(on_complete);
  start_time_ = engine_.now();
  for (uint32_t s = 0; s < schedule_.streams.size(); ++s) {
    if (total_steps_[s] == 0) ++finished_streams_;
  }
  if (done()) {
    finish();
    return;
  }
  if (schedule_.start_latency > Time()) {
    engine_.schedule_in(schedule_.start_latency, [this] {
      for (uint32_t s = 0; s < schedule_.streams.size(); ++s) pump(s);
    });
    return;
  }
  for (uint32_t s = 0; s < schedule_.streams.size(); ++s) pump(s);
}

void ScheduleExecutor::pump(uint32_t s) {
  const Stream& stream = schedule_.streams[s];
  StreamCursor& cursor = cursors_[s];
  while (cursor.has_step(stream) && cursor.index() - done_[s] < schedule_.max_in_flight &&
         cursor.dependency_met(stream, done_)) {
    uint64_t index = cursor.index();
    const StepRun& run = cursor.run(stream);
    cursor.advance(stream);
    issue(s, run, index);
  }
}

void ScheduleExecutor::issue(uint32_t s, const StepRun& run, uint64_t index) {
  auto on_done = [this, s, index] { step_done(s, index); };
  if (run.kind == StepKind::local) {
    engine_.schedule_in(run.duration, on_done);
    return;
  }
  if (run.kind == StepKind::group) {
    const RankGroup& ranks = schedule_.groups[run.peer];
    GroupTransfer g;
    for (uint32_t r : ranks.srcs) g.srcs.push_back(rank_nodes_[r]);
    for (uint32_t r : ranks.dsts) g.dsts.push_back(rank_nodes_[r]);
    g.bytes = run.bytes;
    g.entropy = entropy_base_ + s;
    g.tag = index;
    g.max_rate = schedule_.channel_rate.bps();
    fabric_.start_group(g, on_done);
    return;
  }
  const Stream& stream = schedule_.streams[s];
  Transfer t{rank_nodes_[stream.rank], rank_nodes_[run.peer], run.bytes, 0, entropy_base_ + s, index};
  t.max_rate = schedule_.channel_rate.bps();
  fabric_.start(t, on_done);
}

void ScheduleExecutor::step_done(uint32_t s, uint64_t index) {
  ++steps_done_;
  uint64_t offset = index - done_[s];
  WEFT_ASSERT(offset < 64);
  done_beyond_[s] |= uint64_t{1} << offset;
  uint64_t before = done_[s];
  while (done_beyond_[s] & 1) {
    done_beyond_[s] >>= 1;
    ++done_[s];
  }
  if (done_[s] == before) return;  // an earlier step is still out: nothing new is unblocked
  if (done_[s] == total_steps_[s] && ++finished_streams_ == schedule_.streams.size()) {
    finish();
    return;
  }
  pump(s);
  for (uint32_t i = dependent_offset_[s]; i < dependent_offset_[s + 1]; ++i) pump(dependents_[i]);
}

void ScheduleExecutor::finish() {
  end_time_ = engine_.now();
  if (recorder_.active()) {
    recorder_.on_collective_done({schedule_.name, schedule_.ranks, schedule_.size, start_time_, end_time_,
                                  transfer_count(schedule_)});
  }
  if (on_complete_) on_complete_();
}

}  // namespace weft
