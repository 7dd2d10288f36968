// Replaying a data-parallel trace captured on N ranks as M ranks (the "must I trace 10,000 GPUs?"
// request, ../shared/reference/workloads.md §5 item 4).
//
// Rank r of the result runs a copy of rank r mod N; every communicator must span all N ranks and
// becomes all M ranks. Exact under weak scaling (per-rank batch fixed): compute durations stay;
// all-reduce and broadcast sizes stay (the whole gradient / buffer). All-gather and reduce-scatter
// keep nccl-tests' total size (the full parameter or gradient tensor, as in FSDP / ZeRO), so each
// rank's shard becomes total / M: exact for sharded data parallelism. Not modelled: all-to-all
// sizes (kept, but an embedding exchange really changes with M), bucket re-layout, and any
// compute that depends on M (gradient averaging kernels, optimizer shards).
#pragma once

#include <cstdint>

#include "workloads/program.h"

namespace weft {

// ConfigError when the workload has sends/recvs or a communicator smaller than the world (tensor,
// pipeline or expert parallel: those cannot be resized by replication), or when ranks is 0.
Workload scale_data_parallel(const Workload& workload, uint32_t ranks);

}  // namespace weft
