// The collectives of one serving replica's tensor-parallel group: each distinct (op, size) is planned
// as NCCL would run it on those GPUs (collectives/plan.h: algorithm, protocol, channels) and simulated
// once alone on the scenario's fabric (IsolatedTimer, whose cache lets replicas that are images of
// one another under the topology's symmetry share a run). Decode's all-reduces are small and
// latency-bound: this is where PCIe, NVLink and the network differ.
#pragma once

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "collectives/plan.h"
#include "workloads/collective_timer.h"

namespace weft {

class ReplicaCollectives {
 public:
  // `gpus`: indices into topology.gpus(); `timer` outlives this.
  ReplicaCollectives(const Topology& topology, const ClusterSpec& spec, std::vector<uint32_t> gpus,
                     IsolatedTimer& timer);
  Time time(CollectiveOp op, Bytes bytes);
  size_t distinct() const { return times_.size(); }

 private:
  const Topology& topology_;
  const ClusterSpec& spec_;
  std::vector<uint32_t> gpus_;
  std::vector<NodeIndex> nodes_;
  IsolatedTimer& timer_;
  std::vector<std::unique_ptr<CollectivePlan>> plans_;  // the timer memoises by plan address
  std::map<std::pair<CollectiveOp, uint64_t>, Time> times_;
};

}  // namespace weft
