// An nccl-tests-style sweep: one collective over sizes min, min*factor, ... max, reported with the
// same columns and the same meaning (size = whole buffer in bytes, GB/s = 1e9 bytes/s).
#pragma once

#include <string>
#include <vector>

#include "collectives/collective_op.h"
#include "collectives/plan.h"
#include "collectives/ring.h"
#include "collectives/simulate.h"
#include "topologies/topology.h"

namespace weft {

struct SweepSpec {
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes min_bytes{8};
  Bytes max_bytes{1 << 20};
  uint64_t factor = 2;
  RingOptions ring;
  SimulationSetup simulation;  // the fabric each size runs on, the seed, the router's options
  // A catalogue system: each size runs what NCCL's tuner picks (plan_collective) instead of `ring`.
  const ClusterSpec* system = nullptr;
  PlanOptions plan;
  // Keep the fabric's per-link statistics of the largest size (its row's `links`), e.g. to name the
  // bottleneck link; the other rows keep none.
  bool link_stats = false;
  // nccl-tests -g: one host thread launches on this many GPUs; each row is charged the host's time
  // to issue it when that is longer (collectives/host_issue.h).
  uint32_t gpus_per_thread = 1;
};

struct SweepRow {
  Bytes size;      // as nccl-tests prints it (rounded down to whole elements on every rank)
  uint64_t count;  // elements: per buffer (all-reduce, broadcast) or per rank (all-gather, reduce-scatter)
  Time time;
  double algbw_GBps;  // size / time
  double busbw_GBps;  // algbw x bus_bandwidth_factor
  uint64_t transfers;
  std::string algorithm = "Ring/Simple";  // what ran: NCCL's algorithm/protocol and channels
  std::string note;                       // when weft simulates something else than NCCL's pick
  std::vector<LinkStats> links;           // per directed link, when SimulationOptions::link_stats
};

// nccl-tests' default data type; sizes are whole numbers of it.
inline constexpr const char* kElementType = "float";
inline constexpr uint64_t kElementBytes = 4;

// Throws ConfigError for an empty range or a factor below 2.
std::vector<SweepRow> sweep_collective(const SweepSpec& spec, const Topology& topology);

// One row with NCCL's choice for a catalogue system (the size rounded as nccl-tests does).
SweepRow measure_planned(CollectiveOp op, Bytes size, const Topology& topology, const ClusterSpec& system,
                         const PlanOptions& plan, const SimulationOptions& options);

// One row: simulate `op` of `size` bytes on all GPUs of `topology`.
SweepRow measure_collective(CollectiveOp op, Bytes size, const RingOptions& ring, const Topology& topology,
                            const SimulationOptions& options);

}  // namespace weft
