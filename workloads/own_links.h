// Collectives that have their links to themselves, timed alone on the shared fabric (issue 19: a
// shared-fabric step costs what its distinct work costs). On a fabric that sees only the paths it
// is handed (flow, analytic: Fabric::path_determined), a flow's rate depends only on the flows that
// share a link with it, transitively. A communicator whose every transfer crosses only links that no
// other communicator and no point-to-point send of the step ever crosses, and whose instances never
// overlap one another (each rank issues them on one stream, and an instance starts when its last
// member arrives), therefore runs each instance exactly as it would alone: the same rates at the
// same offsets from its start. Such an instance takes the time of one isolated run of its schedule
// with the communicator's own entropy (the same paths and queue pairs), kept by the run's key; the
// other collectives and every send go on the fabric as before. Tensor-parallel groups inside an
// NVSwitch host are the usual case: most of a large step's transfers, and none of its contention.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/simulation.h"
#include "workloads/collective_timer.h"
#include "workloads/replayer.h"

namespace weft {

struct PlanAlone {
  const CollectivePlan* plan;
  uint64_t entropy_base;  // its communicator's (Replayer::comm_entropy)
};

// The plans of `replayer` (upcoming_collectives) whose communicator has its links to itself in a
// replay of `workload` on `router`'s topology.
std::vector<PlanAlone> plans_on_own_links(Replayer& replayer, const Workload& workload, Router& router);

// Whether a replay on `main` may time such collectives alone: a fabric that sees only paths, and
// no sink that wants what only the fabric reports (each transfer, link or queue, each schedule run).
bool own_links_apply(Simulation& main);

// Shared-fabric timing with the plans marked by alone() timed alone; every other collective and
// every send runs on the fabric (SharedFabricTimer).
class OwnLinksTimer final : public CollectiveTimer {
 public:
  explicit OwnLinksTimer(Simulation& main) : main_(main) {}
  void alone(std::span<const PlanAlone> plans);
  std::optional<TimedCollective> collective(const CollectivePlan& plan, CollectiveOp op, Bytes bytes,
                                            std::span<const NodeIndex> rank_nodes) override;
  // Transfers and bytes of the instances timed alone, as the fabric would have counted them.
  const FabricStats& alone_totals() const { return totals_; }
  uint64_t simulated() const { return simulated_; }  // isolated runs made (the rest were known)

 private:
  struct Run {
    Time time;
    uint64_t transfers = 0;
    Bytes bytes;
  };
  struct Alone {
    uint64_t entropy_base = 0;
    std::optional<Run> run;  // once its first instance was timed
  };
  Simulation& main_;
  std::unordered_map<const CollectivePlan*, Alone> plans_;
  std::unordered_map<std::string, Run> by_key_;  // plans of communicators that are images share a run
  FabricStats totals_;
  uint64_t simulated_ = 0;
};

}  // namespace weft
