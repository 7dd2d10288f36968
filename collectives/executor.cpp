#include "collectives/executor.h"

#include <fmt/format.h>
#include <algorithm>

#include "collectives/rank_images.h"
#include "sim/core/errors.h"

namespace weft {

ScheduleExecutor::ScheduleExecutor(Engine& engine, Fabric& fabric, const Schedule& schedule,
                                   std::span<const NodeIndex> rank_nodes, Recorder& recorder)
    : engine_(engine), fabric_(fabric), schedule_(schedule), rank_nodes_(rank_nodes), recorder_(recorder) {
  if (rank_nodes.size() < schedule.ranks) {
    throw ModelError(
        fmt::format("{}: needs {} ranks, the topology has {} GPUs", schedule.name, schedule.ranks, rank_nodes.size()));
  }
  if (schedule.max_in_flight < 1 || schedule.max_in_flight > 64) {
    throw ModelError(fmt::format("{}: max_in_flight must be 1..64", schedule.name));
  }
  groups_.resize(schedule.groups.size());
  for (size_t g = 0; g < schedule.groups.size(); ++g) {
    for (uint32_t r : schedule.groups[g].srcs) groups_[g].srcs.push_back(rank_nodes[r]);
    for (uint32_t r : schedule.groups[g].dsts) groups_[g].dsts.push_back(rank_nodes[r]);
    groups_[g].max_rate = schedule.channel_rate.bps();
  }
}

namespace {

// The fewest bytes one step of `stream` sends to `target` (kind and peer).
Bytes smallest_to(const Stream& stream, std::pair<StepKind, uint32_t> target) {
  Bytes least{UINT64_MAX};
  for (const StepRun& run : stream.runs) {
    if (run.kind == target.first && run.peer == target.second) least = std::min(least, run.bytes);
  }
  return least;
}

}  // namespace

// Whether the fabric moves every transfer of stream a as the same one of stream b (their entropies
// differ); checked once per distinct peer or group.
bool ScheduleExecutor::alike(uint32_t a, uint32_t b) {
  const Stream& stream = schedule_.streams[a];
  std::vector<std::pair<StepKind, uint32_t>> seen;
  for (const StepRun& run : stream.runs) {
    if (run.kind == StepKind::local) continue;
    std::pair<StepKind, uint32_t> target{run.kind, run.peer};
    if (std::find(seen.begin(), seen.end(), target) != seen.end()) continue;
    seen.push_back(target);
    bool same = run.kind == StepKind::group
                    ? fabric_.interchangeable(groups_[run.peer], entropy_base_ + a, entropy_base_ + b,
                                              smallest_to(stream, target))
                    : fabric_.interchangeable(rank_nodes_[stream.rank], rank_nodes_[run.peer], entropy_base_ + a,
                                              entropy_base_ + b, smallest_to(stream, target));
    if (!same) return false;
  }
  return true;
}

// The smallest shift of ranks under which the schedule is invariant and the fabric moves the
// transfers as images (it then runs on the quotient of its links). Only on a fabric that runs copies.
bool ScheduleExecutor::form_image_classes() {
  if (!rank_images_ || !schedule_.groups.empty()) return false;
  for (uint32_t d = 1; d < schedule_.ranks; ++d) {
    std::optional<RankShift> shift = rank_shift(schedule_, d);
    if (!shift || !fabric_.enter_quotient(transfer_orbits(schedule_, *shift, rank_nodes_, entropy_base_))) continue;
    classes_ = image_classes(schedule_, *shift, [this](uint32_t a, uint32_t b) { return alike(a, b); });
    images_ = shift->images;
    return true;
  }
  return false;
}

void ScheduleExecutor::form_classes() {
  const auto n = static_cast<uint32_t>(schedule_.streams.size());
  if (!fabric_.runs_copies()) {
    classes_ = {std::vector<uint32_t>(n), std::vector<uint32_t>(n), std::vector<uint32_t>(n, 1)};
    for (uint32_t s = 0; s < n; ++s) classes_.class_of[s] = classes_.lead[s] = s;
  } else if (!form_image_classes()) {
    classes_ = stream_classes(schedule_, [this](uint32_t a, uint32_t b) { return alike(a, b); });
  }
  const size_t k = classes_.lead.size();
  cursors_.assign(k, StreamCursor());
  connections_.assign(k, ConnectionMemo());
  done_.assign(k, 0);
  done_beyond_.assign(k, 0);
  total_steps_.resize(k);
  std::vector<std::vector<uint32_t>> waiting(k);
  for (uint32_t c = 0; c < k; ++c) {
    const Stream& lead = schedule_.streams[classes_.lead[c]];
    total_steps_[c] = step_count(lead);
    for (const StepRun& r : lead.runs) {
      for (int32_t target : {r.wait_stream, r.also_wait_stream}) {
        if (target < 0) continue;
        auto& list = waiting[classes_.class_of[static_cast<size_t>(target)]];
        if (list.empty() || list.back() != c) list.push_back(c);
      }
    }
  }
  dependent_offset_.assign(1, 0);
  dependents_.clear();
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
  form_classes();
  const auto k = static_cast<uint32_t>(classes_.lead.size());
  for (uint32_t c = 0; c < k; ++c) {
    if (total_steps_[c] == 0) finished_streams_ += classes_.size[c];
  }
  if (done()) {
    finish();
    return;
  }
  if (schedule_.start_latency > Time()) {
    engine_.schedule_in(schedule_.start_latency, [this, k] {
      for (uint32_t c = 0; c < k; ++c) pump(c);
    });
    return;
  }
  for (uint32_t c = 0; c < k; ++c) pump(c);
}

void ScheduleExecutor::pump(uint32_t c) {
  const Stream& stream = schedule_.streams[classes_.lead[c]];
  StreamCursor& cursor = cursors_[c];
  auto done_of = [this](uint32_t s) { return done_[classes_.class_of[s]]; };
  while (cursor.has_step(stream) && cursor.index() - done_[c] < schedule_.max_in_flight &&
         cursor.dependency_met(stream, done_of)) {
    uint64_t index = cursor.index();
    const StepRun& run = cursor.run(stream);
    cursor.advance(stream);
    issue(c, run, index);
  }
}

void ScheduleExecutor::issue(uint32_t c, const StepRun& run, uint64_t index) {
  auto on_done = [this, c, index] { step_done(c, index); };
  if (run.kind == StepKind::local) {
    engine_.schedule_in(run.duration, on_done);
    return;
  }
  const uint32_t s = classes_.lead[c];
  if (run.kind == StepKind::group) {
    GroupTransfer& g = groups_[run.peer];
    g.bytes = run.bytes;
    g.entropy = entropy_base_ + s;
    g.tag = index;
    g.copies = classes_.size[c];
    fabric_.start_group(g, on_done);
    return;
  }
  const Stream& stream = schedule_.streams[s];
  Transfer t{rank_nodes_[stream.rank], rank_nodes_[run.peer], run.bytes, 0, entropy_base_ + s, index};
  t.max_rate = schedule_.channel_rate.bps();
  t.copies = classes_.size[c];
  fabric_.start_connected(t, on_done, connections_[c]);
}

void ScheduleExecutor::step_done(uint32_t c, uint64_t index) {
  steps_done_ += classes_.size[c];
  uint64_t offset = index - done_[c];
  WEFT_ASSERT(offset < 64);
  done_beyond_[c] |= uint64_t{1} << offset;
  uint64_t before = done_[c];
  while (done_beyond_[c] & 1) {
    done_beyond_[c] >>= 1;
    ++done_[c];
  }
  if (done_[c] == before) return;  // an earlier step is still out: nothing new is unblocked
  if (done_[c] == total_steps_[c] && (finished_streams_ += classes_.size[c]) == schedule_.streams.size()) {
    finish();
    return;
  }
  pump(c);
  for (uint32_t i = dependent_offset_[c]; i < dependent_offset_[c + 1]; ++i) pump(dependents_[i]);
}

void ScheduleExecutor::finish() {
  end_time_ = engine_.now();
  if (recorder_.wants(Hook::collectives)) {
    recorder_.on_collective_done(
        {schedule_.name, schedule_.ranks, schedule_.size, start_time_, end_time_, transfer_count(schedule_)});
  }
  if (on_complete_) on_complete_();
}

}  // namespace weft
