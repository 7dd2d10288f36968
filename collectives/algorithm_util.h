// Small helpers shared by the collective algorithms (tree, all-to-all, MPI-style): building blocks for
// Schedules, no behaviour of their own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "collectives/schedule.h"
#include "sim/core/errors.h"

namespace weft::detail {

inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// ceil(log2 n) for n >= 1.
inline uint32_t ceil_log2(uint64_t n) {
  uint32_t k = 0;
  while ((uint64_t{1} << k) < n) ++k;
  return k;
}

inline bool is_power_of_two(uint64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Bytes of part i when `total` is split over `parts` (the first total % parts get one more).
inline uint64_t share(uint64_t total, uint32_t parts, uint32_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

inline Schedule empty_schedule(std::string_view name, uint32_t ranks, Bytes size, uint32_t max_in_flight) {
  if (ranks == 0) throw ConfigError(fmt::format("{}: needs at least one rank", name));
  Schedule s;
  s.name = std::string(name);
  s.ranks = ranks;
  s.size = size;
  s.max_in_flight = max_in_flight;
  return s;
}

// Appends `bytes` to `peer` as full chunks and a shorter tail; every step carries the dependencies of
// `waits` (its wait_* and also_wait_* fields; the rest is ignored), so with offset 0 chunk c of this
// stream waits for step c of the streams it names.
inline void append_chunked(Stream& stream, uint32_t peer, uint64_t bytes, uint64_t chunk, const StepRun& waits = {}) {
  StepRun run = waits;
  run.kind = StepKind::send;
  run.peer = peer;
  run.duration = Time();
  run.count = static_cast<uint32_t>(bytes / chunk);
  run.bytes = Bytes(chunk);
  append_run(stream, run);
  run.count = bytes % chunk > 0 ? 1 : 0;
  run.bytes = Bytes(bytes % chunk);
  append_run(stream, run);
}

// Number of steps append_chunked() produces.
inline uint64_t chunk_count(uint64_t bytes, uint64_t chunk) { return ceil_div(bytes, chunk); }

// A step that waits for step k of stream a and of stream b (-1: none), at offset 0.
inline StepRun waits_for(int32_t a, int32_t b) {
  StepRun run;
  run.wait_stream = a;
  run.also_wait_stream = b;
  return run;
}

// A step that waits for step k of every stream in `inputs` (all `steps` long, one step per chunk):
// two are one step's two waits; more go through streams of zero-duration local steps, added to `s`
// on `rank` and `channel`, that join two at a time.
inline StepRun join_streams(Schedule& s, uint32_t rank, uint32_t channel, std::vector<int32_t> inputs, uint64_t steps) {
  while (inputs.size() > 2) {
    s.streams.push_back({rank, channel, {}});
    const auto joined = static_cast<int32_t>(s.streams.size() - 1);
    StepRun run = waits_for(inputs[0], inputs[1]);
    run.kind = StepKind::local;
    run.count = static_cast<uint32_t>(steps);
    append_run(s.streams.back(), run);
    inputs.erase(inputs.begin(), inputs.begin() + 2);
    inputs.insert(inputs.begin(), joined);
  }
  return waits_for(inputs.empty() ? -1 : inputs[0], inputs.size() > 1 ? inputs[1] : -1);
}

}  // namespace weft::detail
