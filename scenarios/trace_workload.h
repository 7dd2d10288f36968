// `workload: {trace: {...}}`: a training step read from a trace (Chakra ET, Chakra JSON, PyTorch
// profiler / Kineto) instead of generated from a model, replayed on the scenario's system and fabric
// like a generated one, so `compare:` can put any traced step on other fabrics.
//
//   workload:
//     trace:
//       format: chakra            # chakra | chakra_json | kineto | auto (default: by extension/content)
//       files: traces/step.{rank}.et  # a path, or a pattern with {rank}; relative to the scenario file
//       ranks: 8                  # for the pattern (default: the rank files that exist)
//       step: 4                   # Kineto: ProfilerStep#4 (default: the first)
//       comm_groups: comm_group.json   # ASTRA-sim's process-group file
//       fill_missing_ranks: true  # a trace of rank 0 only: the other ranks run copies (data parallel)
//       scale_to: 64              # replay a data-parallel trace on 64 ranks
//       recorded_on: a100-80gb    # re-cost compute for this system's GPU (ratio of dense bf16 peaks)
//       compute_scale: 0.5        # or scale every compute duration by hand
//     collective_timing: shared   # as for generated steps
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "sim/core/field_table.h"
#include "workloads/program.h"
#include "workloads/traces/trace.h"

namespace weft {

class YamlMap;

struct TraceWorkload {
  TraceSource source;
  uint32_t scale_to = 0;    // 0: the recorded rank count
  std::string recorded_on;  // catalogue GPU the trace ran on ("": keep the recorded durations)
  std::string label;        // what the reports call it: "chakra trace all_reduce (8 ranks)"
};

// The keys of `trace:` beside `files:` (a path, or a pattern with "{rank}") and `comm_groups:`
// (a path), which are resolved beside the scenario.
std::span<const Field<TraceWorkload>> trace_fields();

// ConfigError at the key's file:line:column for unknown keys, a bad format, rank files that do not
// exist, both recorded_on and compute_scale, an unknown GPU.
TraceWorkload read_trace_workload(const YamlMap& trace);

// Reads the trace, rescales and re-costs it for `gpu` (the system's catalogue GPU), and checks it
// fits `gpus`: ConfigError naming the trace and the counts otherwise.
Workload load_trace_workload(const TraceWorkload& trace, const std::string& gpu, uint32_t gpus);

}  // namespace weft
