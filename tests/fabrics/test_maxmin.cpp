#include <catch2/catch.hpp>
#include <vector>

#include "sim/maxmin.h"

using namespace weft;

namespace {

std::vector<uint64_t> solve(const std::vector<uint64_t>& caps, const std::vector<std::vector<uint32_t>>& flows) {
  MaxMinSolver s;
  for (uint64_t c : caps) s.add_link(c);
  for (const auto& f : flows) s.add_flow(f);
  s.solve();
  std::vector<uint64_t> rates;
  for (uint32_t i = 0; i < flows.size(); ++i) rates.push_back(s.rate(i));
  return rates;
}

}  // namespace

TEST_CASE("three flows over two links (Bertsekas & Gallager's textbook case)", "[maxmin]") {
  // Links A and B of 10 units. Flow 0 crosses A and B, flow 1 only A, flow 2 only B.
  // A and B each split 10 between two flows: all get 5.
  CHECK(solve({10, 10}, {{0, 1}, {0}, {1}}) == std::vector<uint64_t>{5, 5, 5});
  // Make B 4: B is the bottleneck at 2 each; flow 1 then takes what flow 0 leaves on A: 10 - 2 = 8.
  CHECK(solve({10, 4}, {{0, 1}, {0}, {1}}) == std::vector<uint64_t>{2, 8, 2});
}

TEST_CASE("a single flow gets its bottleneck", "[maxmin]") {
  CHECK(solve({100, 40, 70}, {{0, 1, 2}}) == std::vector<uint64_t>{40});
}

TEST_CASE("N to 1 incast: each sender gets rate / N", "[maxmin]") {
  // Eight uplinks of 400 and one shared downlink (index 8) of 400: 400 / 8 = 50 each.
  std::vector<uint64_t> caps(9, 400);
  std::vector<std::vector<uint32_t>> flows;
  for (uint32_t i = 0; i < 8; ++i) flows.push_back({i, 8});
  CHECK(solve(caps, flows) == std::vector<uint64_t>(8, 50));
}

TEST_CASE("rates are rounded down and never exceed a link", "[maxmin]") {
  // 10 over 3 flows: 3 each (1 bit/s left unused), never 4.
  auto r = solve({10}, {{0}, {0}, {0}});
  CHECK(r == std::vector<uint64_t>{3, 3, 3});
}

TEST_CASE("chain of bottlenecks: parking-lot topology", "[maxmin]") {
  // Links 0,1,2 of capacity 12. The long flow crosses all three; one short flow on each link.
  // Every link has two flows: 6 each, long flow included.
  CHECK(solve({12, 12, 12}, {{0, 1, 2}, {0}, {1}, {2}}) == std::vector<uint64_t>{6, 6, 6, 6});
  // Link 1 has two extra short flows: it gives 4 to each of its three flows; the short flows on
  // links 0 and 2 take the rest: 12 - 4 = 8.
  CHECK(solve({12, 12, 12}, {{0, 1, 2}, {0}, {1}, {1}, {2}}) == std::vector<uint64_t>{4, 8, 4, 4, 8});
}

TEST_CASE("the solver is reusable", "[maxmin]") {
  MaxMinSolver s;
  s.add_link(10);
  s.add_flow(std::vector<uint32_t>{0});
  s.solve();
  CHECK(s.rate(0) == 10);
  s.clear();
  s.add_link(6);
  s.add_flow(std::vector<uint32_t>{0});
  s.add_flow(std::vector<uint32_t>{0});
  s.solve();
  CHECK(s.rate(0) == 3);
  CHECK(s.rate(1) == 3);
}
