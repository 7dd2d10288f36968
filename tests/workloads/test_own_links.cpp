// Collectives on links of their own (workloads/own_links.h): on the shared fabric, a communicator
// that no other traffic touches takes the time of one run alone. Proven against the replay that puts
// every collective on the fabric: the same op timings, collective times and transfer counts, to the
// picosecond; and the check that leaves contending communicators on the fabric is shown to matter.
#include <catch2/catch.hpp>

#include <memory>
#include <set>
#include <vector>

#include "sim/core/engine.h"
#include "tests/replay_checks.h"
#include "tests/small_model.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/systems.h"
#include "workloads/isolation_key.h"
#include "workloads/own_links.h"
#include "workloads/training.h"

using namespace weft;

namespace {

Workload training_step(ParallelSizes parallel) {
  TrainingSpec s;
  s.model = test::small_model();
  s.parallel = parallel;
  s.global_batch = 8 * parallel.dp;
  s.micro_batch = 1;
  return generate_training(s, catalogue::gpu("h100-sxm"), default_compute_profile());
}

ReplayOptions shared(bool alone) {
  ReplayOptions o;
  o.collectives = CollectiveTiming::shared;
  o.alone_on_own_links = alone;
  return o;
}

void check_same_step(const ReplayResult& a, const ReplayResult& b) {
  CHECK(a.step_time == b.step_time);
  test::check_same_ops(a, b);
  REQUIRE(a.collectives.size() == b.collectives.size());
  for (size_t i = 0; i < a.collectives.size(); ++i) {
    CHECK(a.collectives[i].count == b.collectives[i].count);
    CHECK(a.collectives[i].total == b.collectives[i].total);
  }
  CHECK(a.fabric.transfers_done == b.fabric.transfers_done);
  CHECK(a.fabric.bytes_delivered == b.fabric.bytes_delivered);
}

// The groups of the communicators whose plans plans_on_own_links picks for `w` on `t`.
std::multiset<CommGroup> groups_alone(const Workload& w, const Topology& t, const ClusterSpec& c) {
  Simulation sim(t, shared(true));
  SharedFabricTimer unused;  // the replayer only plans here
  Replayer replayer(sim.engine(), sim.fabric(), t, c, w, sim.recorder(), unused);
  std::set<const CollectivePlan*> alone;
  for (const PlanAlone& p : plans_on_own_links(replayer, w, sim.router())) alone.insert(p.plan);
  std::set<uint32_t> comms;
  for (const Replayer::Upcoming& u : replayer.upcoming_collectives()) {
    if (alone.count(u.plan) != 0) comms.insert(u.comm);
  }
  std::multiset<CommGroup> groups;
  for (uint32_t comm : comms) groups.insert(w.communicators[comm].group);
  return groups;
}

}  // namespace

TEST_CASE("own links: tensor-parallel groups inside hosts are timed alone, the step to the picosecond", "[timer]") {
  // TP8 inside each of 4 DGX H100 hosts, pipeline and data parallelism across them.
  const ClusterSpec c = test::dgx_h100(4);
  const Topology t = build_cluster(c);
  const Workload w = training_step({.tp = 8, .dp = 2, .pp = 2});
  const std::multiset<CommGroup> alone = groups_alone(w, t, c);
  CHECK(alone.count(CommGroup::tp) == 4);  // every host's NVSwitch carries only its TP group
  CHECK(alone.count(CommGroup::dp) == 0);  // DP rings cross the NICs the pipeline's sends use

  const ReplayResult fabric = replay(w, t, c, shared(false));
  const ReplayResult timed_alone = replay(w, t, c, shared(true));
  REQUIRE(fabric.fabric.transfers_done > 0);
  check_same_step(fabric, timed_alone);
  // The fabric solved far fewer rates: the TP collectives never reached it.
  CHECK(timed_alone.fabric.rate_solves < fabric.fabric.rate_solves / 2);
}

TEST_CASE("own links: communicators that share a link stay on the fabric", "[timer]") {
  // TP4 and DP2 inside one host: every GPU's NVLink ports carry both.
  const ClusterSpec c = test::dgx_h100(1);
  const Topology t = build_cluster(c);
  const Workload w = training_step({.tp = 4, .dp = 2, .pp = 1});
  CHECK(groups_alone(w, t, c).empty());
  const ReplayResult fabric = replay(w, t, c, shared(false));
  check_same_step(fabric, replay(w, t, c, shared(true)));

  // Timing them alone anyway misses their contention: the check above is what keeps the step exact.
  Simulation sim(t, shared(true));
  OwnLinksTimer forced(sim);
  Replayer replayer(sim.engine(), sim.fabric(), t, c, w, sim.recorder(), forced);
  std::vector<PlanAlone> every;
  for (const Replayer::Upcoming& u : replayer.upcoming_collectives()) {
    every.push_back({u.plan, Replayer::comm_entropy(u.comm)});
  }
  forced.alone(every);
  replayer.start();
  sim.run();
  REQUIRE(replayer.done());
  CHECK(forced.simulated() > 0);
  CHECK(replayer.step_time() < fabric.step_time);
}

