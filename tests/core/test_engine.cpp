#include <catch2/catch.hpp>
#include <vector>

#include "sim/core/engine.h"
#include "sim/core/errors.h"

using namespace weft;

TEST_CASE("events run in time order, ties in insertion order", "[engine]") {
  Engine e;
  std::vector<int> order;
  e.schedule_at(Time::ns(5), [&] { order.push_back(3); });
  e.schedule_at(Time::ns(1), [&] { order.push_back(1); });
  e.schedule_at(Time::ns(5), [&] { order.push_back(4); });  // same time: after the first ns(5)
  e.schedule_at(Time::ns(2), [&] { order.push_back(2); });
  CHECK(e.run() == 4);
  CHECK(order == std::vector<int>{1, 2, 3, 4});
  CHECK(e.now() == Time::ns(5));
  CHECK(e.events_processed() == 4);
}

TEST_CASE("an event scheduled now from a callback runs after those already due now", "[engine]") {
  Engine e;
  std::vector<int> order;
  e.schedule_at(Time::ns(1), [&] {
    order.push_back(1);
    e.schedule_in(Time(), [&] { order.push_back(3); });
  });
  e.schedule_at(Time::ns(1), [&] { order.push_back(2); });
  e.run();
  CHECK(order == std::vector<int>{1, 2, 3});
}

TEST_CASE("cancel removes a pending event, and is harmless afterwards", "[engine]") {
  Engine e;
  int ran = 0;
  EventId a = e.schedule_in(Time::ns(1), [&] { ran += 1; });
  EventId b = e.schedule_in(Time::ns(2), [&] { ran += 10; });
  CHECK(e.cancel(a));
  CHECK_FALSE(e.cancel(a));
  e.run();
  CHECK(ran == 10);
  CHECK_FALSE(e.cancel(b));  // already ran
  // The cancelled slot is reused; the old id must not cancel the new event.
  EventId c = e.schedule_in(Time::ns(1), [&] { ran += 100; });
  CHECK_FALSE(e.cancel(a));
  e.run();
  CHECK(ran == 110);
  (void)c;
}

TEST_CASE("run(until) stops at the horizon and time never goes back", "[engine]") {
  Engine e;
  int ran = 0;
  e.schedule_at(Time::us(1), [&] { ++ran; });
  e.schedule_at(Time::us(3), [&] { ++ran; });
  CHECK(e.run(Time::us(2)) == 1);
  CHECK(e.now() == Time::us(2));
  CHECK_THROWS_AS(e.schedule_at(Time::us(1), [] {}), ModelError);
  e.run();
  CHECK(ran == 2);
}

TEST_CASE("two engines in one process are independent", "[engine]") {
  Engine a;
  Engine b;
  int in_a = 0;
  int in_b = 0;
  a.schedule_at(Time::ns(10), [&] { ++in_a; });
  b.schedule_at(Time::ns(20), [&] { ++in_b; });
  a.run();
  CHECK(a.now() == Time::ns(10));
  CHECK(b.now() == Time());
  b.run();
  CHECK(in_a == 1);
  CHECK(in_b == 1);
}

TEST_CASE("many events: order holds through heap growth and slot reuse", "[engine]") {
  Engine e;
  int64_t last = -1;
  int ran = 0;
  bool ordered = true;
  for (int i = 0; i < 10000; ++i) {
    int64_t t = (i * 7919) % 1000;  // scrambled times with many ties
    e.schedule_at(Time::ps(t), [&, t] {
      ordered = ordered && t >= last;
      last = t;
      ++ran;
    });
  }
  e.run();
  CHECK(ordered);
  CHECK(ran == 10000);
}
