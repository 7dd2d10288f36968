// PyTorch profiler (Kineto) Chrome traces, one file per rank, plain or gzip
// (../shared/reference/workloads.md §2.2), turned into the TraceNodes of one rank.
//
// What is inferred, and how:
//  - Window: the ProfilerStep#K annotation (default: the lowest-numbered step; no step annotation:
//    the whole trace). A GPU event belongs to it when its launch (the cuda_runtime event with the
//    same correlation id) lies in the window on the host clock, else when it starts in the window.
//  - Order: GPU events in host launch order (the order PyTorch issued them), ties by GPU start.
//  - Streams: the GPU stream with the most non-NCCL busy time is weft stream 0; streams running
//    NCCL kernels get 1.. in order of first use; other streams (copies) follow.
//  - Collectives: NCCL kernels (ncclKernel_* and ncclDevKernel_*). Type and size from the kernel's
//    NCCL args (`Collective name`, `In/Out msg nelems` x dtype size); without them, from the
//    record_param_comms / nccl:* host op whose time span holds the kernel's launch on the same
//    thread (args first, else the first input's `Input Dims` x `Input type`); the type otherwise
//    from the kernel name (SendRecv under nccl:all_to_all is an all-to-all). Communicator from
//    `Process Group Ranks`, else distributedInfo.pg_config by `Process Group Name`, else all ranks.
//  - Gloo (backend gloo, no NCCL kernels): record_param_comms ops with NCCL args are collectives on
//    the host timeline; the host time between them becomes compute.
//  - Compute: consecutive non-NCCL kernels on a stream are merged into one compute op, cut at every
//    collective launch; its duration is the span from the first kernel's start to the last one's end
//    (busy time plus the gaps between them, which are host launch overhead that recurs elsewhere);
//    the gap before a merged op is not kept.
//  - Dependencies: stream order; a collective waits for the last compute op launched before it on
//    the compute stream (PyTorch makes the NCCL stream wait on the current stream); a compute kernel
//    that started within 50 us after a collective ended, while its stream had been idle since
//    before that collective ended, waited for it (DDP's wait before the optimizer) and depends on it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/traces/trace_graph.h"

namespace weft {

struct KinetoRank {
  RankTrace trace;
  std::optional<uint32_t> rank;  // distributedInfo.rank
  uint32_t world_size = 0;       // distributedInfo.world_size, 0 when absent
  std::string backend;
  std::string schema;
  std::map<std::string, std::vector<uint32_t>> groups;  // process-group key -> ranks
  std::optional<uint32_t> step;
  Time step_start, step_duration;  // ps on the trace clock
  uint64_t events = 0;
  std::map<CollectiveOp, uint64_t> nccl_kernels;  // in the window, by type
};

struct KinetoOptions {
  std::optional<uint32_t> step;
  bool whole_trace = false;  // ignore ProfilerStep windows
};

KinetoRank read_kineto_file(const std::string& path, const KinetoOptions& options = {});

}  // namespace weft
