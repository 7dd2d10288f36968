#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <utility>

#include "sim/core/event_queue.h"
#include "sim/core/radix_queue.h"

using namespace weft;

namespace {

using Key = std::pair<int64_t, uint64_t>;  // (time ps, order)

// Drives a queue as an engine would: takes the least entry, then queues new ones no earlier than it
// (most at new orders, some at an order reserved earlier, many at the same time), growing and then
// draining the queue; checks every entry against a std::set.
template <class Queue>
void run_like_an_engine(Queue& q, uint32_t seed, size_t grow_to) {
  std::mt19937_64 rng(seed);
  std::set<Key> expected;
  uint64_t next_order = 1000;  // orders below it: reserved earlier, handed out later
  auto push = [&](int64_t t, uint64_t order) {
    q.push(QueueEntry{t, order});
    expected.insert({t, order});
  };
  for (int i = 0; i < 8; ++i) push(static_cast<int64_t>(rng() % 1000), next_order++);
  Key last{0, 0};
  bool growing = true;
  for (int step = 0; step < 200000 && !expected.empty(); ++step) {
    if (expected.size() >= grow_to) growing = false;
    REQUIRE(q.size() == expected.size());
    REQUIRE(q.min_time() == expected.begin()->first);
    QueueEntry e{};
    REQUIRE_FALSE(q.pop_until(expected.begin()->first - 1, e));  // too early: nothing taken
    REQUIRE(q.pop_until(std::numeric_limits<int64_t>::max(), e));
    REQUIRE(Key{e.time, e.order} == *expected.begin());
    REQUIRE(last < Key{e.time, e.order});
    last = {e.time, e.order};
    expected.erase(expected.begin());
    const int children = growing ? static_cast<int>(rng() % 4) : static_cast<int>(rng() % 2);
    for (int c = 0; c < children; ++c) {
      const uint64_t kind = rng() % 8;
      if (kind < 3) {
        push(e.time, next_order++);  // now
      } else if (kind == 3 && e.order + 1 < next_order && expected.count({e.time, e.order + 1}) == 0) {
        push(e.time, e.order + 1);  // now, at a place reserved before some of those due now
      } else {
        push(e.time + static_cast<int64_t>(rng() % (kind == 4 ? 1000000 : 5000)), next_order++);
      }
    }
  }
  CHECK(expected.empty());
  CHECK(q.empty());
}

}  // namespace

TEST_CASE("the radix queue takes entries out in (time, order) exactly", "[engine]") {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    RadixQueue q;
    run_like_an_engine(q, seed, 3000);
  }
}

TEST_CASE("the event queue keeps the order across its switches between heap and radix heap", "[engine]") {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    EventQueue q;
    run_like_an_engine(q, seed, 3000);  // past 512 (to the radix heap) and back below 128 (to the heap)
  }
  EventQueue small;
  run_like_an_engine(small, 7, 40);  // never leaves the heap
}

TEST_CASE("renumbering orders in place keeps the queue's order", "[engine]") {
  EventQueue q;
  for (uint64_t i = 0; i < 2000; ++i) q.push(QueueEntry{static_cast<int64_t>(i % 7), 1000 + i});
  q.for_each([](QueueEntry& e) { e.order -= 1000; });  // keeps every comparison
  QueueEntry e{};
  Key last{-1, 0};
  size_t taken = 0;
  while (q.pop_until(std::numeric_limits<int64_t>::max(), e)) {
    CHECK(last < Key{e.time, e.order});
    CHECK(e.order < 2000);
    last = {e.time, e.order};
    ++taken;
  }
  CHECK(taken == 2000);
}
