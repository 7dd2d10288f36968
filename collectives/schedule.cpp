#include "collectives/schedule.h"

#include <algorithm>
#include <fmt/format.h>

#include "collectives/stream_cursor.h"
#include "sim/core/errors.h"

namespace weft {

void append_run(Stream& stream, const StepRun& run) {
  if (run.count == 0) return;
  if (!stream.runs.empty()) {
    StepRun& last = stream.runs.back();
    if (last.kind == run.kind && last.peer == run.peer && last.bytes == run.bytes &&
        last.duration == run.duration && last.wait_stream == run.wait_stream &&
        last.wait_offset == run.wait_offset && last.also_wait_stream == run.also_wait_stream &&
        last.also_wait_offset == run.also_wait_offset) {
      last.count += run.count;
      return;
    }
  }
  stream.runs.push_back(run);
}

void relabel(Schedule& schedule, std::span<const uint32_t> rank_of) {
  for (Stream& stream : schedule.streams) {
    stream.rank = rank_of[stream.rank];
    for (StepRun& run : stream.runs) {
      if (run.kind == StepKind::send) run.peer = rank_of[run.peer];
    }
  }
  for (RankGroup& group : schedule.groups) {
    for (uint32_t& r : group.srcs) r = rank_of[r];
    for (uint32_t& r : group.dsts) r = rank_of[r];
  }
}

uint64_t step_count(const Stream& stream) {
  uint64_t n = 0;
  for (const StepRun& r : stream.runs) n += r.count;
  return n;
}

uint64_t transfer_count(const Schedule& schedule) {
  uint64_t n = 0;
  for (const Stream& s : schedule.streams) {
    for (const StepRun& r : s.runs) n += r.kind == StepKind::send ? r.count : 0;
  }
  return n;
}

std::vector<uint64_t> bytes_sent_by_rank(const Schedule& schedule) {
  std::vector<uint64_t> sent(schedule.ranks, 0);
  for (const Stream& s : schedule.streams) {
    for (const StepRun& r : s.runs) {
      if (r.kind == StepKind::send) sent[s.rank] += r.bytes.count() * r.count;
      if (r.kind == StepKind::group) {
        for (uint32_t src : schedule.groups[r.peer].srcs) sent[src] += r.bytes.count() * r.count;
      }
    }
  }
  return sent;
}

namespace {

bool valid_group(const Schedule& schedule, uint32_t index) {
  if (index >= schedule.groups.size()) return false;
  const RankGroup& g = schedule.groups[index];
  auto in_range = [&](uint32_t r) { return r < schedule.ranks; };
  return !g.srcs.empty() && !g.dsts.empty() && std::all_of(g.srcs.begin(), g.srcs.end(), in_range) &&
         std::all_of(g.dsts.begin(), g.dsts.end(), in_range);
}

void check_ranges(const Schedule& schedule) {
  for (size_t i = 0; i < schedule.streams.size(); ++i) {
    const Stream& s = schedule.streams[i];
    if (s.rank >= schedule.ranks) throw ModelError(fmt::format("{}: stream {} has rank {} of {}", schedule.name, i, s.rank, schedule.ranks));
    for (const StepRun& r : s.runs) {
      bool bad_peer = (r.kind == StepKind::send && (r.peer >= schedule.ranks || r.peer == s.rank)) ||
                      (r.kind == StepKind::group && !valid_group(schedule, r.peer));
      auto streams = static_cast<int32_t>(schedule.streams.size());
      bool bad_wait = r.wait_stream >= streams || r.also_wait_stream >= streams;
      if (bad_peer || bad_wait) throw ModelError(fmt::format("{}: stream {} has a step with a bad peer or wait target", schedule.name, i));
    }
  }
}

}  // namespace

// Dry run: repeatedly advance every stream whose next step's dependency is done. The DAG is acyclic
// exactly when this completes every step.
void validate(const Schedule& schedule) {
  check_ranges(schedule);
  std::vector<StreamCursor> cursors(schedule.streams.size());
  std::vector<uint64_t> done(schedule.streams.size(), 0);
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t i = 0; i < schedule.streams.size(); ++i) {
      const Stream& s = schedule.streams[i];
      while (cursors[i].has_step(s) && cursors[i].dependency_met(s, done)) {
        cursors[i].advance(s);
        ++done[i];
        progress = true;
      }
    }
  }
  for (size_t i = 0; i < schedule.streams.size(); ++i) {
    if (cursors[i].has_step(schedule.streams[i])) {
      throw ModelError(fmt::format("{}: stream {} (rank {}) deadlocks at step {}: the dependencies form a cycle",
                                   schedule.name, i, schedule.streams[i].rank, done[i]));
    }
  }
}

}  // namespace weft
