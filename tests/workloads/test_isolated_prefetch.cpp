// Isolated collectives simulated ahead on several threads (workloads/isolated_prefetch.h): the
// replay that follows finds every one it times in the cache and takes the same times, to the
// picosecond, as a replay that simulates each when it reaches it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "sim/core/engine.h"
#include "tests/replay_checks.h"
#include "tests/small_model.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/systems.h"
#include "workloads/isolated_prefetch.h"
#include "workloads/training.h"

using namespace weft;
using test::check_same_ops;

namespace {

// Tensor, pipeline and data parallelism on 4 nodes (32 GPUs): collectives inside nodes and across them.
Workload training_step() {
  TrainingSpec s;
  s.model = test::small_model();
  s.parallel = {.tp = 2, .dp = 8, .pp = 2};
  s.global_batch = 16;
  s.micro_batch = 1;
  return generate_training(s, catalogue::gpu("h100-sxm"), default_compute_profile());
}

ReplayOptions isolated(unsigned threads, std::shared_ptr<IsolatedTimeCache> cache) {
  ReplayOptions o;
  o.collectives = CollectiveTiming::isolated;
  o.isolated_threads = threads;
  o.isolated_cache = std::move(cache);
  return o;
}

}  // namespace

TEST_CASE("isolated prefetch: the replay simulates nothing more and every op ends when it would have", "[timer]") {
  const ClusterSpec c = test::dgx_h100(4);
  const Topology t = build_cluster(c);
  const Workload w = training_step();
  auto one_by_one = std::make_shared<IsolatedTimeCache>();
  const ReplayResult serial = replay(w, t, c, isolated(1, one_by_one));
  const size_t distinct = one_by_one->size();
  REQUIRE(distinct >= 4);  // tensor-parallel inside a node, data-parallel across, several sizes

  auto ahead_cache = std::make_shared<IsolatedTimeCache>();
  IsolatedPrefetch ahead(t, isolated(1, ahead_cache), ahead_cache);
  ahead.add(w, c, isolated(1, ahead_cache));
  CHECK(ahead.jobs() == distinct);  // each distinct one once, none left for the replay to find
  ahead.run(2);
  CHECK(ahead.jobs() == 0);
  CHECK(ahead_cache->size() == distinct);
  const ReplayResult after = replay(w, t, c, isolated(1, ahead_cache));
  CHECK(ahead_cache->size() == distinct);  // the replay simulated nothing of its own
  CHECK(after.step_time == serial.step_time);
  check_same_ops(serial, after);

  // A second look finds everything cached; the replay's own prefetch (threads 0: one per core) the same.
  ahead.add(w, c, isolated(1, ahead_cache));
  CHECK(ahead.jobs() == 0);
  const ReplayResult threaded = replay(w, t, c, isolated(0, nullptr));
  CHECK(threaded.step_time == serial.step_time);
  check_same_ops(serial, threaded);
}

TEST_CASE("isolated prefetch: a poll that says stop ends it after the job it ran", "[timer]") {
  const ClusterSpec c = test::dgx_h100(4);
  const Topology t = build_cluster(c);
  auto cache = std::make_shared<IsolatedTimeCache>();
  IsolatedPrefetch ahead(t, isolated(1, cache), cache);
  ahead.add(training_step(), c, isolated(1, cache));
  REQUIRE(ahead.jobs() >= 4);
  uint32_t polls = 0;
  CHECK_THROWS_AS(ahead.run(1, [&polls] { return ++polls < 2; }), RunStopped);
  CHECK(polls == 2);
  CHECK(cache->size() == 2);  // one job per poll, none after the refusal
  CHECK(ahead.jobs() == 0);
}

TEST_CASE("isolated prefetch: nothing to simulate where NCCL's model, measured fits or the fabric decide", "[timer]") {
  const ClusterSpec c = test::dgx_h100(2);
  const Topology t = build_cluster(c);
  TrainingSpec s;
  s.model = test::small_model();
  s.parallel = {.tp = 2, .dp = 8};
  s.global_batch = 8;
  s.micro_batch = 1;
  const Workload w = generate_training(s, catalogue::gpu("h100-sxm"), default_compute_profile());
  auto cache = std::make_shared<IsolatedTimeCache>();
  ReplayOptions o = isolated(1, cache);
  IsolatedPrefetch ahead(t, o, cache);
  o.collectives = CollectiveTiming::model;  // every dense-model collective has NCCL's estimate
  ahead.add(w, c, o);
  CHECK(ahead.jobs() == 0);
  o.collectives = CollectiveTiming::shared;
  ahead.add(w, c, o);
  CHECK(ahead.jobs() == 0);
  o.collectives = CollectiveTiming::isolated;
  o.calibration = std::make_shared<NetworkCalibration>();  // measured fits answer first
  ahead.add(w, c, o);
  CHECK(ahead.jobs() == 0);
  o.calibration = nullptr;
  ahead.add(w, c, o);
  CHECK(ahead.jobs() > 0);
}

TEST_CASE("upcoming collectives: the k-th of each rank is one instance, at the members' largest size", "[timer]") {
  const ClusterSpec c = test::dgx_h100(1);
  const Topology t = build_cluster(c);
  Workload w;
  w.name = "uneven";
  w.programs.resize(3);
  w.gpu_of_rank = {0, 1, 2};
  const uint32_t pair = w.add_communicator({.ranks = {0, 1}, .group = CommGroup::ep});
  const uint32_t alone = w.add_communicator({.ranks = {2}, .group = CommGroup::other});
  Op a2a;
  a2a.kind = OpKind::collective;
  a2a.stream = 1;
  a2a.collective = CollectiveOp::all_to_all;
  a2a.comm = pair;
  Op reduce = a2a;
  reduce.collective = CollectiveOp::all_reduce;
  reduce.bytes = Bytes(4096);
  for (uint32_t r : {0u, 1u}) {
    a2a.bytes = Bytes(r == 0 ? 1024 : 3072);  // an all-to-allv: each rank its own size
    w.programs[r].add(a2a, {});
    w.programs[r].add(reduce, {0});
    a2a.bytes = Bytes(r == 0 ? 3072 : 2048);  // another instance of the same largest size
    w.programs[r].add(a2a, {1});
  }
  reduce.comm = alone;  // one rank: nothing moves
  w.programs[2].add(reduce, {});
  Simulation sim(t, SimulationSetup{});
  SharedFabricTimer timer;
  Replayer replayer(sim.engine(), sim.fabric(), t, c, w, sim.recorder(), timer);
  const std::vector<Replayer::Upcoming> up = replayer.upcoming_collectives();
  REQUIRE(up.size() == 2);
  std::vector<uint64_t> sizes;
  for (const Replayer::Upcoming& u : up) {
    CHECK(u.nodes.size() == 2);
    CHECK(u.plan->schedule.ranks == 2);
    sizes.push_back(u.plan->schedule.size.count());
  }
  std::sort(sizes.begin(), sizes.end());
  CHECK(sizes == std::vector<uint64_t>{3072, 4096});  // the all-to-allv at its largest, once; the all-reduce
}
