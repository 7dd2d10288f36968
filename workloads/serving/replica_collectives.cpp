#include "workloads/serving/replica_collectives.h"

#include <algorithm>
#include <bit>

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

Time ReplicaCollectives::exchange_at(const ModelConfig& model, EpKernel kernel, EpPhase phase, uint32_t tokens) {
  const auto key = std::make_tuple(kernel, phase, tokens);
  if (const auto it = exchanges_.find(key); it != exchanges_.end()) return it->second;
  const auto ranks = static_cast<uint32_t>(gpus_.size());
  const EpRouting routing{.tokens = tokens, .hidden = model.hidden, .experts = model.experts, .topk = model.top_k};
  EpExchange x = ep_exchange(kernel, phase, routing, ranks, std::min(ranks, static_cast<uint32_t>(spec_.node.gpus)));
  plans_.push_back(std::make_unique<CollectivePlan>());
  plans_.back()->label = "DeepEP";
  plans_.back()->schedule = std::move(x.schedule);
  const Time t = timer_.collective(*plans_.back(), CollectiveOp::all_to_all, Bytes(tokens), nodes_)->time;
  plans_.back()->schedule = {};
  exchanges_.emplace(key, t);
  return t;
}

Time ReplicaCollectives::exchange(const ModelConfig& model, EpKernel kernel, EpPhase phase, uint32_t tokens) {
  if (tokens == 0) return Time();
  const uint32_t low = std::bit_floor(tokens);
  const Time at_low = exchange_at(model, kernel, phase, low);
  if (low == tokens) return at_low;
  const Time at_high = exchange_at(model, kernel, phase, 2 * low);
  return at_low + Time::ps((at_high - at_low).ps() * (tokens - low) / low);
}

}  // namespace weft
