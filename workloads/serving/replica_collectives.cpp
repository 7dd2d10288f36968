#include "workloads/serving/replica_collectives.h"

namespace weft {

ReplicaCollectives::ReplicaCollectives(const Topology& topology, const ClusterSpec& spec, std::vector<uint32_t> gpus,
                                       IsolatedTimer& timer)
    : topology_(topology), spec_(spec), gpus_(std::move(gpus)), timer_(timer) {
  for (uint32_t g : gpus_) nodes_.push_back(topology.gpus()[g]);
}

Time ReplicaCollectives::time(CollectiveOp op, Bytes bytes) {
  const auto key = std::make_pair(op, bytes.count());
  if (const auto it = times_.find(key); it != times_.end()) return it->second;
  plans_.push_back(std::make_unique<CollectivePlan>(plan_collective(op, bytes, topology_, spec_, gpus_)));
  const Time t = timer_.collective(*plans_.back(), op, bytes, nodes_)->time;
  // The timer keeps the time under the plan's isolation key; the plan itself is not needed again.
  plans_.back()->schedule = {};
  times_.emplace(key, t);
  return t;
}

}  // namespace weft
