// Trace import and export: the one header the CLI and scenarios include. Reads MLCommons Chakra ETs
// (protobuf, one file per rank), Chakra's feeder JSON and PyTorch-profiler (Kineto) Chrome traces
// into a Workload; writes any Workload as Chakra ETs; rescales data-parallel traces; summarises.
// Every bad input throws ConfigError naming the file, the record and what was expected.
//
// Conventions shared by all readers (details in trace_conventions.h):
//  - Op::bytes of a collective is nccl-tests' size: all-reduce / broadcast / reduce the buffer,
//    all-gather the total output (Chakra's comm_size is the per-rank input: x n), reduce-scatter the
//    total input, all-to-all the per-rank buffer.
//  - Streams: 0 = GPU compute; 1.. = communication streams in order of first use (one per process
//    group for collectives, one for sends, one for recvs); CPU-side compute, when kept, on one more
//    "host" stream after those.
//  - Ranks: rank r runs on GPU r (gpu_of_rank is the identity); the caller maps onto a topology.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/program.h"
#include "workloads/traces/chakra_writer.h"
#include "workloads/traces/trace_info.h"
#include "workloads/traces/trace_scaling.h"

namespace weft {

enum class TraceFormat : uint8_t { automatic, chakra, chakra_json, kineto };
std::string_view to_string(TraceFormat f);
// "auto", "chakra" (or "et"), "chakra_json" (or "chakra-json"), "kineto" (or "pytorch");
// throws ConfigError naming the options.
TraceFormat parse_trace_format(std::string_view text);

struct TraceSource {
  TraceFormat format = TraceFormat::automatic;  // automatic: by extension, then by content
  std::vector<std::string> files;               // one per rank, in rank order (Chakra) ...
  std::string pattern;                          // ... or a path with "{rank}" expanded for 0..ranks-1
  std::optional<uint32_t> ranks;                // for the pattern; default: count the files that exist
  std::optional<uint32_t> step;                 // Kineto: ProfilerStep#K; default the lowest-numbered one
  bool whole_trace = false;                     // Kineto: ignore ProfilerStep windows, read every event
  std::string comm_group_file;                  // ASTRA-sim comm_group.json: {"<pg>": [ranks...], ...}
  double compute_scale = 1.0;                   // multiplies every compute duration (re-costing)
  // Ranks of the world without a file (a trace of rank 0 of 2) get a copy of the program of the
  // nearest lower rank that has one: exact for data-parallel steps, wrong otherwise. Off: an error.
  bool fill_missing_ranks = false;
  // Sends do not hold back the ops after them (MSCCL / NCCL write into the peer's pre-posted FIFO,
  // NCCL_BUFFSIZE = 4 MiB by default): the successors of a send depend on the send's own
  // predecessors. Needed to replay MSCCL-style ETs whose per-rank chains would otherwise deadlock
  // under the Replayer's send/recv rendezvous. The send itself still meets its recv.
  bool eager_sends = true;
  // Chakra: keep CPU-side COMP nodes (is_cpu_op) as compute on the host stream; off: zero-time.
  bool keep_cpu_compute = true;
};

// What a reader learnt besides the Programs (for `weft trace info`).
struct TraceMetadata {
  TraceFormat format = TraceFormat::automatic;
  std::vector<std::string> files;
  std::string schema;            // Chakra GlobalMetadata schema / version, Kineto schemaVersion
  std::string backend;           // Kineto distributedInfo.backend ("nccl", "gloo")
  uint32_t world_size = 0;       // from the trace when it says so, else the number of files
  std::optional<uint32_t> step;  // Kineto: the ProfilerStep#N replayed
  Time step_start;               // Kineto: its window on the host clock (ps since the trace's t0)
  Time step_duration;
  uint64_t records = 0;                  // Chakra nodes / Kineto events read, all files
  uint64_t dropped_cpu_collectives = 0;  // Chakra COMM_COLL nodes with is_cpu_op and no comm_type
};

// Reads one trace (all rank files) into a Workload whose name is the file prefix.
Workload read_trace(const TraceSource& source, TraceMetadata* metadata = nullptr);

// The files a source names: `files`, or `pattern` expanded (throws when a rank file is missing).
std::vector<std::string> trace_files(const TraceSource& source);

}  // namespace weft
