// A Schedule is a DAG of steps, stored compactly: each (rank, channel) owns a Stream whose steps run
// in program order, and a step may also wait for a step of another stream (the data it forwards).
// Streams are run-length encoded (a ring step repeats 2(n-1) times with the same shape), so a
// schedule's memory grows with ranks x channels, not with the number of transfers.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sim/core/units.h"

namespace weft {

enum class StepKind : uint8_t {
  send,   // move `bytes` from the stream's rank to rank `peer`; done when the last byte arrived
  local,  // busy the stream for `duration` (a reduction or copy on the GPU)
  group,  // move `bytes` from every source to every destination of Schedule::groups[peer] through
          // the reducing switches (NVLS / SHARP: in-switch reduction, multicast)
};

// The ranks of a group step: several sources reduce in the switch, several destinations receive
// one multicast copy.
struct RankGroup {
  std::vector<uint32_t> srcs;
  std::vector<uint32_t> dsts;
};

// `count` consecutive, identical steps. Step k of the stream (absolute index) additionally waits for
// step k + wait_offset of stream `wait_stream` to be done, when that index is not negative, and likewise
// for the second pair: a join, such as a tree node that forwards chunk c once both children's chunk c
// arrived (more inputs chain through zero-duration local steps).
struct StepRun {
  uint32_t count = 1;
  StepKind kind = StepKind::send;
  uint32_t peer = 0;
  Bytes bytes;
  Time duration;
  int32_t wait_stream = -1;  // -1: no cross-stream dependency
  int32_t wait_offset = 0;
  int32_t also_wait_stream = -1;  // -1: no second dependency
  int32_t also_wait_offset = 0;
};

struct Stream {
  uint32_t rank = 0;
  uint32_t channel = 0;
  std::vector<StepRun> runs;
};

struct Schedule {
  std::string name;  // e.g. "all_reduce/ring"
  uint32_t ranks = 0;
  Bytes size;  // nccl-tests' size: the whole buffer
  // Steps a stream may have issued but not finished (NCCL's FIFO slots: NCCL_STEPS / chunkSteps).
  // Step k starts only when step k - max_in_flight is done. 1 = strict lockstep.
  uint32_t max_in_flight = 1;
  // The most one stream (an NCCL channel: one thread block) can copy, bit/s; 0 = only the links
  // limit it. Every send of the stream carries it as Transfer::max_rate.
  Bandwidth channel_rate;
  // The latency NCCL's model charges beyond the wire (nccl_model.md §2: kernel launch, protocol
  // synchronisation), once before the first step.
  Time start_latency;
  std::vector<Stream> streams;
  std::vector<RankGroup> groups;  // named by group steps
};

// Appends a run, merging it into the previous one when the shape is the same.
void append_run(Stream& stream, const StepRun& run);

uint64_t step_count(const Stream& stream);
uint64_t transfer_count(const Schedule& schedule);
// Bytes each rank sends over the whole schedule, by rank.
std::vector<uint64_t> bytes_sent_by_rank(const Schedule& schedule);

// Renames every rank r (streams, send peers, group members) to rank_of[r].
void relabel(Schedule& schedule, std::span<const uint32_t> rank_of);

// Throws ModelError when a peer or wait target is out of range, or when the dependencies form a
// cycle (checked by a dry run of the DAG without an engine).
void validate(const Schedule& schedule);

// Streams that run alike, e.g. the channels of an NVLS or NVLSTree schedule: the same rank and the
// same runs (kind, peer, bytes, duration, count, wait offsets), each run waiting on streams of one
// class, and `alike(a, b)` (an equivalence): the fabric moves stream a's transfers as b's, each in
// its own queue pair. By induction over the events, the members of a class then issue and finish
// every step at the same instants (a step starts when the stream's own window and its wait targets
// allow: the same for every member), so an executor may run one member for all (ScheduleExecutor).
struct StreamClasses {
  std::vector<uint32_t> class_of;  // by stream
  std::vector<uint32_t> lead;      // by class: its first stream
  std::vector<uint32_t> size;      // by class: how many streams
};
StreamClasses stream_classes(const Schedule& schedule, const std::function<bool(uint32_t a, uint32_t b)>& alike);

}  // namespace weft
