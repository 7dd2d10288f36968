// The plan search: cheapest meeting a target, fastest within a budget, the frontier, grids.
#include <catch2/catch.hpp>

#include "cost/plan.h"

using namespace weft;
using cost::PlanPoint;

TEST_CASE("Plan search on hand-made points", "[cost]") {
  const std::vector<PlanPoint> p = {
      {"A", Time::ms(10), 100},  // 0
      {"B", Time::ms(8), 150},   // 1
      {"C", Time::ms(12), 120},  // 2: dearer and slower than A
      {"D", Time::ms(5), 400},   // 3
      {"E", Time::ms(8), 150},   // 4: B again
      {"F", Time::ms(4), 1000},  // 5
  };
  // Frontier, cheapest first: A (100, 10 ms), B (150, 8 ms), D (400, 5 ms), F (1000, 4 ms).
  CHECK(cost::pareto_frontier(p) == std::vector<size_t>{0, 1, 3, 5});
  CHECK(cost::cheapest_meeting(p, Time::ms(10)) == 0u);
  CHECK(cost::cheapest_meeting(p, Time::ms(9)) == 1u);  // B and E tie: the earlier
  CHECK(cost::cheapest_meeting(p, Time::ms(5)) == 3u);
  CHECK_FALSE(cost::cheapest_meeting(p, Time::ms(3)));
  CHECK(cost::fastest_within(p, 500) == 3u);
  CHECK(cost::fastest_within(p, 150) == 1u);
  CHECK(cost::fastest_within(p, 119.99) == 0u);
  CHECK_FALSE(cost::fastest_within(p, 99));
  CHECK(cost::pareto_frontier(std::vector<PlanPoint>{}).empty());
}

TEST_CASE("Plan search finds the known optimum of a small grid", "[cost][validation]") {
  // Grid: NICs per node n in {1, 2, 4, 8} x port rate g in {100, 200, 400} Gb/s. A toy model:
  // step = 50 ms + 25,600 / (n g) ms of communication; capital = 100,000 + 10 n g USD.
  // Target 70 ms needs n g >= 1,280: (4, 400), (8, 200) at 116,000 USD and (8, 400) at 132,000.
  // (4, 400) and (8, 200) tie on both; the grid's order (last axis fastest) puts (4, 400) first.
  const std::vector<cost::GridAxis> axes = {{"nics", {"1", "2", "4", "8"}}, {"gbps", {"100", "200", "400"}}};
  const std::vector<cost::GridPoint> grid = cost::expand_grid(axes);
  REQUIRE(grid.size() == 12);
  std::vector<PlanPoint> points;
  for (const cost::GridPoint& g : grid) {
    const int64_t product = std::stoll(g[0].second) * std::stoll(g[1].second);
    points.push_back({cost::grid_point_name(g), Time::ms(50 + 25'600 / product), 100'000.0 + 10.0 * product});
  }
  const auto best = cost::cheapest_meeting(points, Time::ms(70));
  REQUIRE(best);
  CHECK(points[*best].name == "nics=4 gbps=400");
  CHECK(points[*best].usd == 116'000);
  // Budget 110,000 USD: n g <= 1,000 -> the fastest is n g = 800, first at (2, 400).
  CHECK(points[*cost::fastest_within(points, 110'000)].name == "nics=2 gbps=400");
  // Cost rises and time falls with n g, so the frontier is the first point of each product
  // 100, 200, 400, 800, 1,600, 3,200: indices 0, 1, 2, 5, 8, 11.
  CHECK(cost::pareto_frontier(points) == std::vector<size_t>{0, 1, 2, 5, 8, 11});
  CHECK_THAT(cost::format_plan(points, best), Catch::Matchers::Contains("* nics=4 gbps=400"));
}

TEST_CASE("Grid expansion", "[cost]") {
  CHECK(cost::expand_grid({}) == std::vector<cost::GridPoint>{cost::GridPoint{}});
  const std::vector<cost::GridAxis> empty_axis = {{"a", {"1"}}, {"b", {}}};
  CHECK(cost::expand_grid(empty_axis).empty());
  const std::vector<cost::GridAxis> two = {{"a", {"1", "2"}}, {"b", {"x", "y"}}};
  const auto g = cost::expand_grid(two);
  REQUIRE(g.size() == 4);
  CHECK(cost::grid_point_name(g[1]) == "a=1 b=y");
  CHECK(cost::grid_point_name(g[2]) == "a=2 b=x");
}
