#include "workloads/isolated_prefetch.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "sim/core/engine.h"
#include "sim/core/parallel_for.h"

namespace weft {

IsolatedPrefetch::IsolatedPrefetch(const Topology& topology, SimulationSetup setup,
                                   std::shared_ptr<IsolatedTimeCache> cache)
    : topology_(topology), setup_(std::move(setup)), cache_(std::move(cache)) {}

void IsolatedPrefetch::add(Replayer& replayer, Simulation& main, const ReplayOptions& options) {
  if (options.collectives == CollectiveTiming::shared || options.calibration) return;
  for (const Replayer::Upcoming& u : replayer.upcoming_collectives()) {
    // NCCL's model times what its tuner estimated (NcclModelTimer); the rest run alone.
    if (options.collectives == CollectiveTiming::model && u.plan->choice.predicted_us > 0) continue;
    std::string key = isolated_time_key(main, *u.plan, u.nodes);
    if (cache_->find(key) || !queued_.insert(key).second) continue;
    uint64_t steps = 0;
    for (const Stream& s : u.plan->schedule.streams) steps += step_count(s);
    jobs_.push_back({std::move(key), *u.plan, {u.nodes.begin(), u.nodes.end()}, steps});
  }
}

void IsolatedPrefetch::add(const Workload& workload, const ClusterSpec& spec, const ReplayOptions& options) {
  if (options.collectives == CollectiveTiming::shared || options.calibration) return;
  Simulation sim(topology_, options);
  SharedFabricTimer unused;  // the replayer only plans here; it never runs
  Replayer replayer(sim.engine(), sim.fabric(), topology_, spec, workload, sim.recorder(), unused, options.plan);
  add(replayer, sim, options);
}

void IsolatedPrefetch::run(unsigned threads, const std::function<bool()>& keep_going) {
  std::stable_sort(jobs_.begin(), jobs_.end(), [](const Job& a, const Job& b) { return a.steps > b.steps; });
  std::atomic<size_t> next{0};
  std::atomic<bool> stopped{false};
  const std::thread::id caller = std::this_thread::get_id();
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, jobs_.size()));
  // One worker per thread, each with a simulation of its own whose isolated runs share its router.
  parallel_for(threads, threads, [&](size_t /*worker*/) {
    Simulation base(topology_, setup_);
    for (size_t j = next++; j < jobs_.size() && !stopped; j = next++) {
      const Job& job = jobs_[j];
      cache_->add(job.key, run_alone(*base.isolated(), job.plan, job.nodes));
      if (keep_going && std::this_thread::get_id() == caller && !keep_going()) stopped = true;
    }
  });
  jobs_.clear();
  queued_.clear();
  if (stopped) throw RunStopped("run stopped");
}

}  // namespace weft
