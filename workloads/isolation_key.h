// The key an isolated collective's time is kept under (IsolatedTimeCache). An isolated run is a fresh
// engine and fabric with one ScheduleExecutor on it, so its time is a function of the schedule and
// of what the fabric makes of the ranks' GPUs. For most fabrics that means the GPUs themselves. A
// fabric that sees only the paths it is handed (Fabric::path_determined: flow, analytic) sees, of
// the GPUs, only the links of the paths the router gives each (sender, receiver, entropy) the
// executor asks for, with their rates and latencies; never a link's id (the max-min solver orders a
// component's links by its own search). So the key lists those paths with every link renamed by its
// first appearance: two
// communicators that are images of each other under the topology's symmetry (the 64 tensor-parallel
// groups of a 256-GPU cluster, one per host) get the same key and one simulation between them,
// while ECMP collisions that differ, a slower link or another GPU order give different keys.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collectives/schedule.h"
#include "topologies/routing.h"

namespace weft {

enum class IsolationKeying : uint8_t {
  by_nodes,  // the schedule and the GPUs it runs on
  by_paths,  // the schedule and its paths up to a renaming of links
};

// The key (bytes to compare, not to read) of the run whose executor has entropy base
// `entropy_base` (ScheduleExecutor::set_entropy_base: it picks each stream's ECMP paths). by_paths
// falls back to by_nodes for a schedule with a group step that crosses hosts (SHARP: the
// aggregation tree's legs are hashed on the way).
std::string isolation_key(const Schedule& schedule, std::span<const NodeIndex> rank_nodes, Router& router,
                          IsolationKeying keying, uint64_t entropy_base = 0);

// Every link the same run's transfers cross (repeats included), or nothing when a group step crosses
// hosts (its legs are the aggregation tree's, found on the way).
std::optional<std::vector<LinkId>> schedule_links(const Schedule& schedule, std::span<const NodeIndex> rank_nodes,
                                                  Router& router, uint64_t entropy_base);

}  // namespace weft
