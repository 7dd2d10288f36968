// A summary of a workload read from a trace, for `weft trace info`: ranks, ops by kind, collectives
// by (type, bytes, communicator size), communicators, and the profiler step when known.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/program.h"

namespace weft {

struct TraceCollectiveRow {
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes bytes;         // nccl-tests' size
  uint32_t ranks = 0;  // communicator size
  uint64_t count = 0;  // instances summed over all ranks
};

struct TraceCommunicatorRow {
  uint32_t index = 0;
  CommGroup group = CommGroup::other;
  std::vector<uint32_t> ranks;
};

struct TraceInfo {
  std::string name;
  uint32_t ranks = 0;
  std::array<uint64_t, 4> ops_by_kind{};        // indexed by OpKind, all ranks
  double compute_seconds = 0;                   // sum of compute durations, all ranks (a double: thousands of
                                                // ranks of long traces add up past an int64 of picoseconds)
  uint64_t p2p_bytes = 0;                       // sum of send sizes
  std::vector<TraceCollectiveRow> collectives;  // sorted by (op, bytes, ranks)
  std::vector<TraceCommunicatorRow> communicators;
  std::optional<uint32_t> step;  // filled by the caller from TraceMetadata
  Time step_duration;
};

TraceInfo trace_info(const Workload& workload);
// A plain-text table (fixed-width columns, one line per row).
std::string format_trace_info(const TraceInfo& info);

}  // namespace weft
