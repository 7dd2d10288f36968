// The packet-level fabric against closed forms (goodput, pacing, forwarding) and the flow fabric;
// its behaviour under congestion is in test_packet_congestion.cpp.
#include <fmt/format.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>

#include "collectives/ring.h"
#include "collectives/simulate.h"
#include "sim/core/errors.h"
#include "sim/core/rng.h"
#include "sim/fabric_registry.h"
#include "sim/packet/packet_fabric.h"
#include "tests/one_gpu_hosts.h"
#include "tests/packet_runs.h"
#include "topologies/builders.h"
#include "topologies/catalogue/links.h"
#include "topologies/clusters.h"
#include "topologies/systems.h"

using namespace weft;
using namespace weft::testing;  // packet_runs.h: links, flows, incast

TEST_CASE("packet: one RoCEv2 flow gets the header-arithmetic goodput", "[packet][validation]") {
  // 100 Gb/s, 1 us per link, one switch. A packet of MTU bytes costs MTU + 82 B on the wire
  // (Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble 8 + IFG 12), so goodput is
  // 1024/1106 = 92.6 % at MTU 1024 and 4096/4178 = 98.0 % at MTU 4096. The flow ends after its
  // packets have crossed the first link back to back, plus one packet on the second link and 2 us.
  for (uint32_t mtu : {1024u, 4096u}) {
    Topology t = single_switch(2, roce(100, mtu, Time::us(1)));
    const uint64_t bytes = 20'000'000;
    Run r = run_flows(t, {{t.gpus()[1], t.gpus()[0], bytes, Time()}}, packet::packet_profile("roce"));
    double packet_time = (mtu + 82) * 8 / 100e9;
    double streaming = seconds(r.makespan) - 2e-6 - packet_time;
    double goodput = bytes * 8 / streaming / 100e9;
    CHECK(goodput == Approx(double(mtu) / (mtu + 82)).epsilon(0.002));
    CHECK(r.stats.drops == 0);
    CHECK(r.stats.bytes_delivered == Bytes(bytes));
  }
}

TEST_CASE("packet: agrees with flow on uncongested transfers and a ring all-reduce", "[packet][validation]") {
  Topology t = single_switch(8, roce(100, 4096, Time::us(1)));
  for (uint64_t bytes : {1'000'000ULL, 64'000'000ULL}) {
    Schedule ring = ring_all_reduce(8, Bytes(bytes), {});
    double flow = simulate(ring, t, {"flow"}).time.seconds();
    double pkt = simulate(ring, t, {"packet"}).time.seconds();
    CHECK(pkt == Approx(flow).epsilon(0.03));
  }
  // GPU -> PCIe -> NIC -> switch: credits, then PFC.
  Topology cluster = build_cluster(testing::one_gpu_hosts(4, NetworkShape::single_switch));
  Schedule ring = ring_all_reduce(4, Bytes(16'000'000), {});
  double flow = simulate(ring, cluster, {"flow"}).time.seconds();
  double pkt = simulate(ring, cluster, {"packet"}).time.seconds();
  CHECK(pkt == Approx(flow).epsilon(0.03));
}

TEST_CASE("packet: a sender's limit holds its bytes as a fluid, first packet included", "[packet]") {
  // NDR InfiniBand (400 Gb/s), 1 us per link, one switch; transfers of one 4 KiB packet limited to
  // 10 Gb/s (a channel's speed), as flow holds them: the packet's last byte leaves the sender at
  // 4096 * 8 / 10 Gb/s = 3.2768 us, then 1 us, at most the packet once more at 400 Gb/s and
  // 1 us. Two on one queue pair (same entropy): the second goes on from the first's limit clock and
  // leaves at 6.5536 us. (Before, an unpaced first packet left at line rate: 0.08 us.)
  Topology t = single_switch(2, ib_ndr(Time::us(1)));
  Engine engine;
  Router router(t, RouterOptions{});
  Recorder recorder;
  PacketFabric fabric(engine, router, recorder, packet::packet_profile("ib"), /*check_invariants=*/true);
  std::vector<Time> ends(2, Time::max());
  for (uint64_t i = 0; i < 2; ++i) {
    Transfer tr{t.gpus()[0], t.gpus()[1], Bytes(4096), 0, /*entropy=*/7, i};
    tr.max_rate = 10'000'000'000;
    fabric.start(tr, [&ends, &engine, i] { ends[i] = engine.now(); });
  }
  fabric.run(engine);
  const double hop = 4200.0 * 8 / 400e9;  // at most: a 4 KiB packet with its headers at 400 Gb/s
  for (size_t i = 0; i < 2; ++i) {
    const double left = (i + 1) * 3.2768e-6;
    CHECK(seconds(ends[i]) >= left + 2e-6);
    CHECK(seconds(ends[i]) <= left + 2e-6 + hop);
  }
}

