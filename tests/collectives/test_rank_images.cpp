// Rank images (issue 19, item 1): a schedule that looks alike from every rank runs one stream per
// orbit of ranks on the quotient of the flow fabric's links. Proven against the unaggregated run:
// the same time to the picosecond, the same transfers and the same bytes on every link, on
// synthetic switches and rings and on catalogue systems for every op the tuner plans; and the
// fabric refuses what it cannot prove (NVLink stripes, routes that are not images).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "collectives/all_to_all.h"
#include "collectives/executor.h"
#include "collectives/mpi_algorithms.h"
#include "collectives/plan.h"
#include "collectives/rank_images.h"
#include "collectives/ring.h"
#include "collectives/tree.h"
#include "sim/link_quotient.h"
#include "sim/simulation.h"
#include "topologies/builders.h"
#include "topologies/clusters.h"
#include "topologies/systems.h"

using namespace weft;

namespace {

struct Run {
  Time time;
  uint64_t transfers = 0;
  std::vector<std::pair<uint32_t, uint64_t>> wire;  // link, bytes on the wire
  uint32_t images = 1;
};

Run run(const Schedule& schedule, const Topology& t, std::span<const NodeIndex> nodes, bool images) {
  Simulation sim(t, SimulationSetup{"flow"});
  ScheduleExecutor executor(sim.engine(), sim.fabric(), schedule, nodes, sim.recorder());
  if (images) executor.allow_rank_images();
  executor.start();
  sim.run();
  Run out{executor.end_time() - executor.start_time(), sim.fabric().stats().transfers_done, {}, executor.images()};
  for (const LinkStats& l : sim.fabric().link_stats()) out.wire.emplace_back(l.link, l.wire.count());
  return out;
}

// Runs both ways and compares; returns how many ranks each executor stream stood for.
uint32_t check_exact(const Schedule& schedule, const Topology& t, std::span<const NodeIndex> nodes) {
  const Run plain = run(schedule, t, nodes, false);
  const Run images = run(schedule, t, nodes, true);
  INFO(schedule.name << " on " << nodes.size() << " ranks, images " << images.images);
  CHECK(plain.images == 1);
  CHECK(images.time == plain.time);
  CHECK(images.transfers == plain.transfers);
  CHECK(images.wire == plain.wire);
  return images.images;
}

const LinkSpec kLink{LinkKind::generic, Bandwidth::gbps(400), Time::us(1)};

}  // namespace

TEST_CASE("rank images: rings and all-to-alls on one switch run one rank for all, exactly", "[rank_images]") {
  for (uint32_t ranks : {2u, 7u, 8u}) {
    const Topology t = single_switch(ranks, kLink);
    for (uint32_t channels : {1u, 4u}) {
      for (bool simple : {true, false}) {
        RingOptions o;
        o.channels = channels;
        o.simple = simple;
        CHECK(check_exact(ring_all_reduce(ranks, Bytes(3 << 20), o), t, t.gpus()) == ranks);
      }
    }
    CHECK(check_exact(pairwise_all_to_all(ranks, Bytes(1 << 20)), t, t.gpus()) == ranks);
    check_exact(bruck_all_to_all(ranks, Bytes(1 << 20)), t, t.gpus());
    check_exact(tree_all_reduce(ranks, Bytes(1 << 20)), t, t.gpus());
  }
}

TEST_CASE("rank images: one degraded cable breaks the symmetry, and the run falls back", "[rank_images]") {
  Topology t;
  for (uint32_t i = 0; i < 4; ++i) t.add_node({NodeKind::gpu, "gpu" + std::to_string(i)});
  const NodeIndex sw = t.add_node({NodeKind::network_switch, "switch0"});
  for (uint32_t i = 0; i < 4; ++i) {
    LinkSpec link = kLink;
    if (i == 2) link.rate = Bandwidth::gbps(200);  // a port that trained at half rate
    t.add_duplex_link(t.gpus()[i], sw, link);
  }
  CHECK(check_exact(ring_all_reduce(4, Bytes(4 << 20)), t, t.gpus()) == 1);
  CHECK(check_exact(pairwise_all_to_all(4, Bytes(1 << 20)), t, t.gpus()) == 1);
}

