// The packet-level fabric against closed forms and the phenomena it must reproduce (PFC, ECN and
// DCQCN, credits, drops and retransmission, deadlock), and against the flow fabric.
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
#include "topologies/builders.h"
#include "topologies/catalogue/links.h"
#include "topologies/clusters.h"

using namespace weft;

namespace {

LinkSpec roce(int gbps, uint32_t mtu, Time latency) {
  LinkSpec link = catalogue::ethernet_link(gbps, mtu);
  link.latency = latency;
  return link;
}

LinkSpec ib_ndr(Time latency) {
  LinkSpec link = catalogue::infiniband_link("ndr");
  link.latency = latency;
  return link;
}

struct Flow {
  NodeIndex src, dst;
  uint64_t bytes;
  Time start;
  uint8_t priority = 0;
};

struct Run {
  std::vector<Time> finish;  // per flow
  FabricStats stats;
  Time makespan;
};

// Runs flows on a packet fabric over `t` and returns when each finished.
Run run_flows(const Topology& t, const std::vector<Flow>& flows, packet::PacketConfig config,
              RouterOptions routing = {}) {
  Engine engine;
  Router router(t, routing);
  Recorder recorder;
  PacketFabric fabric(engine, router, recorder, std::move(config), /*check_invariants=*/true);
  Run run;
  run.finish.assign(flows.size(), Time::max());
  for (size_t i = 0; i < flows.size(); ++i) {
    engine.schedule_at(flows[i].start, [&, i] {
      Transfer tr{flows[i].src, flows[i].dst, Bytes(flows[i].bytes), flows[i].priority, i, i};
      fabric.start(tr, [&, i] { run.finish[i] = engine.now(); });
    });
  }
  fabric.run(engine);
  run.stats = fabric.stats();
  run.makespan = *std::max_element(run.finish.begin(), run.finish.end());
  return run;
}

std::vector<Flow> incast(const Topology& t, int senders, uint64_t bytes) {
  std::vector<Flow> flows;
  for (int i = 1; i <= senders; ++i) flows.push_back({t.gpus()[i], t.gpus()[0], bytes, Time()});
  return flows;
}

double seconds(Time t) { return t.seconds(); }

}  // namespace

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