TEST_CASE("packet: credits that come back while the port sends cost no event of their own", "[packet]") {
  // InfiniBand links use credits. One long transfer keeps the sender's port busy, so each credit
  // return waits in CreditState until the port looks (the end of a serialisation) instead of
  // waking it: per packet and hop, the end of its serialisation and its arrival, where an event
  // per return made it three.
  Topology t = single_switch(2, LinkSpec{LinkKind::infiniband, Bandwidth::gbps(400), Time::us(1)});
  Run r = run_flows(t, {{t.gpus()[1], t.gpus()[0], 64'000'000, Time()}}, packet::packet_profile("ib"));
  REQUIRE(r.stats.packet_hops > 30'000);
  CHECK(r.events >= 2 * r.stats.packet_hops);
  CHECK(r.events < 2.1 * static_cast<double>(r.stats.packet_hops));
}

TEST_CASE("packet: same seed, same completion times", "[packet]") {
  Topology t = single_switch(9, roce(100, 4096, Time::us(1)));
  std::vector<Flow> flows = incast(t, 8, 1'000'000);
  Run a = run_flows(t, flows, packet::packet_profile("roce"));
  Run b = run_flows(t, flows, packet::packet_profile("roce"));
  CHECK(a.finish == b.finish);
  CHECK(a.stats.ecn_marks == b.stats.ecn_marks);
  CHECK(a.stats.cnps == b.stats.cnps);
}

TEST_CASE("packet: bad input is a ConfigError naming what is wrong", "[packet]") {
  Topology t = single_switch(2, roce(100, 4096, Time::us(1)));
  Engine engine;
  Router router(t, 1);
  Recorder recorder;
  packet::PacketConfig config = packet::packet_profile("roce");
  config.pfc.headroom = Bytes(1000);
  CHECK_THROWS_WITH(PacketFabric(engine, router, recorder, config), Catch::Contains("headroom"));
  config = packet::packet_profile("ib");
  config.credits.buffer_per_vl = Bytes(1024);
  Topology ib = single_switch(2, ib_ndr(Time::us(1)));
  Router ib_router(ib, 1);
  CHECK_THROWS_WITH(PacketFabric(engine, ib_router, recorder, config), Catch::Contains("buffer_per_vl"));
  LinkSpec jumbo = roce(100, 4096, Time::us(1));
  jumbo.mtu = 9000;
  Topology big = single_switch(2, jumbo);
  Router big_router(big, 1);
  CHECK_THROWS_WITH(PacketFabric(engine, big_router, recorder, packet::packet_profile("roce")),
                    Catch::Contains("MTU 9000"));
  PacketFabric fabric(engine, router, recorder, packet::packet_profile("roce"));
  CHECK_THROWS_WITH(fabric.start({t.gpus()[0], t.gpus()[1], Bytes(1), 9, 0, 0}, [] {}), Catch::Contains("priority 9"));
}

// Slow (about 10 s): runs under the `slow` label (ctest validation.slow), not in the unit list.
TEST_CASE("packet: ECMP collisions slow a permutation; per-packet spraying avoids them", "[.slow][packet]") {
  // 1,024 hosts on a 3-tier k=16 fat-tree at 100 Gb/s, a random permutation of 2 MB flows. Alone, a
  // flow takes 2 MB / (100 Gb/s x 4096/4178) = 163 us plus its path latency. With one ECMP path per
  // flow, hashed flows collide on uplinks and the slowest takes several times that; spraying every
  // packet over all equal-cost paths keeps the slowest within 2x (htsim: 167-1259 us vs 167-311 us).
  // Congestion control is off, as in that htsim comparison: what differs is the routing alone.
  Topology t = build_cluster(testing::one_gpu_hosts(1024, NetworkShape::fat_tree, 16));
  Rng rng(7, "permutation");
  std::vector<uint32_t> dst(1024);
  for (uint32_t i = 0; i < 1024; ++i) dst[i] = i;
  for (uint32_t i = 1023; i > 0; --i) std::swap(dst[i], dst[rng.uniform_below(i)]);  // Sattolo: one cycle
  std::vector<Flow> flows;
  for (uint32_t i = 0; i < 1024; ++i) flows.push_back({t.gpus()[i], t.gpus()[dst[i]], 2'000'000, Time()});
  const double alone = 2e6 * 8 / (100e9 * 4096 / 4178);
  packet::PacketConfig config = packet::packet_profile("roce-paper");
  config.dcqcn.enabled = false;
  Run ecmp = run_flows(t, flows, config, RouterOptions{.seed = 1});
  Run spray = run_flows(t, flows, config, RouterOptions{.seed = 1, .policy = RoutingPolicy::spray});
  CHECK(seconds(ecmp.makespan) > 2.5 * alone);
  CHECK(seconds(spray.makespan) < 2.0 * alone);
  CHECK(ecmp.stats.drops == 0);
  CHECK(spray.stats.bytes_delivered == Bytes(1024ULL * 2'000'000));
}

TEST_CASE("packet: DCTCP over lossy Ethernet delivers an incast", "[packet]") {
  // The "tcp" profile: window-based senders, ECN at a single threshold, drops and go-back-N.
  Topology t = single_switch(9, roce(25, 1024, Time::us(1)));
  packet::PacketConfig config = packet::packet_profile("tcp");
  Run r = run_flows(t, incast(t, 8, 1'000'000), config);
  CHECK(r.stats.bytes_delivered == Bytes(8'000'000));
  CHECK(r.stats.ecn_marks > 0);
  CHECK(r.stats.pause_frames == 0);
  CHECK(seconds(r.makespan) < 2.0 * 8e6 * 8 / (25e9 * 1024 / 1106));
}

TEST_CASE("packet: queue samples and per-link counters reach the caller", "[packet]") {
  Topology t = single_switch(5, roce(100, 4096, Time::us(1)));
  packet::PacketConfig config = packet::packet_profile("roce-paper");
  config.queue_sample_interval = Time::us(10);
  Engine engine;
  Router router(t, 1);
  Recorder recorder;
  MemorySink sink;
  recorder.add_sink(sink);
  PacketFabric fabric(engine, router, recorder, config, true);
  for (int i = 1; i <= 4; ++i) fabric.start({t.gpus()[i], t.gpus()[0], Bytes(2'000'000), 0, uint64_t(i), 0}, [] {});
  fabric.run(engine);
  // 4 x 2 MB into one 100 Gb/s port: the switch's port to gpu0 queues, and is sampled every 10 us.
  REQUIRE_FALSE(sink.queue_samples.empty());
  LinkId down = router.route(t.gpus()[1], t.gpus()[0], 1).links[1];
  bool sampled = false;
  for (const QueueSample& s : sink.queue_samples) sampled |= s.link == down && s.queued > Bytes();
  CHECK(sampled);
  CHECK(sink.transfers.size() == 4);
  uint64_t packets_down = 0;
  for (const LinkStats& l : fabric.link_stats()) {
    if (l.link == down) packets_down = l.packets;
  }
  CHECK(packets_down == 4 * ((2'000'000 + 4095) / 4096));  // every data packet crossed it once
}

TEST_CASE("packet: NVLink/PCIe switches forward cut-through: a small transfer pays no store-and-forward",
          "[packet][validation]") {
  // GPU -> switch -> GPU over 400 Gb/s host links with 1 us each. A fluid transfer takes
  // bytes / rate + 2 us. Whole 4 KiB segments stored at the switch would add one segment's
  // serialisation (a whole 4 KiB transfer's time again); host paths cut a transfer into at least 32
  // segments of 256 B to 4 KiB, so the switch adds one such segment's serialisation at most.
  const Topology t = single_switch(2, {LinkKind::generic, Bandwidth::gbps(400), Time::us(1)});
  for (uint64_t bytes : {4096ULL, 16384ULL, 1ULL << 20}) {
    const Run r = run_flows(t, {{t.gpus()[0], t.gpus()[1], bytes, Time()}}, packet::packet_profile("roce"));
    const double serialise = bytes * 8 / 400e9;
    INFO(bytes << " B: " << r.makespan.microseconds() << " us");
    CHECK(seconds(r.makespan) >= serialise + 2e-6);
    const double segment = std::max<uint64_t>(256, (bytes + 31) / 32) * 8 / 400e9;  // 256 B at the least
    CHECK(seconds(r.makespan) <= serialise + segment + 2e-6 + 1e-9);
  }
}

TEST_CASE("packet: a network switch forwards cut-through once the header is in", "[packet][validation]") {
  // NDR InfiniBand, 1 us per link, one switch; one packet of 4 KiB. Its last byte reaches the far
  // host after 1 us, the header's serialisation (the switch starts the next link then), the whole
  // packet's serialisation on the second link and 1 us. Stored and forwarded, it would pay the
  // packet's serialisation twice.
  const Topology t = single_switch(2, ib_ndr(Time::us(1)));
  const LinkProps& link = t.link(0);
  const double packet = (4096.0 + link.header_bytes) * 8 / static_cast<double>(link.rate.bps());
  const double header = link.header_bytes * 8.0 / static_cast<double>(link.rate.bps());
  packet::PacketConfig config = packet::packet_profile("ib");
  const Run cut = run_flows(t, {{t.gpus()[0], t.gpus()[1], 4096, Time()}}, config);
  CHECK(seconds(cut.makespan) == Approx(2e-6 + header + packet).epsilon(1e-6));
  config.switches.cut_through = false;
  const Run stored = run_flows(t, {{t.gpus()[0], t.gpus()[1], 4096, Time()}}, config);
  CHECK(seconds(stored.makespan) == Approx(2e-6 + 2 * packet).epsilon(1e-6));
}

// NCCL sends nothing peer-to-peer across a host bridge, so what crosses a CPU is in host memory. Two
// 2-socket boxes without P2P, one NIC on socket 0: the far socket's traffic to and from the network
// and the SHM hairpins share the root ports. Held in the CPU's input buffers, they tied both
// directions of a root port's link into one PFC cycle through the switch (a deadlock at 10 ms).
TEST_CASE("packet: a CPU takes packets into host memory: no-P2P boxes exchange all-to-all", "[packet]") {
  ClusterSpec spec = system_spec("pcie-3090x8-nvlink");
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  const std::vector<NodeIndex>& gpus = t.gpus();
  std::vector<Flow> flows;
  for (NodeIndex src : gpus) {
    for (NodeIndex dst : gpus) {
      if (src != dst) flows.push_back({src, dst, 4u << 20, Time()});
    }
  }
  Run run;
  REQUIRE_NOTHROW(run = run_flows(t, flows, packet::packet_profile("roce")));  // a deadlock throws ModelError
  CHECK_FALSE(run.stats.deadlocked);
  CHECK(run.stats.drops == 0);
  // Each NIC sends 8 x 8 x 4 MiB at 100 Gbit/s at best (268 MB at 12.5 GB/s = 21.5 ms).
  CHECK(run.makespan.microseconds() > 21'474.0);
}
