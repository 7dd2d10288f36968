#include "collectives/ring.h"

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {
namespace {

constexpr uint32_t kRingSliceSteps = 2;       // SLICESTEPS for the same
constexpr uint32_t kBroadcastChunkSteps = 1;  // broadcast and reduce

uint64_t ceil_div_u64(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Bytes of channel c when `total` is split over `channels` (the first total % channels get one more).
uint64_t channel_share(uint64_t total, uint32_t channels, uint32_t c) {
  return total / channels + (c < total % channels ? 1 : 0);
}

Schedule empty_schedule(CollectiveOp op, uint32_t ranks, Bytes size, const RingOptions& o, uint32_t chunk_steps) {
  if (ranks == 0) throw ConfigError("ring: needs at least one rank");
  if (o.channels == 0) throw ConfigError("ring: needs at least one channel");
  Schedule s;
  s.name = fmt::format("{}/ring", to_string(op));
  s.ranks = ranks;
  s.size = size;
  s.max_in_flight = kNcclSteps / chunk_steps;
  return s;
}

uint64_t chunk_bytes(const RingOptions& o, uint32_t chunk_steps) {
  return o.chunk.count() > 0 ? o.chunk.count() : kSimpleStepBytes * chunk_steps;
}

// All-reduce (2(n-1) steps per loop), all-gather and reduce-scatter (n-1 steps per loop): in every
// loop rank r first sends a block it owns, then forwards what it received from r-1 in the step
// before. A loop covers ranks x chunk bytes of the channel; the last loop takes what is left.
// With the Simple protocol a block moves as `slices` equal transfers (rounded up: at most slices-1
// bytes of padding per step), slice s of step j waiting for slice s of step j-1 on the previous rank,
// so forwarding overlaps the rest of the block and the window counts slices.
Schedule ring_loops(CollectiveOp op, uint32_t ranks, Bytes size, const RingOptions& o, uint32_t steps_per_loop) {
  Schedule s = empty_schedule(op, ranks, size, o, kRingChunkSteps);
  if (ranks == 1) return s;
  const uint32_t slices = o.simple ? kRingChunkSteps / kRingSliceSteps : 1;
  s.max_in_flight = kNcclSteps / (o.simple ? kRingSliceSteps : 1);
  uint64_t loop_capacity = ranks * chunk_bytes(o, kRingChunkSteps);
  for (uint32_t c = 0; c < o.channels; ++c) {
    uint64_t bytes = channel_share(size.count(), o.channels, c);
    for (uint32_t r = 0; r < ranks; ++r) {
      Stream stream{r, c, {}};
      auto previous = static_cast<int32_t>(c * ranks + (r + ranks - 1) % ranks);
      for (uint64_t done = 0; done < bytes; done += loop_capacity) {
        // Blocks are rounded up to whole bytes: at most ranks-1 bytes of padding per loop.
        Bytes slice(ceil_div_u64(ceil_div_u64(std::min(loop_capacity, bytes - done), ranks), slices));
        append_run(stream, {slices, StepKind::send, (r + 1) % ranks, slice, Time(), -1, 0});
        append_run(stream, {(steps_per_loop - 1) * slices, StepKind::send, (r + 1) % ranks, slice, Time(), previous,
                            -static_cast<int32_t>(slices)});
      }
      s.streams.push_back(std::move(stream));
    }
  }
  return s;
}

}  // namespace

Schedule ring_all_reduce(uint32_t ranks, Bytes size, const RingOptions& o) {
  return ring_loops(CollectiveOp::all_reduce, ranks, size, o, 2 * (ranks - 1));
}

Schedule ring_all_gather(uint32_t ranks, Bytes size, const RingOptions& o) {
  return ring_loops(CollectiveOp::all_gather, ranks, size, o, ranks - 1);
}

Schedule ring_reduce_scatter(uint32_t ranks, Bytes size, const RingOptions& o) {
  return ring_loops(CollectiveOp::reduce_scatter, ranks, size, o, ranks - 1);
}

namespace {

// A pipelined chain that starts at rank `first` and visits every rank in ring order: the rank at
// position p sends chunk k to the next once chunk k arrived from position p-1. The last rank only
// receives.
Schedule ring_chain(CollectiveOp op, uint32_t ranks, Bytes size, const RingOptions& o, uint32_t first) {
  Schedule s = empty_schedule(op, ranks, size, o, kBroadcastChunkSteps);
  if (o.root >= ranks) {
    throw ConfigError(fmt::format("{}: root {} is not one of {} ranks", to_string(op), o.root, ranks));
  }
  if (ranks == 1) return s;
  uint64_t chunk = chunk_bytes(o, kBroadcastChunkSteps);
  for (uint32_t c = 0; c < o.channels; ++c) {
    uint64_t bytes = channel_share(size.count(), o.channels, c);
    uint64_t full_chunks = bytes / chunk;
    uint64_t tail = bytes % chunk;
    for (uint32_t position = 0; position + 1 < ranks; ++position) {
      uint32_t r = (first + position) % ranks;
      int32_t wait = position == 0 ? -1 : static_cast<int32_t>(c * (ranks - 1) + position - 1);
      Stream stream{r, c, {}};
      uint32_t next = (r + 1) % ranks;
      append_run(stream, {static_cast<uint32_t>(full_chunks), StepKind::send, next, Bytes(chunk), Time(), wait, 0});
      append_run(stream, {tail > 0 ? 1u : 0u, StepKind::send, next, Bytes(tail), Time(), wait, 0});
      s.streams.push_back(std::move(stream));
    }
  }
  return s;
}

}  // namespace

// A pipelined chain root -> root+1 -> ... -> root-1.
Schedule ring_broadcast(uint32_t ranks, Bytes size, const RingOptions& o) {
  return ring_chain(CollectiveOp::broadcast, ranks, size, o, o.root);
}

// NCCL's ring reduce: root+1 sends its data, every later rank receives, reduces and forwards, and the
// root (last in the chain) only receives; chunking as broadcast (CHUNKSTEPS 1, collectives.h).
Schedule ring_reduce(uint32_t ranks, Bytes size, const RingOptions& o) {
  return ring_chain(CollectiveOp::reduce, ranks, size, o, ranks == 0 ? 0 : (o.root + 1) % ranks);
}

Schedule ring_schedule(CollectiveOp op, uint32_t ranks, Bytes size, const RingOptions& o) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return ring_all_reduce(ranks, size, o);
    case CollectiveOp::all_gather:
      return ring_all_gather(ranks, size, o);
    case CollectiveOp::reduce_scatter:
      return ring_reduce_scatter(ranks, size, o);
    case CollectiveOp::broadcast:
      return ring_broadcast(ranks, size, o);
    case CollectiveOp::reduce:
      return ring_reduce(ranks, size, o);
    case CollectiveOp::all_to_all:
    case CollectiveOp::send_recv:
      throw ConfigError(fmt::format("ring: {} is not a ring algorithm; use the schedules of collectives/all_to_all.h",
                                    to_string(op)));
  }
  throw ConfigError("ring: unknown collective");
}

}  // namespace weft