TEST_CASE("own links: a communicator spread over two streams of a rank stays on the fabric", "[timer]") {
  const ClusterSpec c = test::dgx_h100(4);
  const Topology t = build_cluster(c);
  Workload w = training_step({.tp = 8, .dp = 2, .pp = 2});
  REQUIRE(groups_alone(w, t, c).count(CommGroup::tp) == 4);
  // Rank 0's last collective moves to another stream: two of its instances could overlap.
  for (auto op = w.programs[0].ops.rbegin(); op != w.programs[0].ops.rend(); ++op) {
    if (op->kind != OpKind::collective || w.communicators[op->comm].group != CommGroup::tp) continue;
    op->stream = static_cast<uint8_t>(op->stream + 1);
    break;
  }
  CHECK(groups_alone(w, t, c).count(CommGroup::tp) == 3);
}

TEST_CASE("own links: not where the fabric reports each transfer or is not path-determined", "[timer]") {
  const Topology t = build_cluster(test::dgx_h100(2));
  Simulation flow(t, SimulationSetup{"flow"});
  CHECK(own_links_apply(flow));
  MemorySink transfers;  // wants each transfer: only the fabric can report them
  flow.recorder().add_sink(transfers);
  CHECK_FALSE(own_links_apply(flow));
  Simulation packet(t, SimulationSetup{"packet"});
  CHECK_FALSE(own_links_apply(packet));
}

// One all-reduce over the first and the last of 64 DGX H100 (16 GPUs: the rings cross the spines),
// as communicator `comm` (the ones before it have one rank: they never launch).
Workload across_spine(uint32_t comm) {
  Workload w;
  w.name = "two hosts";
  std::vector<uint32_t> ranks;
  for (uint32_t g = 0; g < 8; ++g) w.gpu_of_rank.push_back(g);
  for (uint32_t g = 0; g < 8; ++g) w.gpu_of_rank.push_back(8 * 63 + g);
  for (uint32_t r = 0; r < 16; ++r) ranks.push_back(r);
  for (uint32_t k = 0; k < comm; ++k) w.add_communicator({{0}, CommGroup::other});
  w.add_communicator({ranks, CommGroup::dp});
  w.programs.resize(16);
  for (Program& p : w.programs) {
    for (int i = 0; i < 3; ++i) {
      p.add(
          {.kind = OpKind::collective, .collective = CollectiveOp::all_reduce, .comm = comm, .bytes = Bytes(64 << 20)});
    }
  }
  return w;
}

// The isolation key of the all-reduce's plan at `entropy_base`, and its links' count.
std::pair<std::string, size_t> key_and_links(const Workload& w, const Topology& t, const ClusterSpec& c,
                                             uint64_t entropy_base) {
  Simulation sim(t, shared(true));
  SharedFabricTimer unused;
  Replayer replayer(sim.engine(), sim.fabric(), t, c, w, sim.recorder(), unused);
  const Replayer::Upcoming u = replayer.upcoming_collectives().at(0);
  const std::vector<LinkId> links = schedule_links(u.plan->schedule, u.nodes, sim.router(), entropy_base).value();
  return {isolated_time_key(sim, *u.plan, u.nodes, entropy_base), std::set<LinkId>(links.begin(), links.end()).size()};
}

TEST_CASE("own links: the run alone takes the communicator's own ECMP paths", "[timer]") {
  // The only traffic, so alone on its links, across the spines: the step is the same to the picosecond.
  const ClusterSpec c = test::dgx_h100(64);
  const Topology t = build_cluster(c);
  const Workload w = across_spine(1);
  CHECK(groups_alone(w, t, c).count(CommGroup::dp) == 1);
  check_same_step(replay(w, t, c, shared(false)), replay(w, t, c, shared(true)));
  // Its channels hash the communicator's entropy onto the spines (Replayer::comm_entropy), not the
  // stream index alone: other links, so another key for the run alone.
  const auto [own_key, own_links] = key_and_links(w, t, c, Replayer::comm_entropy(1));
  const auto [zero_key, zero_links] = key_and_links(w, t, c, 0);
  CHECK(own_links != zero_links);
  CHECK(own_key != zero_key);
}
