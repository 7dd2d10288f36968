#include "workloads/collective_timer.h"

#include <fmt/format.h>
#include <array>
#include <cmath>

#include "collectives/executor.h"
#include "sim/core/errors.h"
#include "sim/core/names.h"
#include "workloads/isolation_key.h"

namespace weft {

std::string_view to_string(CollectiveTiming t) {
  switch (t) {
    case CollectiveTiming::shared:
      return "shared";
    case CollectiveTiming::isolated:
      return "isolated";
    case CollectiveTiming::model:
      return "model";
  }
  return "?";
}

CollectiveTiming parse_collective_timing(std::string_view text) {
  if (text == "shared") return CollectiveTiming::shared;
  if (text == "isolated") return CollectiveTiming::isolated;
  if (text == "model") return CollectiveTiming::model;
  throw ConfigError(
      fmt::format("collective timing '{}': expected shared (collectives contend on one fabric), "
                  "isolated (each distinct collective simulated once alone; faster) or model (NCCL's "
                  "own estimate, no simulation; fastest, as optimistic as NCCL's model)",
                  text));
}

std::optional<Time> IsolatedTimeCache::find(const std::string& key) const {
  const std::scoped_lock lock(mutex_);
  const auto it = times_.find(key);
  return it == times_.end() ? std::nullopt : std::optional<Time>(it->second);
}

void IsolatedTimeCache::add(std::string key, Time t) {
  const std::scoped_lock lock(mutex_);
  times_.emplace(std::move(key), t);
}

size_t IsolatedTimeCache::size() const {
  const std::scoped_lock lock(mutex_);
  return times_.size();
}

std::string isolated_time_key(Simulation& main, const CollectivePlan& plan, std::span<const NodeIndex> rank_nodes,
                              uint64_t entropy_base) {
  const IsolationKeying keying =
      main.fabric().path_determined() ? IsolationKeying::by_paths : IsolationKeying::by_nodes;
  return isolation_key(plan.schedule, rank_nodes, main.router(), keying, entropy_base);
}

Time run_alone(Simulation& side, const CollectivePlan& plan, std::span<const NodeIndex> rank_nodes,
               uint64_t entropy_base, FabricStats* stats) {
  ScheduleExecutor executor(side.engine(), side.fabric(), plan.schedule, rank_nodes, side.recorder());
  executor.set_entropy_base(entropy_base);
  executor.allow_rank_images();  // it runs alone
  executor.start();
  side.run();
  if (stats) *stats = side.fabric().stats();
  return executor.end_time() - executor.start_time();
}

IsolatedTimer::IsolatedTimer(Simulation& main, std::shared_ptr<IsolatedTimeCache> cache)
    : main_(main), cache_(cache ? std::move(cache) : std::make_shared<IsolatedTimeCache>()) {}

std::optional<TimedCollective> IsolatedTimer::collective(const CollectivePlan& plan, CollectiveOp /*op*/,
                                                         Bytes /*bytes*/, std::span<const NodeIndex> rank_nodes) {
  auto [it, first] = times_.try_emplace(&plan);
  if (first) {
    std::string key = isolated_time_key(main_, plan, rank_nodes);
    const std::optional<Time> known = cache_->find(key);
    if (known) {
      it->second = *known;
    } else {
      ++simulated_;
      it->second = run_alone(*main_.isolated(), plan, rank_nodes);
      cache_->add(std::move(key), it->second);
    }
  }
  return TimedCollective{it->second};
}

std::optional<TimedCollective> NcclModelTimer::collective(const CollectivePlan& plan, CollectiveOp op, Bytes bytes,
                                                          std::span<const NodeIndex> rank_nodes) {
  // plan_collective leaves the choice's estimate at 0 where no tuner ran (all-to-all, send/recv).
  if (plan.choice.predicted_us <= 0) return fallback_->collective(plan, op, bytes, rank_nodes);
  return TimedCollective{Time::ps(std::llround(plan.choice.predicted_us * 1e6))};
}

// The transfer alone on its path: striped over every NVLink path between NVSwitch GPUs
// (sim/stripes.h), each stripe a share of the bytes at its bottleneck.
std::optional<Time> NcclModelTimer::p2p(NodeIndex src, NodeIndex dst, Bytes bytes) {
  const PathSet* stripes = nullptr;
  const Path& path = router_.route(src, dst, 0, stripes);
  if (stripes == nullptr || stripes->empty()) return path.latency + transmit_time(bytes, path.bottleneck);
  uint64_t rate = 0;
  Time latency;
  for (const Path& p : *stripes) {
    rate += p.bottleneck.bps();
    latency = std::max(latency, p.latency);
  }
  return latency + transmit_time(bytes, Bandwidth::bps(rate));
}

CalibratedTimer::CalibratedTimer(std::shared_ptr<const NetworkCalibration> fits, const Topology& topology,
                                 std::unique_ptr<CollectiveTimer> fallback)
    : fits_(std::move(fits)), topology_(topology), fallback_(std::move(fallback)) {}

std::optional<TimedCollective> CalibratedTimer::collective(const CollectivePlan& plan, CollectiveOp op, Bytes bytes,
                                                           std::span<const NodeIndex> rank_nodes) {
  if (const std::optional<Time> t =
          fits_->time("collective", to_string(op), static_cast<uint32_t>(rank_nodes.size()),
                      lowercase(to_string(plan.choice.algorithm)), lowercase(to_string(plan.choice.protocol)),
                      link_class(rank_nodes, topology_), bytes.count())) {
    return TimedCollective{*t, /*calibrated=*/true};
  }
  return fallback_->collective(plan, op, bytes, rank_nodes);
}

std::optional<Time> CalibratedTimer::p2p(NodeIndex src, NodeIndex dst, Bytes bytes) {
  const std::array<NodeIndex, 2> pair{src, dst};
  if (auto t = fits_->time("p2p", "send_recv", 2, "p2p", "", link_class(pair, topology_), bytes.count())) return t;
  return fallback_->p2p(src, dst, bytes);
}

std::unique_ptr<CollectiveTimer> make_collective_timer(CollectiveTiming timing, Simulation& main,
                                                       std::shared_ptr<const NetworkCalibration> fits,
                                                       const Topology& topology,
                                                       std::shared_ptr<IsolatedTimeCache> cache,
                                                       std::unique_ptr<CollectiveTimer> shared) {
  std::unique_ptr<CollectiveTimer> timer;
  if (timing != CollectiveTiming::shared) {
    require_simulations(main.setup().fabric, 2, "fabrics", "use collective timing 'shared' with this fabric");
    timer = std::make_unique<IsolatedTimer>(main, std::move(cache));
    if (timing == CollectiveTiming::model) timer = std::make_unique<NcclModelTimer>(main.router(), std::move(timer));
  } else {
    timer = shared ? std::move(shared) : std::make_unique<SharedFabricTimer>();
  }
  if (fits) timer = std::make_unique<CalibratedTimer>(std::move(fits), topology, std::move(timer));
  return timer;
}

}  // namespace weft
