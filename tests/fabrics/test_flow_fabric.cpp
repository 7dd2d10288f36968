#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "sim/analytic_fabric.h"
#include "sim/core/huge_page_allocator.h"
#include "sim/fabric_registry.h"
#include "sim/flow_fabric.h"
#include "tests/fabrics/flow_bench.h"
#include "topologies/builders.h"

using namespace weft;
using namespace weft::testing;  // flow_bench.h: Bench, Xorshift, link

namespace {

// Starts 60 random transfers (ends(): a source and a destination GPU; sizes, entropies and start
// times at random, a third of them limited to least_limit + up to 40 Gb/s, 1-3 copies each) and
// runs them all; the fabric's invariant check throws on any wrong rate.
void run_random_transfers(Bench& b, Xorshift& random, const std::function<std::pair<uint32_t, uint32_t>()>& ends,
                          uint64_t least_limit) {
  auto next = [&random](uint64_t n) { return random.next(n); };
  std::vector<Transfer> transfers;
  for (uint32_t k = 0; k < 60; ++k) {
    const auto [from, to] = ends();
    Transfer& t = transfers.emplace_back(
        Transfer{b.topology.gpus()[from], b.topology.gpus()[to], Bytes(1000 + next(200'000)), 0, next(4), 0});
    if (next(3) == 0) t.max_rate = least_limit + next(40'000'000'000);
    t.copies = 1 + static_cast<uint32_t>(next(3));
  }
  for (const Transfer& t : transfers) {
    b.engine.schedule_at(Time::ns(static_cast<int64_t>(next(20'000))), [&b, &t] { b.fabric->start(t, [] {}); });
  }
  REQUIRE_NOTHROW(b.engine.run());
  CHECK(b.fabric->stats().transfers_done == b.fabric->stats().transfers_started);
  CHECK(b.fabric->stats().rate_solves > 20);
}

}  // namespace

TEST_CASE("a single transfer takes exactly latency + ceil(bytes*8/rate)", "[flow]") {
  for (bool flow : {true, false}) {
    // 1000 B at 3.6 Tb/s: 8000e12 / 3.6e12 = 2222.2 -> 2223 ps; two hops of 1 us each.
    Bench b(single_switch(2, link(3600, Time::us(1))), flow);
    b.send(0, 1, 1000);
    b.engine.run();
    REQUIRE(b.sink.transfers.size() == 1);
    CHECK(b.sink.transfers[0].end == Time::us(2) + Time::ps(2223));
  }
}

TEST_CASE("N to 1 incast gives each sender rate / N", "[flow]") {
  // 8 senders, 1 MB each, into GPU 8's 400 Gb/s downlink: 50 Gb/s each.
  // 8e6 bits / 5e10 bit/s = 160 us, plus 2 hops x 1 us.
  Bench b(single_switch(9, link(400, Time::us(1))));
  for (uint32_t i = 0; i < 8; ++i) b.send(i, 8, 1'000'000);
  b.engine.run();
  REQUIRE(b.sink.transfers.size() == 8);
  for (const auto& t : b.sink.transfers) CHECK(t.end == Time::us(162));
}

TEST_CASE("a flow speeds up when its competitor leaves (rates recomputed)", "[flow]") {
  // A: 10 MB from GPU 0 at t=0; B: 1 MB from GPU 1 at t=100 us; both into GPU 2 at 400 Gb/s.
  // 0-100 us: A alone at 400G sends 4e7 of its 8e7 bits.
  // From 100 us both get 200G: B's 8e6 bits take 40 us -> drains at 140 us, arrives 142 us.
  // A sent another 8e6 bits meanwhile; its last 3.2e7 bits at 400G take 80 us -> 220 us, arrives 222 us.
  Bench b(single_switch(3, link(400, Time::us(1))));
  b.send(0, 2, 10'000'000);
  b.send(1, 2, 1'000'000, Time::us(100));
  b.engine.run();
  REQUIRE(b.sink.transfers.size() == 2);
  CHECK(b.sink.transfers[0].src == b.topology.gpus()[1]);
  CHECK(b.sink.transfers[0].end == Time::us(142));
  CHECK(b.sink.transfers[1].end == Time::us(222));
}

TEST_CASE("flow and analytic agree when nothing contends", "[flow]") {
  // A permutation: every GPU sends to one other and receives from one other, sizes differ.
  auto run = [](bool flow) {
    Bench b(single_switch(16, link(200, Time::ns(700))), flow);
    for (uint32_t i = 0; i < 16; ++i) b.send(i, (i * 5 + 3) % 16, 1000 + 7919 * i);
    b.engine.run();
    std::vector<int64_t> ends;
    for (const auto& t : b.sink.transfers) ends.push_back(t.end.ps());
    std::sort(ends.begin(), ends.end());
    return ends;
  };
  CHECK(run(true) == run(false));
}

TEST_CASE("bytes are conserved and every transfer completes", "[flow]") {
  // All-to-all among 6 GPUs: heavy sharing, many rate changes.
  Bench b(single_switch(6, link(100, Time::ns(300))));
  uint64_t sent = 0;
  for (uint32_t i = 0; i < 6; ++i) {
    for (uint32_t j = 0; j < 6; ++j) {
      if (i == j) continue;
      uint64_t bytes = 4096 * (1 + i + 2 * j);
      b.send(i, j, bytes, Time::ns(37 * (i + j)));
      sent += bytes;
    }
  }
  b.engine.run();
  FabricStats s = b.fabric->stats();
  CHECK(s.transfers_started == 30);
  CHECK(s.transfers_done == 30);
  CHECK(s.bytes_delivered.count() == sent);
  uint64_t recorded = 0;
  for (const auto& t : b.sink.transfers) {
    recorded += t.bytes.count();
    CHECK(t.end >= t.start);
  }
  CHECK(recorded == sent);
}

TEST_CASE("the flow fabric is deterministic", "[flow]") {
  auto run = [] {
    Bench b(ring(8, link(100, Time::ns(300))));
    for (uint32_t i = 0; i < 8; ++i) {
      for (uint32_t j = 0; j < 8; ++j) {
        if (i != j) b.send(i, j, 1000 * (i + 1) + j);
      }
    }
    b.engine.run();
    std::vector<std::pair<uint64_t, int64_t>> out;
    for (const auto& t : b.sink.transfers) out.emplace_back(t.id, t.end.ps());
    return out;
  };
  CHECK(run() == run());
}

TEST_CASE("zero-byte and self transfers complete", "[flow]") {
  Bench b(single_switch(2, link(100, Time::us(1))));
  b.send(0, 1, 0);
  b.engine.schedule_at(Time(), [&] {
    b.fabric->start({b.topology.gpus()[0], b.topology.gpus()[0], Bytes(64)}, [] {});
  });
  b.engine.run();
  REQUIRE(b.sink.transfers.size() == 2);
  CHECK(b.sink.transfers[0].end == Time());       // the self transfer: no links to cross
  CHECK(b.sink.transfers[1].end == Time::us(2));  // zero bytes: latency only
}

TEST_CASE("flow: a sender's own rate limit is a private link in the max-min solve", "[flow]") {
  // Two flows into one 100 Gb/s downlink; flow A may send at most 20 Gb/s (e.g. one NCCL channel's
  // copy rate). Max-min: A gets 20, B the remaining 80. 10 MB at 80 Gb/s = 1 ms (+ 2 us of links).
  Topology t = single_switch(3, {LinkKind::generic, Bandwidth::gbps(100), Time::us(1)});
  for (std::string_view model : {"flow", "analytic", "packet"}) {
    Engine engine;
    Router router(t, 1);
    Recorder recorder;
    auto fabric = make_fabric(model, engine, router, recorder);
    Time a_done, b_done;
    Transfer a{t.gpus()[1], t.gpus()[0], Bytes(2'500'000), 0, 1, 0};
    a.max_rate = 20'000'000'000;
    fabric->start(a, [&] { a_done = engine.now(); });
    fabric->start({t.gpus()[2], t.gpus()[0], Bytes(10'000'000), 0, 2, 0}, [&] { b_done = engine.now(); });
    fabric->run(engine);
    INFO(model);
    CHECK(a_done.seconds() == Approx(1e-3).epsilon(0.01));                                  // 2.5 MB at 20 Gb/s
    if (model != "analytic") CHECK(b_done.seconds() == Approx(1e-3 + 2e-6).epsilon(0.02));  // 80 Gb/s
  }
}

TEST_CASE("flow: the in-place fill gives MaxMinSolver's rates on random components", "[flow]") {
  // Multi-hop routes of several lengths on a ring, uneven sizes and start times, sender limits and
  // copies: many components with several bottleneck levels, ties and rounding. The fabric's
  // invariant check (on in Bench) re-solves every component with MaxMinSolver and throws on any
  // rate that differs by one bit/s.
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Bench b(ring(9, link(97, Time::ns(300))));
    Xorshift random{seed * 0x9E3779B97F4A7C15ULL};
    INFO("seed " << seed);
    run_random_transfers(
        b, random,
        [&random] {
          const auto from = static_cast<uint32_t>(random.next(9));
          return std::pair{from, static_cast<uint32_t>(random.next(9))};
        },
        1'000'000'007);
  }
}

// GPUs each behind a chain of two relays to one switch: the three links of a chain carry the same
// flows (every transfer to or from that GPU), at capacities drawn from a few bit/s apart (ties,
// and gaps below the flows' weight, where rounding could let the larger pop first) to 1 Gb/s apart.
Topology chained_star(uint32_t gpus, Xorshift& random) {
  Topology t;
  const NodeIndex sw = t.add_node({NodeKind::network_switch, "switch"});
  auto rate = [&random] {
    constexpr std::array<uint64_t, 5> kGaps{0, 1, 2, 5, 1'000'000'000};
    return Bandwidth::bps(50'000'000'000 + kGaps[random.next(kGaps.size())]);
  };
  for (uint32_t i = 0; i < gpus; ++i) {
    NodeIndex previous = t.add_node({NodeKind::gpu, "gpu"});
    for (const char* relay : {"nic", "port"}) {
      const NodeIndex next = t.add_node({NodeKind::network_switch, relay});
      t.add_duplex_link(previous, next, {LinkKind::generic, rate(), Time::ns(100)});
      previous = next;
    }
    t.add_duplex_link(previous, sw, {LinkKind::generic, rate(), Time::ns(100)});
  }
  return t;
}

TEST_CASE("flow: links that carry the same flows fill as one, with the rates of all of them", "[flow]") {
  // The fill keeps one link of each set of links with the same flows (sim/same_flow_links.h). The
  // invariant check (on in Bench) re-solves every component with MaxMinSolver over all its links,
  // throws on a rate 1 bit/s off, and compares every link grouped with another flow by flow.
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Xorshift random{seed * 0xA0761D6478BD642FULL};
    Bench b(chained_star(6, random));
    INFO("seed " << seed);
    run_random_transfers(
        b, random,
        [&random] {
          const auto from = static_cast<uint32_t>(random.next(6));
          return std::pair{from, static_cast<uint32_t>((from + 1 + random.next(5)) % 6)};
        },
        5'000'000'000);
  }
}

TEST_CASE("flow: a link 1 bit/s above another with the same flows still fills as itself", "[flow]") {
  // Links l (3e9 + 1 bit/s) and k (3e9), in that LinkId order, carry A (weight 1) and B (copies 2);
  // Q (2e9 + 1, its id between theirs) carries A and C. All three round to a share of 1e9, so l
  // pops first and fixes A and B at 1e9; Q then has 1e9 + 1 left for C. Were l left out for k (the
  // least capacity of the pair), Q would pop before k and fix C at 1e9. The invariant check (on in
  // Bench) solves with every link and throws on that 1 bit/s.
  Topology t;
  auto node = [&t](NodeKind kind) { return t.add_node({kind, "n"}); };
  const NodeIndex a_src = node(NodeKind::gpu), a_dst = node(NodeKind::gpu), b_dst = node(NodeKind::gpu),
                  c_src = node(NodeKind::gpu);
  const NodeIndex r1 = node(NodeKind::network_switch), r2 = node(NodeKind::network_switch),
                  r3 = node(NodeKind::network_switch);
  auto cable = [&t](NodeIndex x, NodeIndex y, uint64_t bps) {
    t.add_duplex_link(x, y, {LinkKind::generic, Bandwidth::bps(bps), Time::ns(100)});
  };
  cable(a_src, r1, 3'000'000'001);  // l
  cable(r2, r3, 2'000'000'001);     // Q
  cable(r1, r2, 3'000'000'000);     // k
  cable(r2, b_dst, 100'000'000'000);
  cable(c_src, r2, 100'000'000'000);
  cable(r3, a_dst, 100'000'000'000);
  Bench b(std::move(t));
  Time c_done;
  b.engine.schedule_at(Time(), [&b, &c_done, a_src, a_dst, b_dst, c_src] {
    b.fabric->start({a_src, a_dst, Bytes(125'000'000), 0, 1, 0}, [] {});
    Transfer two{a_src, b_dst, Bytes(125'000'000), 0, 2, 0};
    two.copies = 2;
    b.fabric->start(two, [] {});
    b.fabric->start({c_src, a_dst, Bytes(125'000'000), 0, 3, 0}, [&b, &c_done] { c_done = b.engine.now(); });
  });
  REQUIRE_NOTHROW(b.engine.run());
  // C's 1e9 bits at 1e9 + 1 bit/s (before A and B, at 1e9, finish): 1e21 / (1e9 + 1) ps, rounded up
  // to 999,999,999,001, then 300 ns of latency. At 1e9 it would take 1 s.
  CHECK(c_done == Time::ps(999'999'999'001 + 300'000));
}

TEST_CASE("flow: starts and finishes that move no other rate skip the solve, exactly", "[flow]") {
  // Sender limits well below the links (a collective's channels) with starts spread in time: most
  // starts find slack on every link and most finishes free no other flow's bottleneck, while
  // crowded links still need solves. The invariant check (on in Bench) re-solves the components
  // around every skipped start or finish and throws if a single rate differs by one bit/s; the
  // random limits and copies make ties and rounding (the + 1 of the start rule) come up.
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    Bench b(ring(7, link(97, Time::ns(300))));
    Xorshift random{seed * 0xD1B54A32D192ED03ULL};
    auto next = [&random](uint64_t n) { return random.next(n); };
    std::vector<Transfer> transfers;
    for (uint32_t k = 0; k < 80; ++k) {
      Transfer& t = transfers.emplace_back(
          Transfer{b.topology.gpus()[next(7)], b.topology.gpus()[next(7)], Bytes(1000 + next(300'000)), 0, next(6), 0});
      if (next(5) != 0) t.max_rate = 3'000'000'001 + next(30'000'000'000);
      t.copies = 1 + static_cast<uint32_t>(next(2));
    }
    for (const Transfer& t : transfers) {
      b.engine.schedule_at(Time::ns(static_cast<int64_t>(next(200'000))), [&b, &t] { b.fabric->start(t, [] {}); });
    }
    INFO("seed " << seed);
    REQUIRE_NOTHROW(b.engine.run());
    const FabricStats stats = b.fabric->stats();
    CHECK(stats.transfers_done == stats.transfers_started);
    CHECK(stats.solves_skipped > 10);
    CHECK(stats.rate_solves > 10);
  }
}

TEST_CASE("flow: a skipped solve leaves the same times as the solves it replaces", "[flow]") {
  // Two limited flows on one path, started apart: the second finds slack and skips its solve, the
  // first's finish frees nothing the second is held by. Closed form: each runs at its limit.
  Bench b(single_switch(3, link(100, Time::us(1))));
  std::vector<Time> done(2);
  for (uint32_t k = 0; k < 2; ++k) {
    b.engine.schedule_at(Time::us(5 * static_cast<int64_t>(k)), [&b, &done, k] {
      Transfer t{b.topology.gpus()[1], b.topology.gpus()[0], Bytes(1'250'000), 0, k, 0};
      t.max_rate = 25'000'000'000;  // 10 Mbit at 25 Gb/s: 400 us
      b.fabric->start(t, [&b, &done, k] { done[k] = b.engine.now(); });
    });
  }
  b.engine.run();
  CHECK(done[0] == Time::us(402));
  CHECK(done[1] == Time::us(407));
  CHECK(b.fabric->stats().solves_skipped == 4);  // both starts, both finishes
  CHECK(b.fabric->stats().rate_solves == 0);
}

TEST_CASE("flow: a start skips its solve only with the slack the rounded fill needs", "[flow]") {
  // One 8,000,000,001 bit/s link into host 0. A (limit 4e9) runs; B (limit 4e9 + 1) starts later.
  // Max-min in real numbers gives B its limit and the link exactly full, but the fill rounds the
  // link's share to floor((8e9 + 1) / 2) = 4e9, which ties A's limit and fixes both at 4e9 (links
  // come before limits): a start rule with the bare slack (load + limit <= capacity) would give B
  // 1 bit/s more than a solve. With the + 1 per flow it solves, and B's 16 Mbit take 4 ms exactly.
  Bench b(single_switch(3, LinkSpec{LinkKind::generic, Bandwidth::bps(8'000'000'001), Time::us(1)}));
  Time b_done;
  b.engine.schedule_at(Time(), [&b] {
    Transfer a{b.topology.gpus()[1], b.topology.gpus()[0], Bytes(8'000'000), 0, 1, 0};
    a.max_rate = 4'000'000'000;
    b.fabric->start(a, [] {});
  });
  b.engine.schedule_at(Time::us(1), [&b, &b_done] {
    Transfer t{b.topology.gpus()[2], b.topology.gpus()[0], Bytes(2'000'000), 0, 2, 0};
    t.max_rate = 4'000'000'001;
    b.fabric->start(t, [&b, &b_done] { b_done = b.engine.now(); });
  });
  REQUIRE_NOTHROW(b.engine.run());
  CHECK(b_done == Time::us(1 + 4000 + 2));
}

TEST_CASE("HugePageAllocator: blocks of 2 MiB and more start on a huge page, smaller ones are aligned", "[flow]") {
  struct alignas(64) Line {
    char bytes[64];
  };
  HugePageAllocator<Line> alloc;
  Line* small = alloc.allocate(3);
  Line* large = alloc.allocate((size_t{2} << 20) / sizeof(Line) + 1);
  CHECK(reinterpret_cast<uintptr_t>(small) % alignof(Line) == 0);
  CHECK(reinterpret_cast<uintptr_t>(large) % (size_t{2} << 20) == 0);
  large[(size_t{2} << 20) / sizeof(Line)].bytes[63] = 1;  // the last line is ours to write
  alloc.deallocate(small, 3);
  alloc.deallocate(large, (size_t{2} << 20) / sizeof(Line) + 1);
  std::vector<Line, HugePageAllocator<Line>> grown(40'000);  // 2.4 MiB, through std::vector
  CHECK(reinterpret_cast<uintptr_t>(grown.data()) % (size_t{2} << 20) == 0);
}
