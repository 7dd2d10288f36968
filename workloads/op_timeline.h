// When every op of a replayed workload was issued, started and ended, gathered from the Recorder's
// op hook (Hook::ops): what the step breakdown, the Chrome trace, the executor's comparison and the
// Python results read. The replayer keeps only the ops in flight; this sink keeps them all.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/recorder.h"
#include "workloads/program.h"

namespace weft {

struct OpTiming {
  Time issued;   // head of its stream with its dependencies done (a collective: this rank arrived)
  Time started;  // the work began: compute at once; communication when every party was there
  Time ended;
};

class OpTimeline : public RecorderSink {
 public:
  OpTimeline() = default;
  // One row per rank of `workload`, one entry per op of its program (zero until the op ends).
  explicit OpTimeline(const Workload& workload);

  uint8_t hooks() const override { return static_cast<uint8_t>(Hook::ops); }
  void on_op_done(const OpRecord& r) override { timings_[r.rank][r.op] = {r.issued, r.started, r.ended}; }

  const std::vector<std::vector<OpTiming>>& timings() const { return timings_; }  // [rank][op]

 private:
  std::vector<std::vector<OpTiming>> timings_;
};

}  // namespace weft
