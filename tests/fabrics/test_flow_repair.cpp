// The flow fabric's local repair (sim/flow_fabric_repair.cpp): an instant the skip and rejoin rules
// cannot absorb re-solves only the flows fixed by a link it touched (and those that joined), the
// other flows of the component frozen at their rates. The invariant check (on in Bench) re-solves
// the whole component after every repair and throws if a rate, the link or limit that fixed it, or
// a link's count of the flows it fixed differs; the random tests of test_flow_fabric.cpp run
// thousands of repairs, retries included, through it.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "tests/fabrics/flow_bench.h"

using namespace weft;
using namespace weft::testing;  // flow_bench.h: Bench, link

namespace {

// GPU `from` to GPU `to` on queue pair `qp`, `bits` of payload, at most `limit` bit/s (0: none).
Transfer send(const Bench& b, uint32_t from, uint32_t to, uint64_t bits, uint64_t qp, uint64_t limit = 0) {
  Transfer t{b.topology.gpus()[from], b.topology.gpus()[to], Bytes(bits / 8), 0, qp, 0};
  t.max_rate = limit;
  return t;
}

}  // namespace

TEST_CASE("flow: a finish re-solves only the flows its links fixed", "[flow]") {
  // On GPU 1's 100 Gb/s downlink: B1 and B2 from GPU 2, held at 10 Gb/s each by their limit, and
  // A1 and A2 from GPU 0, fixed by the downlink at (100 - 20) / 2 = 40 Gb/s. A1 (5 Mbit) drains at
  // 125 us: the downlink fixed A2, so no skip rule applies; the repair frees A2 alone, B1 and B2
  // stay frozen at their rates, and A2 gets 80 Gb/s: its last 5 Mbit take 62.5 us.
  Bench b(single_switch(4, link(100, Time::us(1))));
  std::vector<Time> done(4);
  b.engine.schedule_at(Time(), [&b, &done] {
    const std::vector<Transfer> sends{send(b, 0, 1, 5'000'000, 1), send(b, 0, 1, 10'000'000, 2),
                                      send(b, 2, 1, 4'000'000, 3, 10'000'000'000),
                                      send(b, 2, 1, 4'400'000, 4, 10'000'000'000)};
    for (size_t i = 0; i < sends.size(); ++i) b.fabric->start(sends[i], [&b, &done, i] { done[i] = b.engine.now(); });
  });
  REQUIRE_NOTHROW(b.engine.run());
  CHECK(done == std::vector<Time>{Time::us(127), Time::ns(189'500), Time::us(402), Time::us(442)});
  // Four flows solved at the start, A2 alone at A1's finish (a whole-component solve: three).
  const FabricStats stats = b.fabric->stats();
  CHECK(stats.rate_solves == 2);
  CHECK(stats.repairs == 2);
  CHECK(stats.flows_solved == 5);
}

TEST_CASE("flow: a repair that would move a frozen flow frees it and tries again", "[flow]") {
  // A1 and A2 (GPU 0) share GPU 1's downlink with B (GPU 2, limited to 30 Gb/s): A1 and A2 get
  // 35 Gb/s each. At 50 us A3 joins from GPU 3: the repair frees it and A1 and A2 (fixed by the
  // downlink) and keeps B frozen at 30 Gb/s, but the downlink now comes up at 25 Gb/s with B
  // unfixed on it: B is freed and the repair runs again, all four at 25 Gb/s. A1's last 8.25 Mbit
  // then take 330 us.
  Bench b(single_switch(4, link(100, Time::us(1))));
  Time a1_done;
  FabricStats at_join;
  b.engine.schedule_at(Time(), [&b, &a1_done] {
    b.fabric->start(send(b, 0, 1, 10'000'000, 1), [&b, &a1_done] { a1_done = b.engine.now(); });
    b.fabric->start(send(b, 0, 1, 12'000'000, 2), [] {});
    b.fabric->start(send(b, 2, 1, 10'000'000, 3, 30'000'000'000), [] {});
  });
  b.engine.schedule_at(Time::us(50), [&b] { b.fabric->start(send(b, 3, 1, 10'000'000, 4), [] {}); });
  b.engine.schedule_at(Time::us(51), [&b, &at_join] { at_join = b.fabric->stats(); });
  REQUIRE_NOTHROW(b.engine.run());
  CHECK(a1_done == Time::us(382));
  CHECK(at_join.repairs == 2);       // the join was repaired, not solved whole
  CHECK(at_join.flows_solved == 7);  // three at the start, then all four
}

TEST_CASE("flow: an instant of many changes is solved whole", "[flow]") {
  // 17 flows into GPU 0 start at once: 34 link changes, more than a repair takes
  // (kRepairMaxChanged), so one whole-component solve; each gets 100 / 17 Gb/s. Their finishes,
  // two changes each, are repaired.
  Bench b(single_switch(18, link(100, Time::us(1))));
  FabricStats at_start;
  b.engine.schedule_at(Time(), [&b] {
    for (uint32_t g = 1; g < 18; ++g) b.fabric->start(send(b, g, 0, 1'000'000 + g, g), [] {});
  });
  b.engine.schedule_at(Time::ps(1), [&b, &at_start] { at_start = b.fabric->stats(); });
  REQUIRE_NOTHROW(b.engine.run());
  CHECK(at_start.rate_solves == 1);
  CHECK(at_start.repairs == 0);
  CHECK(at_start.flows_solved == 17);
  CHECK(b.fabric->stats().repairs > 0);
  CHECK(b.fabric->stats().transfers_done == 17);
}
