// The SimGrid fabric against closed forms and against the flow fabric. SimGrid's engine exists once
// per process: ctest runs every TEST_CASE in a process of its own; a direct run of several
// ("weft_tests [simgrid]") runs the first and skips the simulations of the others with a warning.
#ifdef WEFT_HAVE_SIMGRID

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/ring.h"
#include "collectives/simulate.h"
#include "sim/core/errors.h"
#include "sim/fabric_registry.h"
#include "sim/simgrid_fabric.h"
#include "topologies/builders.h"

using namespace weft;

namespace {

bool simgrid_taken() {
  if (!simgrid_fabric_used()) return false;
  WARN("skipped: SimGrid already ran in this process (one simulation per process; ctest runs each test alone)");
  return true;
}

LinkSpec link(uint64_t gbps, Time latency) { return {LinkKind::generic, Bandwidth::gbps(gbps), latency}; }

// One simulation driven by hand: engine, router and a named fabric over `topology`, every transfer
// recorded.
struct Bench {
  Bench(Topology t, std::string_view fabric_name) : topology(std::move(t)), router(topology, 1) {
    recorder.add_sink(sink);
    fabric = make_fabric(fabric_name, engine, router, recorder);
  }
  void send(uint32_t from, uint32_t to, uint64_t bytes, Time at = Time()) {
    engine.schedule_at(at, [this, from, to, bytes] {
      fabric->start({topology.gpus()[from], topology.gpus()[to], Bytes(bytes), 0, from}, [] {});
    });
  }
  // Transfer end times in ps, by tag order of arrival.
  std::vector<int64_t> ends() const {
    std::vector<int64_t> out;
    for (const TransferRecord& r : sink.transfers) out.push_back(r.end.ps());
    return out;
  }
  Topology topology;
  Engine engine;
  Router router;
  Recorder recorder;
  MemorySink sink;
  std::unique_ptr<Fabric> fabric;
};

// Two-tier leaf-spine built by hand: `leaves` leaf switches with `gpus_per_leaf` GPUs each, every
// leaf cabled to every spine. GPU g sits on leaf g / gpus_per_leaf.
Topology leaf_spine(uint32_t leaves, uint32_t gpus_per_leaf, uint32_t spines, const LinkSpec& spec) {
  Topology t;
  for (uint32_t g = 0; g < leaves * gpus_per_leaf; ++g) t.add_node({NodeKind::gpu, "gpu" + std::to_string(g)});
  std::vector<NodeIndex> leaf;
  for (uint32_t l = 0; l < leaves; ++l) {
    NodeProps props{NodeKind::network_switch, "leaf" + std::to_string(l)};
    props.tier = 1;
    leaf.push_back(t.add_node(props));
  }
  for (uint32_t s = 0; s < spines; ++s) {
    NodeProps props{NodeKind::network_switch, "spine" + std::to_string(s)};
    props.tier = 2;
    NodeIndex spine = t.add_node(props);
    for (NodeIndex l : leaf) t.add_duplex_link(l, spine, spec);
  }
  for (uint32_t g = 0; g < leaves * gpus_per_leaf; ++g) t.add_duplex_link(t.gpus()[g], leaf[g / gpus_per_leaf], spec);
  return t;
}

}  // namespace

TEST_CASE("simgrid: a ring all-reduce matches flow and 2(n-1)(α_step + S/(nB)) within 1 %", "[simgrid]") {
  if (simgrid_taken()) return;
  // 8 ranks on one switch, 400 Gb/s and 1 µs per link, one loop (each step moves S/n). In every
  // step every rank sends S/n over its uplink and its successor's downlink, each link carrying that
  // one flow, so a step takes the 2-hop latency plus one block at the link rate:
  //   T = 2(n-1) (2 µs + S/(n B)) = 14 (2 µs + 8 MiB · 8 / 400 Gb/s) = 14 · 169.77216 µs = 2376.81024 µs.
  // SimGrid (CM02) charges the latency before the bytes, flow after them: same step time.
  const uint32_t n = 8;
  const uint64_t size = 64ULL << 20;
  const Topology topology = single_switch(n, link(400, Time::us(1)));
  const Schedule schedule = ring_all_reduce(n, Bytes(size), {1, Bytes(size), 0, false});  // whole blocks
  const SimulationResult flow = simulate(schedule, topology, {"flow", 1, {}});
  const SimulationResult sg = simulate(schedule, topology, {"simgrid", 1, {}});
  const double expected = 2376.81024e-6;
  CHECK(flow.time.seconds() == Approx(expected).epsilon(0.01));
  CHECK(sg.time.seconds() == Approx(expected).epsilon(0.01));
  CHECK(sg.time.seconds() == Approx(flow.time.seconds()).epsilon(0.01));
  CHECK(sg.transfers == flow.transfers);
  CHECK(sg.fabric.transfers_started == sg.fabric.transfers_done);
  CHECK(sg.fabric.bytes_delivered == flow.fabric.bytes_delivered);
}

