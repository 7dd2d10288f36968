// Compute sharing SMs with NCCL kernels (workloads/sm_share.h): an op runs at (sms - held) / sms of
// its whole-GPU speed while kernels hold SMs, re-timed whenever they start or end; a training step's
// compute stretches where its collectives overlap it, and nothing changes where none does.
#include <catch2/catch.hpp>

#include "sim/core/engine.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/systems.h"
#include "workloads/replayer.h"
#include "workloads/sm_share.h"

using namespace weft;

namespace {

// Runs one op of `work` ps on rank 0 of a 100-SM GPU; `at` holds/releases blocks at given times.
Time finish_time(int64_t work, const std::vector<std::tuple<int64_t, int32_t>>& changes, uint32_t sms = 100) {
  Engine engine;
  SmShare share(engine, 1, sms);
  Time done = Time::max();
  share.start(0, Time::ps(work), [&] { done = engine.now(); });
  for (const auto& [at, blocks] : changes) {
    engine.schedule_at(Time::ps(at), [&share, blocks = blocks] {
      if (blocks > 0)
        share.hold(0, static_cast<uint32_t>(blocks));
      else
        share.release(0, static_cast<uint32_t>(-blocks));
    });
  }
  engine.run();
  return done;
}

}  // namespace

TEST_CASE("SM share: an op alone runs for exactly its duration", "[unit]") {
  CHECK(finish_time(1000, {}) == Time::ps(1000));
  // Kernels that start after it ended change nothing.
  CHECK(finish_time(1000, {{2000, 50}, {3000, -50}}) == Time::ps(1000));
}

TEST_CASE("SM share: held SMs slow the op by their share, from the moment they are held", "[unit]") {
  // Half the SMs held throughout: twice as long.
  CHECK(finish_time(1000, {{0, 50}}) == Time::ps(2000));
  // 400 ps at full speed, then 600 ps of work at a half: 400 + 1200.
  CHECK(finish_time(1000, {{400, 50}}) == Time::ps(1600));
  // Held 20 SMs (0.8 speed) from 0 to 400 (320 ps of work done), then full speed: 400 + 680.
  CHECK(finish_time(1000, {{0, 20}, {400, -20}}) == Time::ps(1080));
  // Two kernels of 10 SMs each add up.
  CHECK(finish_time(1000, {{0, 10}, {0, 10}}) == Time::ps(1250));
  // More blocks than SMs leave compute one SM (a kernel cannot take them all).
  CHECK(finish_time(10, {{0, 500}}) == Time::ps(1000));
}

TEST_CASE("SM share: 0 SMs turns sharing off", "[unit]") { CHECK(finish_time(1000, {{0, 50}}, 0) == Time::ps(1000)); }

TEST_CASE("SM share: a step's compute stretches only where NCCL kernels overlap it", "[validation]") {
  // Two GPUs of one DGX A100: rank 0 computes 10 ms while an all-reduce runs beside it on another
  // stream; rank 1 only joins the all-reduce.
  ClusterSpec cluster = system_spec("dgx-a100");
  const Topology topology = build_cluster(cluster);
  Workload w;
  w.name = "overlap";
  w.programs.resize(2);
  w.gpu_of_rank = {0, 1};
  Op compute;
  compute.duration = Time::ms(10);
  Op reduce;
  reduce.kind = OpKind::collective;
  reduce.stream = 1;
  reduce.group = CommGroup::dp;
  reduce.bytes = Bytes(1u << 30);
  reduce.comm = w.add_communicator({.ranks = {0, 1}, .group = CommGroup::dp});
  w.programs[0].add(compute, {});
  w.programs[0].add(reduce, {});
  w.programs[1].add(reduce, {});
  const ReplayResult alone = replay(w, topology, cluster);
  CHECK(alone.step_time >= Time::ms(10));
  w.modelled_compute = true;
  const ReplayResult shared = replay(w, topology, cluster);
  const Time compute_end_alone = alone.ops.timings()[0][0].ended, compute_end_shared = shared.ops.timings()[0][0].ended;
  CHECK(compute_end_alone == Time::ms(10));
  CHECK(compute_end_shared > compute_end_alone);
  // At most all of it at (108 - channels) / 108 of full speed.
  CHECK(compute_end_shared.seconds() < 10e-3 * 108 / (108 - 32) + 1e-9);
}
