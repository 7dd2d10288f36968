#include "collectives/schedule.h"

#include <fmt/format.h>
#include <algorithm>
#include <unordered_map>

#include "collectives/stream_cursor.h"
#include "sim/core/errors.h"

namespace weft {

void append_run(Stream& stream, const StepRun& run) {
  if (run.count == 0) return;
  if (!stream.runs.empty()) {
    StepRun& last = stream.runs.back();
    if (last.kind == run.kind && last.peer == run.peer && last.bytes == run.bytes && last.duration == run.duration &&
        last.wait_stream == run.wait_stream && last.wait_offset == run.wait_offset &&
        last.also_wait_stream == run.also_wait_stream && last.also_wait_offset == run.also_wait_offset) {
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
    if (s.rank >= schedule.ranks)
      throw ModelError(fmt::format("{}: stream {} has rank {} of {}", schedule.name, i, s.rank, schedule.ranks));
    for (const StepRun& r : s.runs) {
      bool bad_peer = (r.kind == StepKind::send && (r.peer >= schedule.ranks || r.peer == s.rank)) ||
                      (r.kind == StepKind::group && !valid_group(schedule, r.peer));
      auto streams = static_cast<int32_t>(schedule.streams.size());
      bool bad_wait = r.wait_stream >= streams || r.also_wait_stream >= streams;
      if (bad_peer || bad_wait)
        throw ModelError(fmt::format("{}: stream {} has a step with a bad peer or wait target", schedule.name, i));
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
      auto done_of = [&done](uint32_t stream) { return done[stream]; };
      while (cursors[i].has_step(s) && cursors[i].dependency_met(s, done_of)) {
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

namespace {

bool same_shape(const Stream& a, const Stream& b) {
  if (a.rank != b.rank || a.runs.size() != b.runs.size()) return false;
  for (size_t i = 0; i < a.runs.size(); ++i) {
    const StepRun& x = a.runs[i];
    const StepRun& y = b.runs[i];
    if (x.count != y.count || x.kind != y.kind || x.peer != y.peer || x.bytes != y.bytes || x.duration != y.duration ||
        x.wait_offset != y.wait_offset || x.also_wait_offset != y.also_wait_offset ||
        (x.wait_stream < 0) != (y.wait_stream < 0) || (x.also_wait_stream < 0) != (y.also_wait_stream < 0)) {
      return false;
    }
  }
  return true;
}

uint64_t shape_hash(const Stream& s) {
  uint64_t h = 0xCBF29CE484222325ULL;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001B3ULL; };
  mix(s.rank);
  mix(s.runs.size());
  for (const StepRun& r : s.runs) {
    mix((uint64_t{r.count} << 8) | static_cast<uint64_t>(r.kind));
    mix(r.peer);
    mix(r.bytes.count());
    mix(static_cast<uint64_t>(r.duration.ps()));
    mix((static_cast<uint64_t>(static_cast<uint32_t>(r.wait_offset)) << 32) |
        static_cast<uint32_t>(r.also_wait_offset));
  }
  return h;
}

// Whether each run of a waits on a stream of the same class as b's run does (or neither waits).
bool same_waits(const Stream& a, const Stream& b, const std::vector<uint32_t>& class_of) {
  auto of = [&class_of](int32_t s) { return s < 0 ? UINT32_MAX : class_of[static_cast<size_t>(s)]; };
  for (size_t i = 0; i < a.runs.size(); ++i) {
    if (of(a.runs[i].wait_stream) != of(b.runs[i].wait_stream) ||
        of(a.runs[i].also_wait_stream) != of(b.runs[i].also_wait_stream)) {
      return false;
    }
  }
  return true;
}

}  // namespace

// Buckets by shape, then splits classes until every member waits on the classes its lead waits on
// (partition refinement: the class count only grows, so this ends; one pass when nothing splits).
StreamClasses stream_classes(const Schedule& schedule, const std::function<bool(uint32_t a, uint32_t b)>& alike) {
  const auto n = static_cast<uint32_t>(schedule.streams.size());
  StreamClasses out;
  out.class_of.resize(n);
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_shape;  // shape hash -> classes
  for (uint32_t s = 0; s < n; ++s) {
    std::vector<uint32_t>& candidates = by_shape[shape_hash(schedule.streams[s])];
    auto match = std::find_if(candidates.begin(), candidates.end(), [&](uint32_t c) {
      return same_shape(schedule.streams[out.lead[c]], schedule.streams[s]) && alike(out.lead[c], s);
    });
    out.class_of[s] = match != candidates.end() ? *match : static_cast<uint32_t>(out.lead.size());
    if (match == candidates.end()) {
      candidates.push_back(out.class_of[s]);
      out.lead.push_back(s);
    }
  }
  for (bool stable = false; !stable;) {
    std::vector<std::vector<uint32_t>> parts(out.lead.size());  // old class -> the new classes it split into
    std::vector<uint32_t> refined(n);
    std::vector<uint32_t> leads;
    for (uint32_t s = 0; s < n; ++s) {
      std::vector<uint32_t>& candidates = parts[out.class_of[s]];
      auto match = std::find_if(candidates.begin(), candidates.end(), [&](uint32_t c) {
        return same_waits(schedule.streams[leads[c]], schedule.streams[s], out.class_of);
      });
      refined[s] = match != candidates.end() ? *match : static_cast<uint32_t>(leads.size());
      if (match == candidates.end()) {
        candidates.push_back(refined[s]);
        leads.push_back(s);
      }
    }
    stable = leads.size() == out.lead.size();
    out.class_of = std::move(refined);
    out.lead = std::move(leads);
  }
  out.size.assign(out.lead.size(), 0);
  for (uint32_t c : out.class_of) ++out.size[c];
  return out;
}

}  // namespace weft
