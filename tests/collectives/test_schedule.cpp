#include <catch2/catch.hpp>
#include <numeric>

#include "collectives/executor.h"
#include "collectives/ring.h"
#include "collectives/simulate.h"
#include "sim/core/errors.h"
#include "topologies/builders.h"

using namespace weft;

namespace {

uint64_t total(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t{0}); }

}  // namespace

TEST_CASE("ring all-reduce: 2(n-1) steps of S/n per rank, one loop", "[schedule]") {
  Schedule s = ring_all_reduce(4, Bytes(4000));
  validate(s);
  CHECK(s.streams.size() == 4);
  CHECK(transfer_count(s) == uint64_t{4} * 6 * 2);  // each step's block in 2 slices (Simple)
  // Each rank sends 2(n-1)/n x S = 6/4 x 4000 = 6000 bytes.
  CHECK(bytes_sent_by_rank(s) == std::vector<uint64_t>(4, 6000));
  for (const Stream& st : s.streams) CHECK(st.runs.size() == 2);  // run-length encoded: O(1) per stream
}

TEST_CASE("ring all-reduce in several loops and channels moves the same bytes", "[schedule]") {
  // 10 MiB, 1 MiB chunks, 4 ranks: loops of 4 MiB, 4 MiB and 2 MiB (blocks 1, 1, 0.5 MiB).
  RingOptions o;
  o.chunk = Bytes(1 << 20);
  Schedule one = ring_all_reduce(4, Bytes(10 << 20), o);
  validate(one);
  CHECK(transfer_count(one) == uint64_t{3} * 4 * 6 * 2);  // Simple: each block as 2 slices
  CHECK(one.max_in_flight == 4);                          // NCCL_STEPS / SLICESTEPS
  o.simple = false;                                       // LL/LL128: one step per block, 8 in flight
  Schedule whole = ring_all_reduce(4, Bytes(10 << 20), o);
  CHECK(transfer_count(whole) == uint64_t{3} * 4 * 6);
  CHECK(whole.max_in_flight == 8);
  CHECK(bytes_sent_by_rank(whole) == bytes_sent_by_rank(one));
  o.simple = true;
  CHECK(bytes_sent_by_rank(one) == std::vector<uint64_t>(4, 15 << 20));  // 6/4 x 10 MiB
  o.channels = 4;
  Schedule four = ring_all_reduce(4, Bytes(10 << 20), o);
  validate(four);
  CHECK(four.streams.size() == 16);
  CHECK(bytes_sent_by_rank(four) == bytes_sent_by_rank(one));
}

TEST_CASE("ring all-gather, reduce-scatter and broadcast volumes", "[schedule]") {
  // All-gather and reduce-scatter: (n-1)/n x S per rank; 8 ranks, 8 MiB -> 7 MiB each.
  for (auto op : {CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
    Schedule s = ring_schedule(op, 8, Bytes(8 << 20));
    validate(s);
    CHECK(bytes_sent_by_rank(s) == std::vector<uint64_t>(8, 7 << 20));
  }
  // Broadcast from rank 2 over 5 ranks: a chain 2->3->4->0->1; every rank but the last (1) sends S.
  RingOptions o;
  o.root = 2;
  Schedule b = ring_broadcast(5, Bytes(3'000'000), o);
  validate(b);
  std::vector<uint64_t> sent = bytes_sent_by_rank(b);
  CHECK(sent == std::vector<uint64_t>{3'000'000, 0, 3'000'000, 3'000'000, 3'000'000});
  CHECK(total(sent) == 4 * 3'000'000ULL);
  CHECK(b.max_in_flight == 8);  // NCCL_STEPS / CHUNKSTEPS(1)
  CHECK_THROWS_AS(ring_broadcast(4, Bytes(10), RingOptions{1, Bytes(), 4}), ConfigError);
}

TEST_CASE("one rank needs no communication", "[schedule]") {
  Schedule s = ring_all_reduce(1, Bytes(1 << 20));
  CHECK(transfer_count(s) == 0);
  Topology t = single_switch(1, {LinkKind::generic, Bandwidth::gbps(100), Time::us(1)});
  CHECK(simulate(s, t).time == Time());
}

TEST_CASE("a cyclic schedule is rejected before it runs", "[schedule]") {
  Schedule s;
  s.name = "cycle";
  s.ranks = 2;
  s.streams.push_back({0, 0, {{1, StepKind::send, 1, Bytes(8), Time(), 1, 0}}});
  s.streams.push_back({1, 0, {{1, StepKind::send, 0, Bytes(8), Time(), 0, 0}}});
  CHECK_THROWS_WITH(validate(s), Catch::Contains("cycle"));
  s.streams[1].runs[0].peer = 7;
  CHECK_THROWS_AS(validate(s), ModelError);
}

TEST_CASE("local steps take their duration and order the stream", "[schedule]") {
  // Rank 0: reduce for 5 us, then send 1000 B to rank 1 at 8 Gb/s (1 us) over 2 hops of 1 us.
  Schedule s;
  s.name = "local-then-send";
  s.ranks = 2;
  s.streams.push_back({0, 0, {{1, StepKind::local, 0, Bytes(), Time::us(5)}, {1, StepKind::send, 1, Bytes(1000)}}});
  validate(s);
  Topology t = single_switch(2, {LinkKind::generic, Bandwidth::gbps(8), Time::us(1)});
  for (const char* fabric : {"flow", "analytic"}) {
    CHECK(simulate(s, t, {fabric}).time == Time::us(8));  // 5 + 1 + 2
  }
}
