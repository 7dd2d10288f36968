// Simulation, the composition root: the setup's router options reach the router, isolated runs
// share a side router of their own, and the Recorder's hooks decide what a fabric records.
#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "sim/link_timeline.h"
#include "sim/simulation.h"
#include "tests/fabrics/flow_bench.h"
#include "topologies/builders.h"

using namespace weft;
using weft::testing::two_dgx_h100;

TEST_CASE("Simulation: the setup's PXN reaches the router", "[simulation]") {
  const Topology t = two_dgx_h100();
  const NodeIndex from = t.gpus()[0], to = t.gpus()[8 + 5];  // GPU 0 of node 0 -> GPU 5 of node 1
  SimulationSetup setup;
  Simulation direct(t, setup);
  CHECK(t.link(direct.router().route(from, to, 3).links[0]).kind != LinkKind::nvlink);
  setup.fabric_options.pxn = true;
  Simulation pxn(t, setup);
  const Path& p = pxn.router().route(from, to, 3);
  CHECK(t.link(p.links[0]).kind == LinkKind::nvlink);  // to the GPU on the destination's rail first
  CHECK(t.link_target(p.links[1]) == t.gpus()[5]);
}

TEST_CASE("Simulation::isolated: an engine and a fabric of its own, one side router for all", "[simulation]") {
  const Topology t = single_switch(4, {LinkKind::generic, Bandwidth::gbps(100), Time::us(1)});
  Simulation sim(t, SimulationSetup{"flow", 7});
  std::unique_ptr<Simulation> a = sim.isolated(), b = sim.isolated();
  CHECK(&a->router() == &b->router());
  CHECK(&a->router() != &sim.router());
  CHECK(&a->engine() != &b->engine());
  CHECK(&a->fabric() != &sim.fabric());
  CHECK(a->setup().seed == 7);
  // A run in one leaves the others' clocks alone.
  a->fabric().start({t.gpus()[0], t.gpus()[1], Bytes(1'000'000)}, [] {});
  a->run();
  CHECK(a->engine().now() > Time());
  CHECK(b->engine().now() == Time());
  CHECK(sim.engine().now() == Time());
}

TEST_CASE("Recorder: a link-bytes sink keeps copies on, a transfer sink turns them off", "[simulation]") {
  const Topology t = single_switch(4, {LinkKind::generic, Bandwidth::gbps(100), Time::us(1)});
  Simulation sim(t, SimulationSetup{"flow"});
  CHECK(sim.fabric().runs_copies());
  LinkTimeline timeline(t.link_count());
  sim.recorder().add_sink(timeline);
  CHECK(sim.recorder().wants(Hook::link_bytes));
  CHECK_FALSE(sim.recorder().wants(Hook::transfers));
  CHECK(sim.fabric().runs_copies());
  MemorySink memory;
  sim.recorder().add_sink(memory);
  CHECK(sim.recorder().wants(Hook::transfers));
  CHECK_FALSE(sim.fabric().runs_copies());
  const Path& path = sim.router().route(t.gpus()[0], t.gpus()[2], 0);
  sim.fabric().start({t.gpus()[0], t.gpus()[2], Bytes(1'000'000)}, [] {});
  sim.run();
  REQUIRE(memory.transfers.size() == 1);
  CHECK(memory.transfers[0].end == sim.engine().now());
  for (LinkId l : path.links) CHECK(timeline.total(l) == Approx(1e6));  // generic links: no headers
}

TEST_CASE("Simulation: an unknown fabric fails when the simulation is built", "[simulation]") {
  const Topology t = single_switch(2, {LinkKind::generic, Bandwidth::gbps(100), Time::us(1)});
  CHECK_THROWS_AS(Simulation(t, SimulationSetup{"nosuch"}), ConfigError);
}

TEST_CASE("Simulation::run: its counters leave in a RunRecord, per link when a sink asks", "[simulation]") {
  const Topology t = single_switch(4, {LinkKind::generic, Bandwidth::gbps(100), Time::us(1)});
  SimulationSetup setup{"flow", 1};
  Simulation sim(t, setup);
  RunTotals counters, per_link(/*per_link=*/true);
  sim.recorder().add_sink(counters);
  sim.recorder().add_sink(per_link);
  Transfer transfer;
  transfer.src = t.gpus()[0];
  transfer.dst = t.gpus()[2];
  transfer.bytes = Bytes(1'000'000);
  sim.fabric().start(transfer, [] {});
  sim.run();
  REQUIRE(per_link.runs == 1);
  const RunRecord& r = per_link.last;
  CHECK(r.fabric.transfers_done == 1);
  CHECK(r.fabric.bytes_delivered == Bytes(1'000'000));
  CHECK(r.events == sim.engine().events_processed());
  CHECK(r.end == sim.engine().now());
  const std::vector<LinkStats> links = sim.fabric().link_stats();
  REQUIRE(r.links.size() == links.size());
  for (size_t i = 0; i < links.size(); ++i) {
    CHECK(r.links[i].link == links[i].link);
    CHECK(r.links[i].wire == links[i].wire);
  }
  // A sink that asked for the record alone shares it, links and all: the run made one record.
  CHECK(counters.runs == 1);
  CHECK(counters.last.fabric.transfers_done == 1);
}
