// Runs a Workload on the Engine: every rank's streams issue their ops in order; a collective starts
// when every rank of its communicator has reached it (the n-th collective of a communicator on each
// rank is one instance) and runs through the collectives layer (NCCL's tuner, the algorithm's
// Schedule, the ScheduleExecutor) on the shared fabric; a send starts when its recv is posted too
// (NCCL's rendezvous) and moves as one transfer. Each op, when it ends, is reported to the Recorder
// (Hook::ops) with when it was issued, when its transfer or kernel really started and when it ended,
// and each collective, when its last member's op ends (Hook::comms).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "collectives/executor.h"
#include "collectives/network_calibration.h"
#include "collectives/plan.h"
#include "sim/fabric.h"
#include "sim/fabric_registry.h"
#include "sim/simulation.h"
#include "workloads/collective_tally.h"
#include "workloads/collective_timer.h"
#include "workloads/op_timeline.h"
#include "workloads/program.h"
#include "workloads/sm_share.h"

namespace weft {

// What replay() gathers from the Recorder: each op (Hook::ops), each kind of collective
// (Hook::comms) and the run's counters (Hook::runs).
struct ReplayResult {
  Time step_time;  // first op issued -> last op ended
  OpTimeline ops;
  std::vector<CollectiveStat> collectives;
  FabricStats fabric;
  uint64_t events = 0;
};

class Replayer {
 public:
  // The workload, topology, spec and timer must outlive the replayer. The timer decides how each
  // collective and send/recv takes its time (collective_timer.h).
  Replayer(Engine& engine, Fabric& fabric, const Topology& topology, const ClusterSpec& spec, const Workload& workload,
           Recorder& recorder, CollectiveTimer& timer, PlanOptions plan = {});
  ~Replayer();
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  void start();
  bool done() const { return ops_left_ == 0; }
  Time step_time() const { return end_time_ - start_time_; }  // first op issued -> last op ended
  // When not done(): the first op still waiting for its partners, for the error message.
  std::string stuck() const;

  // A collective the replay will launch, planned before it starts (isolated_prefetch.h).
  struct Upcoming {
    const CollectivePlan* plan;  // the replayer's own: what launch() will time or run
    std::span<const NodeIndex> nodes;
    uint32_t comm = 0;
  };
  // Each distinct (communicator, op, size) the replay will launch. As arrive() groups them: the
  // k-th collective of a communicator on each member rank is one instance, at the members' largest
  // size; this reads k in program order, the order each rank issues one communicator's collectives
  // in (a stream's program order) unless a rank spreads them over streams, when it is a guess.
  std::vector<Upcoming> upcoming_collectives();

  // The flow entropy of a communicator's connections (its executors' entropy base: each
  // communicator its own queue pairs and ECMP paths) and of the point-to-point connection src->dst.
  static uint64_t comm_entropy(uint32_t comm) { return (uint64_t{comm} + 1) << 32; }
  static uint64_t p2p_entropy(uint32_t src, uint32_t dst) { return (uint64_t{1} << 63) | (uint64_t{src} << 31) | dst; }

 private:
  struct StreamState;
  struct RankState;
  struct Instance;
  struct PlanEntry;
  using P2pKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // (src, dst, tag)
  struct P2pKeyHash {
    size_t operator()(const P2pKey& k) const {
      const uint64_t pair = (uint64_t{std::get<0>(k)} << 32) | std::get<1>(k);
      return std::hash<uint64_t>{}(pair * 0x9E3779B97F4A7C15ULL ^ std::get<2>(k));
    }
  };

  StreamState& stream_of(uint32_t rank, uint32_t op);
  void try_start(uint32_t rank, uint8_t stream);
  void begin(uint32_t rank, uint32_t op);
  void finish(uint32_t rank, uint32_t op);
  void arrive(uint32_t rank, uint32_t op);
  void launch(uint32_t comm, uint64_t seq, Instance& instance);
  void post_p2p(uint32_t rank, uint32_t op);
  void start_copies(uint32_t src, uint32_t dst, Transfer t);
  PlanEntry& plan_for(uint32_t comm, CollectiveOp op, Bytes bytes);
  uint32_t nccl_blocks(const Op& op);

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
  std::vector<uint32_t> arrivals_needed_;                // per communicator: members with programs
  std::vector<std::map<uint64_t, Instance>> instances_;  // per communicator: pending, by sequence
  std::map<std::tuple<uint32_t, CollectiveOp, uint64_t>, std::unique_ptr<PlanEntry>> plans_;
  std::unordered_map<P2pKey, std::vector<uint32_t>, P2pKeyHash> posted_sends_, posted_recvs_;  // op indices, FIFO
  CollectiveTimer& timer_;
  SmShare sm_share_;
  uint64_t ops_left_ = 0;
  Time start_time_;
  Time end_time_;
};

// The run's setup (fabric, seed, fabric and router options), and how to replay on it.
struct ReplayOptions : SimulationSetup {
  SimulationSetup& simulation() { return *this; }

  PlanOptions plan;
  CollectiveTiming collectives = CollectiveTiming::shared;
  // Observers of the shared fabric (e.g. a LinkTimeline): they must outlive the call. With isolated
  // collective timing only point-to-point traffic is on the shared fabric to see.
  std::vector<RecorderSink*> sinks;
  // Called every `poll_every` engine events with the simulated time and the events so far (progress,
  // Ctrl-C); returning false stops the replay, which then throws RunStopped. Unset: no cost.
  std::function<bool(Time simulated, uint64_t events)> poll;
  // Events between polls: a poll costs ~30 ns (a clock read), a flow-level event 0.1-20 us, so this
  // is free and keeps Ctrl-C under ~20 ms even at 50 k events/s.
  uint64_t poll_every = 1024;
  // Measured latency/bandwidth fits (PROFILE.network.yaml from weft calibrate); see Replayer.
  std::shared_ptr<const NetworkCalibration> calibration;
  // Isolated collective times kept across replays (the plan search's candidates): every replay
  // sharing it must run on the same topology, fabric model, setup and plan options.
  std::shared_ptr<IsolatedTimeCache> isolated_cache;
  // Threads that simulate the distinct isolated collectives before the replay starts
  // (isolated_prefetch.h; 0: one per core). 1: each when the replay reaches it, on this thread
  // (callers that already replay on several threads, as the plan search does). Same times either way.
  unsigned isolated_threads = 0;
  // With shared timing, the collectives of a communicator that has its links to itself take the
  // time of one run alone (own_links.h: exact, the same to the picosecond; much faster for steps of
  // many tensor-parallel collectives). false: every collective on the fabric (the tests that prove it).
  bool alone_on_own_links = true;
};

// Validates and replays the workload to its end in a Simulation of `topology`.
ReplayResult replay(const Workload& workload, const Topology& topology, const ClusterSpec& spec,
                    const ReplayOptions& options = {});

}  // namespace weft
