// Cost in every training run: the step's cost from the cluster's hourly cost, the scenario's cost:
// section over the bundled prices, missing prices named, the token budget, the grid of `plan:`.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/run_scenario.h"
#include "scenarios/scenario.h"
#include "sim/core/errors.h"

using namespace weft;

namespace {

// One box of 8 RTX 3090 training a small model (milliseconds to simulate).
std::string scenario(const std::string& extra = "") {
  return R"(name: cost test
system: {name: pcie-3090x8-nvlink, nodes: 1}
workload:
  model: {name: gpt-2-124m, layers: 2}
  parallel: {tp: 1}
  batch: {global: 8, micro: 1}
  seq_len: 512
  tokens: 1e9
)" + extra;
}

}  // namespace

TEST_CASE("Cost: each training run is priced; cost per step = cluster cost per second x step time", "[unit]") {
  const ScenarioResult r = run_scenario(load_scenario_text(scenario(), "c.yaml"));
  REQUIRE(r.cost);
  REQUIRE(r.cost->cluster);
  REQUIRE(r.cost->step);
  const auto& c = *r.cost->cluster;
  const auto& s = *r.cost->step;
  CHECK(c.capital_usd > 0);
  CHECK(s.usd_per_step == Approx(c.usd_per_hour / 3600 * r.total.seconds()).epsilon(1e-12));
  // 8 sequences of 512 tokens per step; 1e9 tokens take ceil(1e9 / 4096) steps.
  CHECK(s.tokens_per_step == 8 * 512);
  REQUIRE(s.train_steps);
  CHECK(*s.train_steps == 244141);
  CHECK(*s.train_usd == Approx(244141 * s.usd_per_step).epsilon(1e-12));
  CHECK(*s.usd_per_million_tokens == Approx(s.usd_per_step / 4096 * 1e6).epsilon(1e-12));
}

TEST_CASE("Cost: a price in the scenario's cost: section wins over the bundled book", "[unit]") {
  const ScenarioResult base = run_scenario(load_scenario_text(scenario(), "c.yaml"));
  const ScenarioResult quoted =
      run_scenario(load_scenario_text(scenario("cost:\n  prices:\n    gpu:\n      rtx-3090: 100\n"), "c.yaml"));
  REQUIRE(quoted.cost->cluster);
  double base_gpus = 0;
  for (const auto& line : base.cost->cluster->lines) {
    if (line.item == "gpu.rtx-3090") base_gpus = line.usd;
  }
  REQUIRE(base_gpus > 0);
  // 8 cards at 100 USD instead of the book's price: capital falls by the difference, exactly.
  CHECK(quoted.cost->cluster->capital_usd == Approx(base.cost->cluster->capital_usd - base_gpus + 800).epsilon(1e-12));
}

TEST_CASE("Cost: bad cost: keys are errors with file:line:column; a plan grid is read", "[unit]") {
  CHECK_THROWS_WITH(load_scenario_text(scenario("cost:\n  prices:\n    gpu:\n      rtx-9999: 1\n"), "c.yaml"),
                    Catch::Contains("c.yaml:12:") && Catch::Contains("rtx-9999"));
  const Scenario s =
      load_scenario_text(scenario("plan:\n  grid:\n    system.node.nic: [eth-25g, eth-100g]\n"), "c.yaml");
  REQUIRE(s.plan_grid.size() == 1);
  CHECK(s.plan_grid[0].key == "system.node.nic");
  CHECK(s.plan_grid[0].values == std::vector<std::string>{"eth-25g", "eth-100g"});
  CHECK_THROWS_WITH(load_scenario_text(scenario("plan:\n  grid:\n    system.node.nic: eth-25g\n"), "c.yaml"),
                    Catch::Contains("expected a list"));
}
