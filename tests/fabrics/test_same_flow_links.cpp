#include <catch2/catch.hpp>
#include <cstdint>

#include "sim/same_flow_links.h"

using namespace weft;

namespace {

uint128 sum_of(std::initializer_list<uint32_t> flows) {
  uint128 sum = 0;
  for (uint32_t f : flows) sum += SameFlowLinks::flow_key(f);
  return sum;
}

}  // namespace

TEST_CASE("SameFlowLinks: links with the same flows share a set; the least capacity is kept", "[flow]") {
  SameFlowLinks sets;
  sets.clear();
  const uint32_t ab = sets.enter(7, sum_of({1, 2}), 2, 500);
  CHECK(sets.enter(3, sum_of({2, 1}), 2, 400) == ab);  // the same flows in another order
  CHECK(sets.enter(2, sum_of({1, 2}), 2, 400) == ab);  // a tie in capacity: the lesser LinkId
  CHECK(sets.enter(9, sum_of({1, 2}), 2, 450) == ab);
  const uint32_t a = sets.enter(4, sum_of({1}), 1, 100);
  const uint32_t c = sets.enter(5, sum_of({1, 3}), 2, 100);
  CHECK(a != ab);
  CHECK(c != ab);
  CHECK(c != a);
  CHECK(sets.first(ab) == 7);
  CHECK(sets.kept(ab) == 2);
  CHECK(sets.kept_capacity(ab) == 400);
  CHECK(sets.kept(a) == 4);
  // A flow that left and one that came give a new set, not an old one's.
  CHECK(sets.enter(6, sum_of({1, 2}) - SameFlowLinks::flow_key(2) + SameFlowLinks::flow_key(3), 2, 100) == c);

  sets.clear();  // a new component: nothing of the last one is found
  CHECK(sets.enter(8, sum_of({1, 2}), 2, 900) == 0);
  CHECK(sets.kept(0) == 8);
}

TEST_CASE("SameFlowLinks: a component of thousands of sets outgrows the table and keeps every set", "[flow]") {
  SameFlowLinks sets;
  sets.clear();
  for (uint32_t f = 0; f < 5000; ++f) REQUIRE(sets.enter(f, sum_of({f}), 1, 100 + f) == f);
  for (uint32_t f = 0; f < 5000; ++f) {
    REQUIRE(sets.enter(10'000 + f, sum_of({f}), 1, 50) == f);
    REQUIRE(sets.kept(f) == 10'000 + f);
    REQUIRE(sets.first(f) == f);
  }
}
