// From "this collective on this system" to a Schedule, the way NCCL would run it: NCCL's tuner
// (tuner.h) picks the algorithm, protocol and channels; the algorithm's schedule function builds
// the steps; the protocol sets the chunk, the wire bytes (LL: 8 B of flags per 8 B of data; LL128:
// 8 B per 120 B) and the latency NCCL's model charges for the operation; each channel is limited
// to the per-channel speed NCCL's topology search gives it.
#pragma once

#include <span>
#include <string>

#include "collectives/schedule.h"
#include "collectives/tree.h"
#include "collectives/tuner.h"
#include "topologies/clusters.h"
#include "topologies/topology.h"

namespace weft {

struct PlanOptions {
  TunerOverrides overrides;  // --algo, --proto, --channels
  std::string version;       // NCCL version of the tuner's constants; "" = newest documented
};

struct CollectivePlan {
  Choice choice;                          // what NCCL's tuner picks (or the overrides)
  Algorithm simulated = Algorithm::ring;  // what the schedule runs: the choice, unless not modelled yet
  Choice run;                             // the algorithm, protocol and channels the schedule runs
  std::string note;                       // why `simulated` differs from the choice, when it does
  std::string label;                      // what runs, for reports: "NVLS/Simple x16", "pairwise p2p"
  TunerInput input;                       // what the tuner was told about the system
  Schedule schedule;
};

// Throws ConfigError for an override the system cannot run (from the tuner) or an op with no
// algorithm here.
CollectivePlan plan_collective(CollectiveOp op, Bytes size, const Topology& topology, const ClusterSpec& spec,
                               const PlanOptions& options = {});
// The same on a communicator: rank r of the schedule runs on GPU gpus[r] (an index into
// topology.gpus(); see communicator.h for how NCCL would describe it).
CollectivePlan plan_collective(CollectiveOp op, Bytes size, const Topology& topology, const ClusterSpec& spec,
                               std::span<const uint32_t> gpus, const PlanOptions& options = {});

// Where a plan puts its ranks (the reduction order reads them, collectives/reduction_order.h):
// rank_at[p] = the communicator rank at position p of channel c. Ring and tree plans follow each
// channel's ring order (its ring is position 0 -> 1 -> ... -> n-1 -> 0; a tree plan's trees are
// tree_links over these positions); the others take node-major positions. `gpus` as given to
// plan_collective.
std::vector<uint32_t> channel_ranks(const CollectivePlan& plan, const Topology& topology,
                                    std::span<const uint32_t> gpus, uint32_t channel);
// Bytes a rank sends per step of a ring loop with protocol p (NCCL's chunkSize): what a ring plan's
// chunks are cut to before the last loop shrinks them.
uint64_t ring_chunk_bytes(Protocol p);
// The options a tree plan built its schedule with (channels, chunk, ranks per node).
TreeOptions tree_options(const CollectivePlan& plan);

}  // namespace weft