TEST_CASE("simgrid: a 12-to-1 incast across a leaf-spine matches flow within 1 %", "[simgrid]") {
  if (simgrid_taken()) return;
  // 4 leaves x 4 GPUs, 2 spines, 100 Gb/s and 1 µs per link. GPU 0 receives 10 MB from each of the
  // 12 GPUs on leaves 1-3 (4 hops: GPU-leaf-spine-leaf-GPU; ECMP picks the spine). Each leaf has 2
  // uplinks for its 4 senders and leaf 0 two downlinks from the spines, so the receiver's downlink
  // is the only bottleneck: each flow gets 100/12 Gb/s and all arrive together at
  //   12 · 10 MB · 8 / 100 Gb/s + 4 µs = 9600 µs + 4 µs = 9604 µs.
  const uint64_t bytes = 10'000'000;
  auto run = [&](std::string_view fabric) {
    Bench b(leaf_spine(4, 4, 2, link(100, Time::us(1))), fabric);
    for (uint32_t g = 4; g < 16; ++g) b.send(g, 0, bytes);
    b.fabric->run(b.engine);
    FabricStats s = b.fabric->stats();
    CHECK(s.transfers_started == 12);
    CHECK(s.transfers_done == 12);
    CHECK(s.bytes_delivered.count() == 12 * bytes);
    return b.ends();
  };
  const std::vector<int64_t> flow = run("flow");
  const std::vector<int64_t> sg = run("simgrid");
  REQUIRE(flow.size() == 12);
  REQUIRE(sg.size() == 12);
  const double expected = 9604e-6;
  for (size_t i = 0; i < 12; ++i) {
    CHECK(static_cast<double>(flow[i]) * 1e-12 == Approx(expected).epsilon(0.01));
    CHECK(static_cast<double>(sg[i]) * 1e-12 == Approx(expected).epsilon(0.01));
  }
  CHECK(static_cast<double>(*std::max_element(sg.begin(), sg.end())) ==
        Approx(static_cast<double>(*std::max_element(flow.begin(), flow.end()))).epsilon(0.01));
}

TEST_CASE("simgrid: rates are re-shared when a competitor leaves", "[simgrid]") {
  if (simgrid_taken()) return;
  // As in test_flow_fabric: A sends 10 MB from GPU 0 at 0, B 1 MB from GPU 1 at 100 µs, both into
  // GPU 2 at 400 Gb/s. CM02: A's bytes flow from 2 µs (its latency first), alone until B's flow from
  // 102 µs: A has sent 4e7 of 8e7 bits. Then 200 Gb/s each: B's 8e6 bits end at 142 µs; A's last
  // 3.2e7 bits at 400 Gb/s end at 222 µs. Flow (latency after the bytes) gives the same two times.
  // SimGrid's times are exact to its surf/precision (1e-9 s): within 1 ns.
  Bench b(single_switch(3, link(400, Time::us(1))), "simgrid");
  b.send(0, 2, 10'000'000);
  b.send(1, 2, 1'000'000, Time::us(100));
  b.fabric->run(b.engine);
  REQUIRE(b.sink.transfers.size() == 2);
  CHECK(b.sink.transfers[0].src == b.topology.gpus()[1]);
  CHECK(b.sink.transfers[0].start == Time::us(100));
  CHECK(std::abs(b.sink.transfers[0].end.ps() - Time::us(142).ps()) <= 1000);
  CHECK(std::abs(b.sink.transfers[1].end.ps() - Time::us(222).ps()) <= 1000);
}

