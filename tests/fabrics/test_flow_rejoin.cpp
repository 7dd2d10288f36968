// The flow fabric's rejoin rule (sim/flow_fabric_rejoin.cpp): when the flows that start in an
// instant take, path for path, the places of those that finished in it, they get their
// predecessors' rates without a solve. The invariant check (on in Bench) re-solves every component
// a rejoin touched and throws if a rate, the link or limit that fixed it, or a link's count of the
// flows it fixed differs from the solve's.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "tests/fabrics/flow_bench.h"

using namespace weft;
using namespace weft::testing;  // flow_bench.h: Bench, Xorshift, link

TEST_CASE("flow: a chunk queued behind another takes its rate without a solve", "[flow]") {
  // GPUs 1 and 2 share GPU 0's 100 Gb/s downlink at 50 Gb/s each. GPU 1 sends two 5 Mbit chunks on
  // one queue pair: the second joins the same path the instant the first drains (100 us), which the
  // skip rules cannot drop (the downlink fixed GPU 2's rate too). GPU 2's 10 Mbit take 200 us.
  Bench b(single_switch(3, link(100, Time::us(1))));
  std::vector<Time> done(3);
  b.engine.schedule_at(Time(), [&b, &done] {
    for (uint32_t k = 0; k < 2; ++k) {
      b.fabric->start({b.topology.gpus()[1], b.topology.gpus()[0], Bytes(625'000), 0, 7, 0},
                      [&b, &done, k] { done[k] = b.engine.now(); });
    }
    b.fabric->start({b.topology.gpus()[2], b.topology.gpus()[0], Bytes(1'250'000), 0, 7, 0},
                    [&b, &done] { done[2] = b.engine.now(); });
  });
  REQUIRE_NOTHROW(b.engine.run());
  CHECK(done[0] == Time::us(102));
  CHECK(done[1] == Time::us(202));
  CHECK(done[2] == Time::us(202));
  // One solve when both start; the second chunk rejoins; the last finishes leave nothing to solve.
  CHECK(b.fabric->stats().rate_solves == 1);
  CHECK(b.fabric->stats().solves_skipped == 1);
}

TEST_CASE("flow: queues of different limits on one path rejoin with their own rates", "[flow]") {
  // Two queue pairs from GPU 1 to GPU 0 on its 100 Gb/s downlink: A limited to 20 Gb/s, B unlimited
  // (80 Gb/s), chunks sized to drain together at 100 us (2 and 8 Mbit). Both next chunks rejoin in
  // that instant, each with the rate of the chunk of its own limit, not of the other.
  Bench b(single_switch(2, link(100, Time::us(1))));
  std::vector<Time> done(4);
  b.engine.schedule_at(Time(), [&b, &done] {
    for (uint32_t k = 0; k < 4; ++k) {
      Transfer t{b.topology.gpus()[1], b.topology.gpus()[0], Bytes(k < 2 ? 250'000 : 1'000'000), 0, k / 2, 0};
      if (k < 2) t.max_rate = 20'000'000'000;
      b.fabric->start(t, [&b, &done, k] { done[k] = b.engine.now(); });
    }
  });
  REQUIRE_NOTHROW(b.engine.run());
  CHECK(done == std::vector<Time>{Time::us(102), Time::us(202), Time::us(102), Time::us(202)});
  CHECK(b.fabric->stats().rate_solves == 1);  // at the start only
}

TEST_CASE("flow: a chunk with another sender limit, or on another path, is solved", "[flow]") {
  // As above, but the queued chunk's limit (40 Gb/s) or its destination (GPU 3) differs from the
  // first's: the instant's start does not put back what its finish took off, so the rates are
  // solved again at 100 us (a second solve; a wrong rejoin would throw in the invariant check).
  for (const bool other_path : {false, true}) {
    Bench b(single_switch(4, link(100, Time::us(1))));
    std::vector<Time> done(3);
    b.engine.schedule_at(Time(), [&b, &done, other_path] {
      Transfer first{b.topology.gpus()[1], b.topology.gpus()[0], Bytes(625'000), 0, 7, 0};
      Transfer second = first;
      if (other_path) {
        second.dst = b.topology.gpus()[3];
      } else {
        second.max_rate = 40'000'000'000;
      }
      b.fabric->start(first, [] {});
      b.fabric->start(second, [&b, &done] { done[1] = b.engine.now(); });
      b.fabric->start({b.topology.gpus()[2], b.topology.gpus()[0], Bytes(1'250'000), 0, 7, 0},
                      [&b, &done] { done[2] = b.engine.now(); });
    });
    INFO("other path " << other_path);
    REQUIRE_NOTHROW(b.engine.run());
    CHECK(b.fabric->stats().rate_solves >= 2);
    if (other_path) {  // each alone on its links from 100 us: 5 Mbit at 100 Gb/s
      CHECK(done[1] == Time::us(152));
      CHECK(done[2] == Time::us(152));
    } else {  // 5 Mbit at the 40 Gb/s limit; GPU 2's last 5 Mbit at 60 Gb/s, rounded up to the ps
      CHECK(done[1] == Time::us(227));
      CHECK(done[2] == Time::ps(100'000'000 + 83'333'334 + 2'000'000));
    }
  }
}

TEST_CASE("flow: rejoins on random queues leave every rate and record a solve gives", "[flow]") {
  // Queue pairs of 2-5 chunks each, on a ring where routes of 1-2 hops meet: chunks drain and the
  // next of their queue joins the same path in the same instant, alone or with other queues'
  // chunks and finishes; copies 1-3 (so a weight-3 flow may come back as weights 1 and 2, the
  // followers of one head); limits from a few values, a quarter of the chunks off their queue's.
  // Any rejoin that gives a rate, a fixing link or a link's fixed count a solve would not throws.
  uint64_t skipped = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Bench b(ring(6, link(97, Time::ns(300))));
    Xorshift random{seed * 0xA24BAED4963EE407ULL};
    auto next = [&random](uint64_t n) { return random.next(n); };
    std::vector<Transfer> transfers;
    for (uint32_t queue = 0; queue < 24; ++queue) {
      // Four queues per route on average, so that routes carry flows of several limits at once.
      const auto from = static_cast<uint32_t>(next(3));
      const auto to = static_cast<uint32_t>(from + 1 + next(2));
      const uint64_t limit = next(3) * 20'000'000'000;
      const auto chunks = static_cast<uint32_t>(2 + next(4));
      for (uint32_t c = 0; c < chunks; ++c) {
        Transfer& t = transfers.emplace_back(
            Transfer{b.topology.gpus()[from], b.topology.gpus()[to], Bytes(20'000 + next(4) * 10'000), 0, queue, 0});
        t.max_rate = next(4) == 0 ? next(3) * 20'000'000'000 + 1 : limit;
        t.copies = 1 + static_cast<uint32_t>(next(3));
      }
    }
    for (const Transfer& t : transfers) {
      b.engine.schedule_at(Time::ns(static_cast<int64_t>(next(4) * 1000)), [&b, &t] { b.fabric->start(t, [] {}); });
    }
    INFO("seed " << seed);
    REQUIRE_NOTHROW(b.engine.run());
    CHECK(b.fabric->stats().transfers_done == b.fabric->stats().transfers_started);
    skipped += b.fabric->stats().solves_skipped;
  }
  CHECK(skipped > 50);
}