TEST_CASE("packet: 16-to-1 incast with PFC is lossless; without PFC it drops and retransmits", "[packet][validation]") {
  Topology t = single_switch(17, roce(100, 4096, Time::us(1)));
  const uint64_t bytes = 2'000'000;
  // The receiver's link drains 16 x 2 MB at 100 Gb/s x 4096/4178: 2.61 ms at best.
  const double ideal = 16.0 * bytes * 8 / (100e9 * 4096 / 4178);
  SECTION("PFC on") {
    packet::PacketConfig config = packet::packet_profile("roce");
    config.dcqcn.enabled = false;  // the pauses alone hold the senders back
    config.switches.buffer = Bytes(4'000'000);
    Run r = run_flows(t, incast(t, 16, bytes), config);
    CHECK(r.stats.drops == 0);
    CHECK(r.stats.transfers_done == 16);
    CHECK(r.stats.bytes_delivered == Bytes(16 * bytes));
    CHECK(r.stats.pause_frames > 0);
    CHECK(r.stats.paused_time > Time());
    CHECK(seconds(r.makespan) == Approx(ideal).epsilon(0.02));
  }
  SECTION("PFC off, small buffer: drops, and go-back-N still delivers every byte") {
    packet::PacketConfig config = packet::packet_profile("roce-lossy");
    config.dcqcn.enabled = false;
    config.switches.buffer = Bytes(300'000);
    config.lossy.rto = Time::us(200);
    Run r = run_flows(t, incast(t, 16, bytes), config);
    CHECK(r.stats.drops > 0);
    CHECK(r.stats.retransmits > 0);
    CHECK(r.stats.pause_frames == 0);
    CHECK(r.stats.bytes_delivered == Bytes(16 * bytes));
  }
  SECTION("PFC off with selective repeat: fewer retransmissions than go-back-N") {
    packet::PacketConfig config = packet::packet_profile("roce-lossy");
    config.dcqcn.enabled = false;
    config.switches.buffer = Bytes(300'000);
    config.lossy.rto = Time::us(200);
    Run gbn = run_flows(t, incast(t, 16, bytes), config);
    config.lossy.mode = packet::Retransmit::selective;
    Run sr = run_flows(t, incast(t, 16, bytes), config);
    CHECK(sr.stats.bytes_delivered == Bytes(16 * bytes));
    CHECK(sr.stats.retransmits < gbn.stats.retransmits);
  }
}

TEST_CASE("packet: DCQCN shares a bottleneck fairly and keeps the queue below PFC", "[packet][validation]") {
  // Two senders, one receiver, 100 Gb/s, the DCQCN paper's parameters (Kmin 12.5 KB, Kmax 500 KB at
  // 100 Gb/s). With DCQCN the two equal flows finish within 10 % of each other, the link stays busy
  // (600 MB at 98 Gb/s = 49 ms ideal), the queue stays near the marking band and the switch never
  // pauses; without it the queue climbs to XOFF and PFC pauses.
  Topology t = single_switch(3, roce(100, 4096, Time::us(1)));
  std::vector<Flow> flows = {{t.gpus()[1], t.gpus()[0], 300'000'000, Time()},
                             {t.gpus()[2], t.gpus()[0], 300'000'000, Time()}};
  packet::PacketConfig config = packet::packet_profile("roce-paper");
  config.pfc.dynamic = false;
  config.pfc.xoff = Bytes(3'000'000);
  Run with = run_flows(t, flows, config);
  CHECK(with.stats.cnps > 0);
  CHECK(with.stats.pause_frames == 0);
  CHECK(with.stats.max_queue.count() < 1.5 * config.ecn.kmax(Bandwidth::gbps(100)).count());
  double a = seconds(with.finish[0]), b = seconds(with.finish[1]);
  CHECK(std::min(a, b) / std::max(a, b) > 0.9);
  CHECK(seconds(with.makespan) < 1.1 * 600e6 * 8 / (100e9 * 4096 / 4178));
  config.dcqcn.enabled = false;
  Run without = run_flows(t, flows, config);
  CHECK(without.stats.pause_frames > 0);
  CHECK(without.stats.max_queue >= config.pfc.xoff);
}

TEST_CASE("packet: PFC spreads congestion to a victim; DCQCN lets it recover", "[packet][validation]") {
  // Hosts a, b, victim on switch s1; receivers r and v on s2; s1 -> s2 is 400 Gb/s, the rest 100.
  // a and b send to r (200 Gb/s into one 100 Gb/s port): s2 pauses s1 -> s2, which also carries the
  // victim's flow to v. The victim's ideal is 10 MB at 98 Gb/s ~ 0.82 ms.
  Topology t;
  auto host = [&](const char* name) { return t.add_node({NodeKind::gpu, name}); };
  NodeIndex a = host("a"), b = host("b"), victim = host("victim"), r = host("r"), v = host("v");
  NodeIndex s1 = t.add_node({NodeKind::network_switch, "s1"}), s2 = t.add_node({NodeKind::network_switch, "s2"});
  LinkSpec edge = roce(100, 4096, Time::us(1));
  for (NodeIndex h : {a, b, victim}) t.add_duplex_link(h, s1, edge);
  for (NodeIndex h : {r, v}) t.add_duplex_link(h, s2, edge);
  t.add_duplex_link(s1, s2, roce(400, 4096, Time::us(1)));
  std::vector<Flow> flows = {{a, r, 20'000'000, Time()}, {b, r, 20'000'000, Time()}, {victim, v, 10'000'000, Time()}};
  packet::PacketConfig config = packet::packet_profile("roce-paper");  // 32 MB buffer: XOFF ~4 MB
  config.dcqcn.enabled = false;
  Run spread = run_flows(t, flows, config);
  config.dcqcn.enabled = true;
  Run recovered = run_flows(t, flows, config);
  const double ideal = 10e6 * 8 / (100e9 * 4096 / 4178);
  CHECK(spread.stats.pause_frames > 0);
  CHECK(seconds(spread.finish[2]) > 1.5 * ideal);  // held back by pauses meant for r's senders
  CHECK(recovered.finish[2] < spread.finish[2]);   // DCQCN slows a and b before PFC must act
  CHECK(recovered.stats.pause_frames < spread.stats.pause_frames);
}

TEST_CASE("packet: InfiniBand credits bound throughput by credits over the credit loop", "[packet][validation]") {
  // NDR (400 Gb/s, 26 B of headers per 4096 B packet), 10 us per link. With 64 KiB of credits per VL
  // a sender keeps floor(65536 / 4160) = 15 packets (4122 B rounded up to 64 B blocks) in flight per
  // credit loop = 2 x 10 us + one packet time (82.4 ns): 15 x 4096 B / 20.08 us = 24.47 Gb/s of
  // payload. With the default credits (rate x loop + 2 packets) it runs at 400 x 4096/4122.
  Topology t = single_switch(2, ib_ndr(Time::us(10)));
  const uint64_t bytes = 20'000'000;
  packet::PacketConfig config = packet::packet_profile("ib");
  config.credits.buffer_per_vl = Bytes(65536);
  Run starved = run_flows(t, {{t.gpus()[1], t.gpus()[0], bytes, Time()}}, config);
  double loop = 20e-6 + 4122 * 8 / 400e9;
  double expected = 15 * 4096 * 8 / loop;
  CHECK(bytes * 8 / (seconds(starved.makespan) - 20e-6) == Approx(expected).epsilon(0.02));
  CHECK(starved.stats.drops == 0);
  config.credits.buffer_per_vl = Bytes(0);
  Run full = run_flows(t, {{t.gpus()[1], t.gpus()[0], bytes, Time()}}, config);
  CHECK(bytes * 8 / (seconds(full.makespan) - 20e-6) == Approx(400e9 * 4096 / 4122).epsilon(0.01));
}

TEST_CASE("packet: a PFC cycle is reported as a deadlock, naming the ports", "[packet][validation]") {
  // Four switches in a ring, one host each; every host sends to the host two switches away,
  // clockwise: each inter-switch link carries two flows and each switch's buffer waits on the next
  // switch's: a cyclic buffer dependency. Tiny static XOFF makes the pauses certain.
  Topology t;
  std::vector<NodeIndex> hosts, switches;
  for (int i = 0; i < 4; ++i) hosts.push_back(t.add_node({NodeKind::gpu, fmt::format("h{}", i)}));
  for (int i = 0; i < 4; ++i) switches.push_back(t.add_node({NodeKind::network_switch, fmt::format("s{}", i)}));
  LinkSpec link = roce(100, 4096, Time::us(1));
  for (int i = 0; i < 4; ++i) t.add_duplex_link(hosts[i], switches[i], link);
  for (int i = 0; i < 4; ++i) t.add_duplex_link(switches[i], switches[(i + 1) % 4], link);
  packet::PacketConfig config = packet::packet_profile("roce");
  config.dcqcn.enabled = false;
  config.pfc.dynamic = false;
  config.pfc.xoff = Bytes(20'000);
  config.deadlock_timeout = Time::ms(1);
  Engine engine;
  Router router(t, 1);
  Recorder recorder;
  PacketFabric fabric(engine, router, recorder, config);
  int started = 0;
  for (int i = 0; i < 4; ++i) {
    for (uint64_t e = 0; e < 64; ++e) {  // the entropy whose ECMP path goes clockwise
      const Path& p = router.route(hosts[i], hosts[(i + 2) % 4], e);
      if (t.link_target(p.links[1]) == switches[(i + 1) % 4]) {
        fabric.start({hosts[i], hosts[(i + 2) % 4], Bytes(50'000'000), 0, e, 0}, [] {});
        ++started;
        break;
      }
    }
  }
  REQUIRE(started == 4);
  CHECK_THROWS_WITH(fabric.run(engine), Catch::Contains("PFC deadlock") && Catch::Contains("s0->s1"));
  CHECK(fabric.stats().deadlocked);
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
  // 4096 * 8 / 10 Gb/s = 3.2768 us, then 1 us, the switch's store-and-forward of it at 400 Gb/s and
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