TEST_CASE("rank images: a ring of GPUs cabled in a ring", "[rank_images]") {
  const Topology t = ring(6, kLink);
  CHECK(check_exact(ring_all_reduce(6, Bytes(6 << 20)), t, t.gpus()) == 6);
}

TEST_CASE("rank images: catalogue systems, every op the tuner plans, match the unaggregated run", "[rank_images]") {
  struct Case {
    std::string system;
    int nodes;
  };
  uint32_t with_images = 0;
  uint32_t runs = 0;
  for (const Case& c : {Case{"dgx-h100", 1}, Case{"dgx-h100", 2}, Case{"dgx-a100", 2}, Case{"pcie-4090x8", 1},
                        Case{"pcie-4090x8", 2}, Case{"dgx1-v100", 1}}) {
    ClusterSpec spec = system_spec(c.system);
    spec.nodes = c.nodes;
    const Topology t = build_cluster(spec);
    for (CollectiveOp op :
         {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter, CollectiveOp::all_to_all}) {
      for (Bytes size : {Bytes(uint64_t{64} << 10), Bytes(uint64_t{8} << 20)}) {
        INFO(c.system << " x" << c.nodes << " " << to_string(op) << " " << size.count() << " B");
        const CollectivePlan plan = plan_collective(op, size, t, spec);
        with_images += check_exact(plan.schedule, t, t.gpus()) > 1 ? 1 : 0;
        ++runs;
      }
    }
  }
  // 29 of 48 when written: the rings and all-to-alls of one NVSwitch node (8 images) and of the PCIe
  // boxes (2: one per PCIe switch); not NVLS (groups), trees, DGX-1's cube-mesh rings, nor what
  // crosses the network, where ECMP hashes each image's flows onto spines of its own.
  INFO(with_images << " of " << runs << " runs used rank images");
  CHECK(runs == 48);
  CHECK(with_images >= 24);
}

TEST_CASE("rank images: the shift a schedule is invariant under", "[rank_images]") {
  const Schedule ring8 = ring_all_reduce(8, Bytes(1 << 20));
  REQUIRE(rank_shift(ring8, 1));
  CHECK(rank_shift(ring8, 1)->images == 8);
  CHECK(rank_shift(ring8, 2)->images == 4);
  CHECK_FALSE(rank_shift(ring8, 3));  // does not divide 8
  CHECK_FALSE(rank_shift(ring8, 8));
  CHECK_FALSE(rank_shift(tree_all_reduce(8, Bytes(1 << 20)), 1));  // the root is not like a leaf
}

TEST_CASE("rank images: the quotient refuses routes that are not images of one another", "[rank_images]") {
  const Topology t = single_switch(4, kLink);
  Router router(t, 1);
  const auto gpu = [&](uint32_t i) { return t.gpus()[i]; };
  LinkQuotient ring_quotient;
  std::vector<std::vector<Transfer>> ring_orbit{
      {{gpu(0), gpu(1)}, {gpu(1), gpu(2)}, {gpu(2), gpu(3)}, {gpu(3), gpu(0)}}};
  REQUIRE(ring_quotient.build(router, ring_orbit));
  const Path& path = router.route(gpu(2), gpu(3), 0);
  CHECK(ring_quotient.orbit_size(ring_quotient.canonical(path.links[0])) == 4);
  // GPU 0 -> 1 and 0 -> 2 are not images: GPU 0's up-link would map to itself and to GPU 1's.
  LinkQuotient broken;
  std::vector<std::vector<Transfer>> orbits{{{gpu(0), gpu(1)}, {gpu(1), gpu(2)}}, {{gpu(0), gpu(2)}, {gpu(0), gpu(3)}}};
  CHECK_FALSE(broken.build(router, orbits));
  CHECK_FALSE(broken.active());
}
