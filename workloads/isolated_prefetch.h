// Isolated collectives simulated ahead, on several threads (issues 18 and 19: the plan search's
// ranking and every `collective_timing: isolated` run). A replay that times its collectives alone
// simulates each distinct one when it first reaches it, one after another on one core; planned
// ahead (Replayer::upcoming_collectives), the distinct ones the cache lacks run at once on every
// core, longest first, and the replay finds each in the IsolatedTimeCache. A job is the isolated
// run IsolatedTimer would make (same key, same executor on a fresh engine and fabric of the same
// topology and setup), so every time, and every printed number, is the one it would have made;
// only the wall time changes.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "workloads/replayer.h"

namespace weft {

class IsolatedPrefetch {
 public:
  // Jobs run on `topology` with `setup` into `cache`: the replays that will read it must use the same.
  IsolatedPrefetch(const Topology& topology, SimulationSetup setup, std::shared_ptr<IsolatedTimeCache> cache);

  // The collectives `replayer` will time alone under `options` (all of them when they are timed in
  // isolation; with NCCL's model, those it has no estimate for) that the cache and the jobs so far
  // lack, keyed by `main` (the replay's simulation) as IsolatedTimer keys them. None when measured
  // fits decide first (options.calibration) or the collectives share the fabric.
  void add(Replayer& replayer, Simulation& main, const ReplayOptions& options);
  // The same for a replay of `workload` under `options` (planned by a replayer of its own).
  void add(const Workload& workload, const ClusterSpec& spec, const ReplayOptions& options);

  // Simulates every job, on up to `threads` threads (0: one per core), into the cache. The calling
  // thread asks `keep_going` after each job it ran (a replay's poll: progress, Ctrl-C); once it says
  // no, no thread starts another and run throws RunStopped.
  void run(unsigned threads, const std::function<bool()>& keep_going = {});
  size_t jobs() const { return jobs_.size(); }

 private:
  struct Job {
    std::string key;
    CollectivePlan plan;
    std::vector<NodeIndex> nodes;
    uint64_t steps = 0;  // the schedule's steps: how long it runs, roughly, to start the longest first
  };

  const Topology& topology_;
  SimulationSetup setup_;
  std::shared_ptr<IsolatedTimeCache> cache_;
  std::vector<Job> jobs_;
  std::unordered_set<std::string> queued_;  // the jobs' keys
};

}  // namespace weft
