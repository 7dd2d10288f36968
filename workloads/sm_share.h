// Compute kernels share a GPU's streaming multiprocessors with the NCCL kernels running beside them.
// NCCL launches one thread block per channel (src/enqueue.cc, ncclLaunchKernel: grid = nChannels
// blocks), and each block stays resident on its SM for the whole operation, waiting for its peers
// included. A compute kernel overlapping them runs on the SMs left: at (sms - held) / sms of the
// speed it has on the whole GPU. [assumption: throughput proportional to the SMs a kernel gets; the
// HBM bandwidth NCCL's copies take from memory-bound kernels is not modelled]
//
// SmShare runs compute ops as amounts of whole-GPU work and re-times those in flight whenever a
// rank's held SMs change.
#pragma once

#include <vector>

#include "sim/core/engine.h"

namespace weft {

class SmShare {
 public:
  // `sms` per GPU; 0 turns sharing off (every op runs at full speed, as its duration says).
  SmShare(Engine& engine, uint32_t ranks, uint32_t sms);

  // Starts `work` (its duration on the whole GPU) on `rank`; `done` runs when it has finished.
  void start(uint32_t rank, Time work, EventCallback done);
  // An NCCL kernel of `blocks` channels starts or ends on `rank`.
  void hold(uint32_t rank, uint32_t blocks);
  void release(uint32_t rank, uint32_t blocks);

  uint32_t held(uint32_t rank) const { return ranks_[rank].held; }

 private:
  struct Running {
    uint64_t key = 0;
    EventId event{};
    double work_left_ps = 0;  // whole-GPU picoseconds still to run
    Time since;               // when work_left_ps was last brought up to date
    EventCallback done;
  };
  struct RankState {
    uint32_t held = 0;
    std::vector<Running> running;
  };

  // Fraction of full speed compute runs at on `rank` now, in (0, 1].
  double rate(uint32_t rank) const;
  void schedule(uint32_t rank, size_t i);
  void retime(uint32_t rank, double old_rate);
  void complete(uint32_t rank, uint64_t key);

  Engine& engine_;
  uint32_t sms_;
  std::vector<RankState> ranks_;
  uint64_t next_key_ = 0;
};

}  // namespace weft
