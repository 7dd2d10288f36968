// Shortest-path routing (hop count) with the equal-cost path set computed once per (src, dst) and
// cached; a transfer picks one path of the set by hashing its flow entropy with the scenario seed.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "topologies/topology.h"

namespace weft {

struct Path {
  std::vector<LinkId> links;  // in order from src to dst
  Time latency;               // sum of the links' latencies
  Bandwidth bottleneck;       // smallest link rate on the path
};

using PathSet = std::vector<Path>;

class Router {
 public:
  // At most `max_paths` equal-cost paths are kept per pair (enumerated in link-id order).
  Router(const Topology& topology, uint64_t seed, uint32_t max_paths = 16);

  // All shortest paths from src to dst; throws ModelError when dst cannot be reached.
  const PathSet& paths(NodeIndex src, NodeIndex dst);
  // The path an ECMP switch would give a flow with this entropy (e.g. its queue pair number).
  const Path& route(NodeIndex src, NodeIndex dst, uint64_t entropy);

  const Topology& topology() const { return topology_; }

 private:
  PathSet compute(NodeIndex src, NodeIndex dst);
  void distances_to(NodeIndex dst, NodeIndex stop_at);
  void enumerate(NodeIndex at, NodeIndex dst, std::vector<LinkId>& prefix, PathSet& out);
  Path make_path(std::vector<LinkId> links) const;

  const Topology& topology_;
  uint64_t seed_;
  uint32_t max_paths_;
  std::unordered_map<uint64_t, PathSet> cache_;
  // BFS scratch, reused between pairs: distance to dst is valid where stamp == epoch.
  std::vector<uint32_t> distance_;
  std::vector<uint32_t> stamp_;
  std::vector<NodeIndex> queue_;
  uint32_t epoch_ = 0;
};

}  // namespace weft
