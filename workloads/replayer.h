// Runs a Workload on the Engine: every rank's streams issue their ops in order; a collective starts
// when every rank of its communicator has reached it (the n-th collective of a communicator on each
// rank is one instance) and runs through the collectives layer (NCCL's tuner, the algorithm's
// Schedule, the ScheduleExecutor) on the shared fabric; a send starts when its recv is posted too
// (NCCL's rendezvous) and moves as one transfer. Ops record when they were issued, when their
// transfer or kernel really started and when they ended.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/executor.h"
#include "collectives/plan.h"
#include "sim/fabric.h"
#include "sim/fabric_registry.h"
#include "workloads/program.h"

namespace weft {

struct OpTiming {
  Time issued;   // head of its stream with its dependencies done (a collective: this rank arrived)
  Time started;  // the work began: compute at once; communication when every party was there
  Time ended;
};

// One row per (communicator group, op, bytes, what ran): how often and for how long.
struct CollectiveStat {
  CommGroup group = CommGroup::other;
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes bytes;
  uint32_t ranks = 0;
  std::string algorithm;  // the plan's label ("NVLS/Simple x16", "p2p")
  uint64_t count = 0;
  Time total;             // sum over instances of start -> end
};

struct ReplayResult {
  Time step_time;                              // first op issued -> last op ended
  std::vector<std::vector<OpTiming>> timings;  // [rank][op]
  std::vector<CollectiveStat> collectives;
  FabricStats fabric;
  uint64_t events = 0;
};

class Replayer {
 public:
  // The workload, topology and spec must outlive the replayer.
  Replayer(Engine& engine, Fabric& fabric, const Topology& topology, const ClusterSpec& spec,
           const Workload& workload, Recorder& recorder, PlanOptions plan = {});
  ~Replayer();
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  void start();
  bool done() const { return ops_left_ == 0; }
  ReplayResult take_result();
  // When not done(): the first op still waiting for its partners, for the error message.
  std::string stuck() const;

 private:
  struct StreamState;
  struct RankState;
  struct Instance;
  struct PlanEntry;
  using P2pKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // (src, dst, tag)

  void try_start(uint32_t rank, uint8_t stream);
  void begin(uint32_t rank, uint32_t op);
  void finish(uint32_t rank, uint32_t op);
  void arrive(uint32_t rank, uint32_t op);
  void launch(uint32_t comm, uint64_t seq, Instance& instance);
  void post_p2p(uint32_t rank, uint32_t op);
  const PlanEntry& plan_for(uint32_t comm, CollectiveOp op, Bytes bytes);

  Engine& engine_;
  Fabric& fabric_;
  const Topology& topology_;
  const ClusterSpec& spec_;
  const Workload& workload_;
  Recorder& recorder_;
  PlanOptions plan_options_;

  std::vector<RankState> ranks_;
  std::vector<std::vector<NodeIndex>> comm_nodes_;       // per communicator: node of each comm rank
  std::vector<std::vector<int32_t>> comm_rank_of_;       // per communicator: global rank -> comm rank
  std::vector<std::map<uint64_t, Instance>> instances_;  // per communicator: pending, by sequence
  std::map<std::tuple<uint32_t, CollectiveOp, uint64_t>, std::unique_ptr<PlanEntry>> plans_;
  std::map<P2pKey, std::vector<uint32_t>> posted_sends_, posted_recvs_;  // op indices, FIFO
  std::map<std::tuple<CommGroup, CollectiveOp, uint64_t, std::string>, CollectiveStat> stats_;
  uint64_t ops_left_ = 0;
  Time start_time_;
  Time end_time_;
  std::vector<std::vector<OpTiming>> timings_;
};

struct ReplayOptions {
  std::string fabric = "flow";
  uint64_t seed = 1;
  FabricOptions fabric_options;
  PlanOptions plan;
  Recorder* recorder = nullptr;
};

// Builds an Engine, a Router and the fabric, validates and replays the workload to its end.
ReplayResult replay(const Workload& workload, const Topology& topology, const ClusterSpec& spec,
                    const ReplayOptions& options = {});

}  // namespace weft