TEST_CASE("simgrid: a queue pair's transfers arrive in order", "[simgrid]") {
  if (simgrid_taken()) return;
  // Three transfers on one queue pair (same src, same entropy), the big one first: they enter
  // SimGrid one at a time, each when the previous one's last byte left, so they arrive in the order
  // they were started, 2 µs of path latency after their own last byte, as in flow: the bytes end at
  // 200, 220 and 222 µs, the transfers arrive at 202, 222 and 224 µs.
  Bench b(single_switch(2, link(400, Time::us(1))), "simgrid");
  for (uint64_t bytes : {10'000'000, 1'000'000, 100'000}) {
    b.engine.schedule_at(Time(), [&b, bytes] {
      b.fabric->start({b.topology.gpus()[0], b.topology.gpus()[1], Bytes(bytes), 0, 7, bytes}, [] {});
    });
  }
  b.fabric->run(b.engine);
  REQUIRE(b.sink.transfers.size() == 3);
  const int64_t expected_us[] = {202, 222, 224};
  const uint64_t expected_tag[] = {10'000'000, 1'000'000, 100'000};
  for (size_t i = 0; i < 3; ++i) {
    CHECK(b.sink.transfers[i].tag == expected_tag[i]);
    CHECK(std::abs(b.sink.transfers[i].end.ps() - Time::us(expected_us[i]).ps()) <= 1000);
  }
}

TEST_CASE("simgrid: a sender's rate limit is its own, as in flow", "[simgrid]") {
  if (simgrid_taken()) return;
  // GPUs 0 and 1 each send 1 MB to GPU 2 over 400 Gb/s links, each limited to 100 Gb/s (a channel's
  // speed): the limit is the sender's, not shared with the other sender of the same limit, so each
  // drains its 8e6 bits in 80 µs and arrives 2 µs (two hops) later. A third, limited to 150 Gb/s,
  // from GPU 3 to GPU 4 drains in 53.333 µs. (SimGrid 3.32 aborted on Comm::set_rate here.)
  Bench b(single_switch(5, link(400, Time::us(1))), "simgrid");
  auto capped = [&b](uint32_t from, uint32_t to, uint64_t gbps) {
    b.engine.schedule_at(Time(), [&b, from, to, gbps] {
      Transfer t{b.topology.gpus()[from], b.topology.gpus()[to], Bytes(1'000'000), 0, from, from};
      t.max_rate = gbps * 1'000'000'000;
      b.fabric->start(t, [] {});
    });
  };
  capped(0, 2, 100);
  capped(1, 2, 100);
  capped(3, 4, 150);
  b.fabric->run(b.engine);
  REQUIRE(b.sink.transfers.size() == 3);
  for (const TransferRecord& r : b.sink.transfers) {
    const int64_t expected = r.tag == 3 ? Time::ns(55'333).ps() + 333 : Time::us(82).ps();
    CHECK(std::abs(r.end.ps() - expected) <= 1000);
  }
}

TEST_CASE("simgrid: an exception in a completion leaves run() as it was thrown", "[simgrid]") {
  if (simgrid_taken()) return;
  // The first transfer's callback throws while the second is still in SimGrid: run() stops and
  // rethrows; nothing unwinds through SimGrid.
  Bench b(single_switch(3, link(100, Time::us(1))), "simgrid");
  b.engine.schedule_at(Time(), [&b] {
    b.fabric->start({b.topology.gpus()[0], b.topology.gpus()[2], Bytes(1000)},
                    [] { throw std::runtime_error("from a callback"); });
    b.fabric->start({b.topology.gpus()[1], b.topology.gpus()[2], Bytes(100'000'000)}, [] {});
  });
  CHECK_THROWS_WITH(b.fabric->run(b.engine), "from a callback");
  CHECK(b.fabric->stats().transfers_done == 1);
}

TEST_CASE("simgrid: a second simgrid fabric in one process throws", "[simgrid]") {
  const Topology topology = single_switch(2, link(100, Time::us(1)));
  Engine engine;
  Router router(topology, 1);
  Recorder recorder;
  std::optional<SimGridFabric> first;
  if (!simgrid_fabric_used()) {
    first.emplace(engine, router, recorder);
    // Left in SimGrid, never run: the destructor cancels it quietly.
    first->start({topology.gpus()[0], topology.gpus()[1], Bytes(1000)}, [] {});
  }
  CHECK(simgrid_fabric_used());
  CHECK_THROWS_AS(SimGridFabric(engine, router, recorder), ModelError);
  CHECK_THROWS_WITH(make_fabric("simgrid", engine, router, recorder),
                    Catch::Contains("once per process") && Catch::Contains("singleton"));
}

#endif  // WEFT_HAVE_SIMGRID
