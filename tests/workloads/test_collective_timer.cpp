// The replay's timing strategies: shared (always the fabric), isolated (each plan once alone, then
// memoised: the time of the schedule simulated by itself), calibrated (measured fits first, the
// fallback's answer for what was not measured).
#include <catch2/catch.hpp>
#include <memory>

#include "collectives/ring.h"
#include "collectives/simulate.h"
#include "topologies/builders.h"
#include "workloads/collective_timer.h"

using namespace weft;

namespace {

Topology eight_gpus() { return single_switch(8, {LinkKind::generic, Bandwidth::gbps(400), Time::us(1)}); }

CollectivePlan ring_plan(Bytes size) {
  CollectivePlan plan;
  plan.schedule = ring_all_reduce(8, size, {1, size, 0});
  return plan;
}

}  // namespace

TEST_CASE("CollectiveTimer: shared runs everything on the fabric", "[timer]") {
  const Topology t = eight_gpus();
  SharedFabricTimer shared;
  const CollectivePlan plan = ring_plan(Bytes(1 << 20));
  CHECK_FALSE(shared.collective(plan, CollectiveOp::all_reduce, Bytes(1 << 20), t.gpus()));
  CHECK_FALSE(shared.p2p(t.gpus()[0], t.gpus()[1], Bytes(1 << 20)));
}

TEST_CASE("CollectiveTimer: isolated takes the schedule's time alone, once per plan", "[timer]") {
  const Topology t = eight_gpus();
  Simulation main(t, SimulationSetup{"flow"});
  IsolatedTimer isolated(main);
  const CollectivePlan small = ring_plan(Bytes(1 << 20)), big = ring_plan(Bytes(64 << 20));
  const auto a = isolated.collective(small, CollectiveOp::all_reduce, Bytes(1 << 20), t.gpus());
  REQUIRE(a);
  CHECK_FALSE(a->calibrated);
  CHECK(a->time == simulate(small.schedule, t).time);
  CHECK(isolated.collective(small, CollectiveOp::all_reduce, Bytes(1 << 20), t.gpus())->time == a->time);
  CHECK(isolated.collective(big, CollectiveOp::all_reduce, Bytes(64 << 20), t.gpus())->time > a->time);
  CHECK(main.engine().now() == Time());  // the main run's clock never moved
  CHECK_FALSE(isolated.p2p(t.gpus()[0], t.gpus()[1], Bytes(1 << 20)));
}

TEST_CASE("CollectiveTimer: calibrated answers what was measured, the fallback the rest", "[timer]") {
  const Topology t = eight_gpus();
  auto fits = std::make_shared<NetworkCalibration>();
  // 10 us + bytes / 5 GB/s for a ring all-reduce on 8 ranks, each on a host of its own.
  fits->series.push_back({"collective", "all_reduce", 8, "ring", "simple", "inter", 0, 10, 5, {}});
  fits->series.push_back({"p2p", "send_recv", 2, "p2p", "", "inter", 0, 2, 10, {}});
  CalibratedTimer timer(fits, t, std::make_unique<SharedFabricTimer>());
  CollectivePlan plan = ring_plan(Bytes(1 << 20));
  plan.choice.algorithm = Algorithm::ring;
  plan.choice.protocol = Protocol::simple;
  const auto measured = timer.collective(plan, CollectiveOp::all_reduce, Bytes(1 << 20), t.gpus());
  REQUIRE(measured);
  CHECK(measured->calibrated);
  CHECK(measured->time.microseconds() == Approx(10 + (1 << 20) / 5e3));
  CHECK_FALSE(timer.collective(plan, CollectiveOp::all_gather, Bytes(1 << 20), t.gpus()));  // not measured
  const auto p2p = timer.p2p(t.gpus()[0], t.gpus()[1], Bytes(1'000'000));
  REQUIRE(p2p);
  CHECK(p2p->microseconds() == Approx(2 + 1e6 / 10e3));
}

TEST_CASE("CollectiveTimer: an isolated-time cache lets a later replay skip the simulation", "[timer]") {
  const Topology t = eight_gpus();
  const CollectivePlan plan = ring_plan(Bytes(1 << 20));
  const std::span<const NodeIndex> all = t.gpus();
  auto cache = std::make_shared<IsolatedTimeCache>();
  Simulation first_run(t, SimulationSetup{"flow"});
  IsolatedTimer first(first_run, cache);
  const Time alone = first.collective(plan, CollectiveOp::all_reduce, Bytes(1 << 20), all)->time;
  CHECK(alone == simulate(plan.schedule, t).time);
  CHECK(cache->size() == 1);
  CHECK(first.simulated() == 1);
  // Another schedule is another entry. The same ring over the hosts in reverse order is an image of
  // the first under the switch's symmetry: the same entry, and the time it takes when simulated.
  CHECK(first.collective(ring_plan(Bytes(2 << 20)), CollectiveOp::all_reduce, Bytes(2 << 20), all)->time > alone);
  std::vector<NodeIndex> reversed(all.rbegin(), all.rend());
  const CollectivePlan same = ring_plan(Bytes(1 << 20));
  CHECK(first.collective(same, CollectiveOp::all_reduce, Bytes(1 << 20), reversed)->time == alone);
  CHECK(cache->size() == 2);
  CHECK(first.simulated() == 2);
  // A later replay's timer takes the cached time for a plan object of its own: no new entry.
  const CollectivePlan again = ring_plan(Bytes(1 << 20));
  Simulation second_run(t, SimulationSetup{"flow"});
  IsolatedTimer second(second_run, cache);
  CHECK(second.collective(again, CollectiveOp::all_reduce, Bytes(1 << 20), all)->time == alone);
  CHECK(cache->size() == 2);
  CHECK(second.simulated() == 0);
}

TEST_CASE("CollectiveTimer: model takes NCCL's estimate, sends alone on their path, the rest from the fallback",
          "[timer]") {
  const Topology t = eight_gpus();
  Simulation main(t, SimulationSetup{"flow"});
  NcclModelTimer model(main.router(), std::make_unique<IsolatedTimer>(main));
  CollectivePlan plan = ring_plan(Bytes(1 << 20));
  plan.choice.predicted_us = 123.456789;
  const auto estimated = model.collective(plan, CollectiveOp::all_reduce, Bytes(1 << 20), t.gpus());
  REQUIRE(estimated);
  CHECK(estimated->time == Time::ps(123'456'789));
  CHECK_FALSE(estimated->calibrated);
  // No estimate (all-to-all, send/recv: no tuner): the fallback simulates it alone.
  plan.choice.predicted_us = 0;
  CHECK(model.collective(plan, CollectiveOp::all_to_all, Bytes(1 << 20), t.gpus())->time ==
        simulate(plan.schedule, t).time);
  // 1 MiB over two 400 Gb/s hops of 1 us each: 2 us + 8,388,608 bits / 400e9 bit/s = 20.97152 us.
  CHECK(model.p2p(t.gpus()[0], t.gpus()[1], Bytes(1 << 20)) == Time::ps(2'000'000 + 20'971'520));
  CHECK(main.engine().now() == Time());
}

TEST_CASE("CollectiveTiming: names shared, isolated and model; anything else is a clear error", "[timer]") {
  for (CollectiveTiming t : {CollectiveTiming::shared, CollectiveTiming::isolated, CollectiveTiming::model}) {
    CHECK(parse_collective_timing(to_string(t)) == t);
  }
  CHECK_THROWS_WITH(parse_collective_timing("fast"), Catch::Contains("'fast'") && Catch::Contains("model"));
}
