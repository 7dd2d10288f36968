// Ring algorithms as NCCL runs them on one ring per channel: pure functions returning a Schedule.
// Ranks form the ring in rank order (r sends to r+1); choosing the ring order through NVLink, PCIe
// and NICs is the tuner's job.
#pragma once

#include <cstdint>

#include "collectives/collective_op.h"
#include "collectives/schedule.h"

namespace weft {

struct RingOptions {
  uint32_t channels = 1;  // independent rings, each with 1/channels of the buffer
  // Bytes one rank sends per step of a loop (NCCL's chunkSize); 0 = the protocol default below.
  // A buffer larger than ranks x chunk per channel runs in several pipelined loops.
  Bytes chunk;
  uint32_t root = 0;  // broadcast and reduce only
  // The Simple protocol (NCCL's default without --system): all-reduce, all-gather and reduce-scatter
  // cut each block into CHUNKSTEPS / SLICESTEPS = 2 slices, and a rank forwards a slice as soon as it
  // arrived, with NCCL_STEPS / SLICESTEPS = 4 slices in flight. LL and LL128 (false) send a block as
  // one step (CHUNKSTEPS = SLICESTEPS = 1), 8 in flight. (src/device/primitives.h, collectives.h)
  bool simple = true;
};

// NCCL Simple protocol defaults (src/include/collectives.h, src/init.cc; see shared/reference/
// nccl_model.md §8): 4 MiB buffer / NCCL_STEPS 8 = 512 KiB per step; all-reduce, all-gather and
// reduce-scatter use CHUNKSTEPS = 4 and SLICESTEPS = 2 (2 MiB chunks sent as two 1 MiB slices, 4 slices
// in flight), broadcast 1 (512 KiB, 8 in flight).
inline constexpr uint32_t kNcclSteps = 8;
inline constexpr uint64_t kSimpleStepBytes = 512 * 1024;
inline constexpr uint32_t kRingChunkSteps = 4;  // CHUNKSTEPS for all-reduce, all-gather, reduce-scatter

// `size` follows nccl-tests: the whole buffer for all-reduce, broadcast and reduce, the gathered output
// for all-gather, the scattered input for reduce-scatter. All-to-all and send/recv are not ring
// algorithms (collectives/all_to_all.h): ConfigError.
Schedule ring_schedule(CollectiveOp op, uint32_t ranks, Bytes size, const RingOptions& options = {});

Schedule ring_all_reduce(uint32_t ranks, Bytes size, const RingOptions& options = {});
Schedule ring_all_gather(uint32_t ranks, Bytes size, const RingOptions& options = {});
Schedule ring_reduce_scatter(uint32_t ranks, Bytes size, const RingOptions& options = {});
Schedule ring_broadcast(uint32_t ranks, Bytes size, const RingOptions& options = {});
// Broadcast reversed: a pipelined chain root+1 -> root+2 -> ... -> root, each rank adding its data.
Schedule ring_reduce(uint32_t ranks, Bytes size, const RingOptions& options = {});

}  // namespace weft
