// How the replay's communication takes its time: the strategies behind `collective_timing:`. A
// collective instance whose members have all arrived, or a matched send/recv, asks its timer; a
// time means "done that much later", nothing means "run it on the shared fabric".
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "collectives/network_calibration.h"
#include "collectives/plan.h"
#include "sim/simulation.h"

namespace weft {

// shared: every collective runs its schedule on the one fabric, so concurrent collectives (TP inside
// a node while DP crosses the network, two DP buckets) contend for links as they would. isolated:
// each distinct (communicator, op, size) is simulated once alone on the same topology and fabric
// model and every instance takes that time (ASTRA-sim's "analytical network" idea with weft's own
// fabric behind it): much faster for big steps, blind to contention between collectives.
// model: each collective takes NCCL's own estimate of its time (the tuner's predicted time for the
// algorithm and protocol it picks, nccl_model.h), no simulation at all: a screen for sweeps of
// thousands of plans (the plan search), as optimistic as NCCL's model (it sees no ECMP collision,
// no queueing, no step it does not count). All-to-all and other ops NCCL does not tune are timed
// in isolation; a point-to-point send takes its path's latency plus its bytes at the path's
// bottleneck rate (summed over NVLink stripes), contention unseen. Otherwise point-to-point sends
// always share the fabric.
enum class CollectiveTiming : uint8_t { shared, isolated, model };
std::string_view to_string(CollectiveTiming t);
CollectiveTiming parse_collective_timing(std::string_view text);  // ConfigError naming both

struct TimedCollective {
  Time time;
  bool calibrated = false;  // a measured fit's time
};

class CollectiveTimer {
 public:
  virtual ~CollectiveTimer() = default;
  // The time `plan` of `op` over `bytes` takes on `rank_nodes`, or nothing: run it on the shared
  // fabric. `plan` outlives the replay (the replayer keeps one per communicator, op and size).
  virtual std::optional<TimedCollective> collective(const CollectivePlan& plan, CollectiveOp op, Bytes bytes,
                                                    std::span<const NodeIndex> rank_nodes) = 0;
  // The same for one send/recv of `bytes` between two GPUs; the default: always the shared fabric.
  virtual std::optional<Time> p2p(NodeIndex /*src*/, NodeIndex /*dst*/, Bytes /*bytes*/) { return std::nullopt; }
};

// Everything on the shared fabric.
class SharedFabricTimer final : public CollectiveTimer {
 public:
  std::optional<TimedCollective> collective(const CollectivePlan&, CollectiveOp, Bytes,
                                            std::span<const NodeIndex>) override {
    return std::nullopt;
  }
};

// Isolated times by isolation_key (the schedule and what the fabric sees of its GPUs), kept across
// communicators of one replay and across replays of one topology, fabric and setup (the plan search
// times thousands of candidates whose communicators repeat). The caller keeps every replay sharing
// it on the same topology, fabric model and setup. Replays on several threads may share one (the plan
// search's passes): two that miss the same key both simulate it, with the same result.
class IsolatedTimeCache {
 public:
  std::optional<Time> find(const std::string& key) const;
  void add(std::string key, Time t);
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Time> times_;
};

// The key `plan` on `rank_nodes` is kept under for runs isolated from `main` (isolation_key.h: by
// its paths on a fabric that sees only paths, else by its GPUs); routes with main's router, the
// executor's streams at `entropy_base` (ScheduleExecutor::set_entropy_base).
std::string isolated_time_key(Simulation& main, const CollectivePlan& plan, std::span<const NodeIndex> rank_nodes,
                              uint64_t entropy_base = 0);
// The time `plan` takes on `rank_nodes` alone in `side`, a fresh run (Simulation::isolated()), its
// streams at `entropy_base`; `stats`, when given, receives the run's fabric counters.
Time run_alone(Simulation& side, const CollectivePlan& plan, std::span<const NodeIndex> rank_nodes,
               uint64_t entropy_base = 0, FabricStats* stats = nullptr);

// Each distinct plan run once alone, in an isolated run of `main` (Simulation::isolated), then
// memoised by plan and in `cache` (its own when none is given): on flow and analytic fabrics, by
// the plan's paths up to the topology's symmetry, so 64 tensor-parallel groups cost one run.
class IsolatedTimer final : public CollectiveTimer {
 public:
  explicit IsolatedTimer(Simulation& main, std::shared_ptr<IsolatedTimeCache> cache = nullptr);
  std::optional<TimedCollective> collective(const CollectivePlan& plan, CollectiveOp op, Bytes bytes,
                                            std::span<const NodeIndex> rank_nodes) override;
  // Isolated runs simulated so far (the others came from a memo).
  uint64_t simulated() const { return simulated_; }

 private:
  Simulation& main_;
  std::shared_ptr<IsolatedTimeCache> cache_;
  std::unordered_map<const CollectivePlan*, Time> times_;
  uint64_t simulated_ = 0;
};

// NCCL's estimate (CollectivePlan::choice.predicted_us) for every collective NCCL's tuner times; the
// others (all-to-all, send/recv: no tuner) go to `fallback`. Sends: latency + bytes / rate on the path.
class NcclModelTimer final : public CollectiveTimer {
 public:
  NcclModelTimer(Router& router, std::unique_ptr<CollectiveTimer> fallback)
      : router_(router), fallback_(std::move(fallback)) {}
  std::optional<TimedCollective> collective(const CollectivePlan& plan, CollectiveOp op, Bytes bytes,
                                            std::span<const NodeIndex> rank_nodes) override;
  std::optional<Time> p2p(NodeIndex src, NodeIndex dst, Bytes bytes) override;

 private:
  Router& router_;
  std::unique_ptr<CollectiveTimer> fallback_;
};

// Measured fits (PROFILE.network.yaml from weft calibrate) first: a collective or send/recv whose
// series was measured takes the fitted time; the others go to `fallback`.
class CalibratedTimer final : public CollectiveTimer {
 public:
  CalibratedTimer(std::shared_ptr<const NetworkCalibration> fits, const Topology& topology,
                  std::unique_ptr<CollectiveTimer> fallback);
  std::optional<TimedCollective> collective(const CollectivePlan& plan, CollectiveOp op, Bytes bytes,
                                            std::span<const NodeIndex> rank_nodes) override;
  std::optional<Time> p2p(NodeIndex src, NodeIndex dst, Bytes bytes) override;

 private:
  std::shared_ptr<const NetworkCalibration> fits_;
  const Topology& topology_;
  std::unique_ptr<CollectiveTimer> fallback_;
};

// The timer a replay asks for: `timing` on `main`, under the measured fits when there are any;
// `shared`, when given, is shared timing's (default: SharedFabricTimer).
// Throws ConfigError when isolated runs are impossible with main's fabric (SimGrid).
std::unique_ptr<CollectiveTimer> make_collective_timer(CollectiveTiming timing, Simulation& main,
                                                       std::shared_ptr<const NetworkCalibration> fits,
                                                       const Topology& topology,
                                                       std::shared_ptr<IsolatedTimeCache> cache = nullptr,
                                                       std::unique_ptr<CollectiveTimer> shared = nullptr);

}  // namespace weft
