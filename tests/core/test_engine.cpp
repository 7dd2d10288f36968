#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <utility>
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

// The reference order is (time, insertion sequence): a sorted list of (time, sequence) pairs.
TEST_CASE("random schedules from callbacks, cancels and renumbering keep (time, insertion) order", "[engine]") {
  for (uint64_t limit : {uint64_t{1} << 36, uint64_t{4096}}) {  // 4096: the sequence wraps many times
    Engine e(limit);
    uint64_t state = 12345;
    auto next = [&state] {  // xorshift: the same schedule for both limits
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      return state;
    };
    std::vector<std::pair<int64_t, uint64_t>> ran;  // (time, sequence) in the order run
    std::vector<EventId> ids;
    uint64_t sequence = 0;
    std::function<void(int)> add = [&](int depth) {
      const int64_t at = e.now().ps() + static_cast<int64_t>(next() % 50);  // many ties, some at now
      const uint64_t mine = sequence++;
      std::function<void()> body = [&, at, mine, depth] {
        ran.emplace_back(at, mine);
        if (depth < 6) {
          for (uint64_t k = next() % 3; k > 0; --k) add(depth + 1);
        }
        if (next() % 10 == 0 && !ids.empty()) e.cancel(ids[next() % ids.size()]);
      };
      auto shared = std::make_shared<std::function<void()>>(std::move(body));
      ids.push_back(e.schedule_at(Time::ps(at), [shared] { (*shared)(); }));
    };
    for (int i = 0; i < 3000; ++i) add(0);
    e.run();
    REQUIRE(ran.size() > 3000);
    CHECK(e.pending() == 0);
    CHECK(e.next_time() == Time::max());
    bool ordered = true;
    for (size_t i = 1; i < ran.size(); ++i) ordered = ordered && ran[i - 1] < ran[i];
    CHECK(ordered);
  }
}

TEST_CASE("a cancelled event's slot is reused only after its turn, and old ids stay dead", "[engine]") {
  Engine e;
  int ran = 0;
  EventId a = e.schedule_at(Time::ns(5), [&] { ran += 1; });
  CHECK(e.cancel(a));
  EventId b = e.schedule_at(Time::ns(1), [&] { ran += 10; });  // a's slot is still queued: a new one
  CHECK(b.slot != a.slot);
  CHECK(e.pending() == 2);
  e.run();
  CHECK(ran == 10);
  CHECK_FALSE(e.cancel(a));
  CHECK_FALSE(e.cancel(b));
}

// Holds reserved sequences the way the packet fabric's credit returns do.
class Reservations final : public Engine::SequenceHolder {
 public:
  std::vector<uint64_t> held;
  void sequences(std::vector<uint64_t>& out) const override { out.insert(out.end(), held.begin(), held.end()); }
  void renumber(const Engine& engine) override {
    for (uint64_t& s : held) s = engine.renumbered(s);
  }
};

TEST_CASE("a reserved sequence runs its event where it would have run if scheduled at once", "[engine]") {
  for (uint64_t limit : {uint64_t{1} << 36, uint64_t{8}}) {  // 8: renumbered while reservations are held
    Engine e(limit);
    Reservations r;
    e.hold_sequences(r);
    std::vector<int> order;
    for (int i = 0; i < 4; ++i) e.schedule_at(Time::ns(1), [] {});  // sequences that are gone when renumbered
    e.run(Time::ns(1));
    e.schedule_at(Time::ns(5), [&] { order.push_back(1); });
    r.held.push_back(e.reserve_sequence());  // its place: after event 1, before event 3
    e.schedule_at(Time::ns(5), [&] { order.push_back(3); });
    e.schedule_at(Time::ns(2), [&] {
      order.push_back(0);
      e.schedule_at_sequence(Time::ns(5), r.held.front(), [&] { order.push_back(2); });
    });
    e.schedule_at(Time::ns(3), [] {});  // with limit 8, the 9th sequence: renumbered here
    e.run();
    CHECK(order == std::vector<int>{0, 1, 2, 3});
  }
}

TEST_CASE("a reserved place already passed is refused", "[engine]") {
  Engine e;
  const uint64_t early = e.reserve_sequence();
  e.schedule_at(Time::ns(5), [&] { CHECK_THROWS_AS(e.schedule_at_sequence(Time::ns(5), early, [] {}), ModelError); });
  e.run();
  CHECK_THROWS_AS(e.schedule_at_sequence(Time::ns(9), 1000, [] {}), ModelError);  // never reserved
}
