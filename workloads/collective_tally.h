// How often each kind of collective ran in a replay and for how long, gathered from the Recorder's
// comm hook (Hook::comms): the rows of the step report's collective table and of the Python results.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/collective_op.h"
#include "sim/core/recorder.h"
#include "workloads/program.h"

namespace weft {

// One row per (communicator group, op, bytes, what ran): how often and for how long.
struct CollectiveStat {
  CommGroup group = CommGroup::other;
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes bytes;
  uint32_t ranks = 0;
  std::string algorithm;  // the plan's label ("NVLS/Simple x16", "p2p"), " calibrated" when a fit timed it
  uint64_t count = 0;
  Time total;  // sum over instances of start -> end
};

class CollectiveTally : public RecorderSink {
 public:
  uint8_t hooks() const override { return static_cast<uint8_t>(Hook::comms); }
  void on_comm_done(const CommRecord& r) override;

  // By group, then op (in their enums' order), bytes and algorithm.
  std::vector<CollectiveStat> stats() const;

 private:
  // The group and op are the records' views of to_string()'s static names.
  using Key = std::tuple<std::string_view, std::string_view, uint64_t, std::string>;
  std::map<Key, CollectiveStat> rows_;
};

}  // namespace weft
