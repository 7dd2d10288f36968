// The simulated timeline of one training replay as a Chrome/Perfetto trace (the JSON object format
// of the Trace Event Format: open it in ui.perfetto.dev or chrome://tracing). One process per rank,
// one thread per stream ("compute", then communication streams named by their group: TP, DP, PP
// send, ...), one complete ("X") event per op from its start to its end, and a counter track per
// rank of the communication ops in flight by group, and a process "links" with a utilisation counter
// in `links` (run_training's busiest links). A pure function from the replay's results (its op
// timeline is the Recorder sink workloads/op_timeline.h) to text.
#pragma once

#include <cstdint>
#include <string>

#include "scenarios/link_series.h"
#include "workloads/replayer.h"

namespace weft {

struct ChromeTraceOptions {
  std::string title;  // e.g. the variant's name; goes into the trace's metadata
  // Big runs are cut to their first ranks so the file stays loadable (trace viewers struggle past a
  // few hundred MB; one op event is ~200 bytes): whole ranks are kept, in rank order, while both
  // limits hold (rank 0 always). The metadata says what was left out.
  uint32_t max_ranks = 64;
  uint64_t max_events = 400'000;  // op and counter events over the ranks shown
};

// Throws ModelError when `replay` does not belong to `workload` (its op timeline has other shapes).
std::string chrome_trace(const Workload& workload, const ReplayResult& replay, const ChromeTraceOptions& options = {},
                         const BusiestLinks& links = {});

}  // namespace weft
