// The collectives of one serving replica's tensor-parallel group: each distinct (op, size) is planned
// as NCCL would run it on those GPUs (collectives/plan.h: algorithm, protocol, channels) and simulated
// once alone on the scenario's fabric (IsolatedTimer, whose cache lets replicas that are images of
// one another under the topology's symmetry share a run). Decode's all-reduces are small and
// latency-bound: this is where PCIe, NVLink and the network differ. Under expert parallelism the same
// holds for DeepEP's dispatch and combine over the replica's GPUs (collectives/ep_exchange.h).
#pragma once

#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "collectives/ep_exchange.h"
#include "collectives/plan.h"
#include "workloads/collective_timer.h"
#include "workloads/model.h"

namespace weft {

class ReplicaCollectives {
 public:
  // `gpus`: indices into topology.gpus(); `timer` outlives this.
  ReplicaCollectives(const Topology& topology, const ClusterSpec& spec, std::vector<uint32_t> gpus,
                     IsolatedTimer& timer);
  Time time(CollectiveOp op, Bytes bytes);
  // One DeepEP dispatch or combine of `tokens` per GPU of `model` over the GPUs (one rank each,
  // node-major). Simulated at powers of two of the tokens, linear between them (the bytes are linear
  // in the tokens; a bucket per batch size would run thousands of exchanges).
  Time exchange(const ModelConfig& model, EpKernel kernel, EpPhase phase, uint32_t tokens);
  size_t distinct() const { return times_.size() + exchanges_.size(); }

 private:
  const Topology& topology_;
  const ClusterSpec& spec_;
  std::vector<uint32_t> gpus_;
  std::vector<NodeIndex> nodes_;
  IsolatedTimer& timer_;
  std::vector<std::unique_ptr<CollectivePlan>> plans_;  // the timer memoises by plan address
  std::map<std::pair<CollectiveOp, uint64_t>, Time> times_;
  std::map<std::tuple<EpKernel, EpPhase, uint32_t>, Time> exchanges_;  // at powers of two

  Time exchange_at(const ModelConfig& model, EpKernel kernel, EpPhase phase, uint32_t tokens);
};

}  // namespace weft
