// Prices, overrides, cluster cost and cost per step against closed forms.
#include <catch2/catch.hpp>

#include "cost/bill_of_materials.h"
#include "cost/cluster_cost.h"
#include "scenarios/cost_section.h"
#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"
#include "topologies/systems.h"

using namespace weft;
using Catch::Matchers::Contains;

namespace {

cost::BillOfMaterials bom_of(const char* name, int nodes) {
  ClusterSpec s = system_spec(name);
  s.nodes = nodes;
  return cost::bill_of_materials(build_cluster(s), s);
}

cost::CostSettings settings(const std::string& yaml) {
  return cost::read_cost_section(YamlMap::parse(yaml, "test.yaml").map("cost"));
}

constexpr double kHoursPerYear = 8'760;

}  // namespace

TEST_CASE("Every bundled price names its source and a valid item", "[cost]") {
  for (const auto& [key, entry] : cost::default_prices().entries) {
    INFO(key);
    CHECK_NOTHROW(cost::check_item_key(key));
    CHECK_FALSE(entry.source.empty());
    CHECK_FALSE(entry.power_source.empty());
    CHECK(entry.usd + entry.usd_per_hour > 0);
  }
  // GPUs draw their catalogue TDP.
  CHECK(cost::default_prices().entries.at("gpu.rtx-3090").watts == 350);
}

TEST_CASE("Cost of 32 DGX H100 with the bundled prices", "[cost]") {
  // Lines (test_bill_of_materials.cpp): 32 systems, 12 switches, 256 DAC, 256 AOC at 400G.
  // capital = 32 x 317,000 + 12 x 36,000 + 256 x 300 + 256 x 900 = 10,883,200 USD
  // IT power = 32 x 10,200 + 12 x 750 + 256 x 0 + 256 x 17 = 339,752 W
  cost::ClusterCost c = cost::cluster_cost(bom_of("dgx-h100", 32), cost::default_prices(), {});
  CHECK(c.capital_usd == Approx(10'883'200));
  CHECK(c.it_power_w == Approx(339'752));
  CHECK(c.rent_usd_per_hour == 0);
  // Defaults: 4 years, PUE 1.3, 0.0806 USD/kWh, load 1, utilisation 1.
  CHECK(c.facility_power_w == Approx(339'752 * 1.3));
  CHECK(c.capital_usd_per_hour == Approx(10'883'200 / (4 * kHoursPerYear)));
  CHECK(c.energy_usd_per_hour == Approx(339.752 * 1.3 * 0.0806));
  CHECK(c.usd_per_hour == Approx(c.capital_usd_per_hour + c.energy_usd_per_hour));
  CHECK(c.usd_per_gpu_hour == Approx(c.usd_per_hour / 256));
  // Included lines carry no price.
  for (const cost::CostLine& l : c.lines) {
    if (l.included) CHECK(l.usd + l.watts == 0);
  }
}

TEST_CASE("Cost of two 3090 boxes, the switch from its per-port price", "[cost]") {
  // 2 x 12,000 servers + 16 x 1,499 GPUs + 4 x 600 PCIe switches + 2 x 800 NICs + 8 x 80 bridges
  // + 64 ports x 300 (switch.eth-100g-64p from switch-port.eth-100g) + 2 x 80 DAC = 71,984 USD.
  // Power: 2 x 800 + 16 x 350 + 4 x 20 + 2 x 20 + 64 x 8 = 7,832 W.
  cost::ClusterCost c = cost::cluster_cost(bom_of("pcie-3090x8-nvlink", 2), cost::default_prices(), {});
  CHECK(c.capital_usd == Approx(71'984));
  CHECK(c.it_power_w == Approx(7'832));
  bool found = false;
  for (const cost::CostLine& l : c.lines) {
    if (l.item != "switch.eth-100g-64p") continue;
    found = true;
    CHECK_THAT(l.source, Contains("64 x switch-port.eth-100g"));
  }
  CHECK(found);
}

TEST_CASE("Rented instances cost their rent, network and power included", "[cost]") {
  cost::ClusterCost c = cost::cluster_cost(bom_of("aws-p5", 4), cost::default_prices(), {});
  CHECK(c.capital_usd == 0);
  CHECK(c.it_power_w == 0);
  CHECK(c.rent_usd_per_hour == Approx(4 * 98.32));
  CHECK(c.usd_per_hour == Approx(4 * 98.32));
  CHECK(c.usd_per_gpu_hour == Approx(98.32 / 8));
}

TEST_CASE("A missing price is an error naming the item, never zero", "[cost]") {
  // aws-p5 with 4 NICs is not the instance any more: its parts need prices, and EFA has none.
  ClusterSpec s = system_spec("aws-p5");
  s.nodes = 2;
  s.node.nics = 4;
  cost::BillOfMaterials bom = cost::bill_of_materials(build_cluster(s), s);
  CHECK(cost::missing_prices(bom, cost::default_prices()) == std::vector<std::string>{"nic.efa"});
  REQUIRE_THROWS_AS(cost::cluster_cost(bom, cost::default_prices(), {}), ConfigError);
  CHECK_THROWS_WITH(cost::cluster_cost(bom, cost::default_prices(), {}), Contains("no price for nic.efa"));

  cost::PriceBook book = cost::default_prices();
  book.entries.erase("cable.aoc-400g");
  book.entries.erase("switch.ib-400g-64p");
  book.entries.erase("switch-port.ib-400g");
  CHECK(cost::missing_prices(bom_of("dgx-h100", 32), book) ==
        std::vector<std::string>{"switch.ib-400g-64p", "cable.aoc-400g"});
  CHECK_THROWS_WITH(cost::cluster_cost(bom_of("dgx-h100", 32), book, {}),
                    Contains("switch.ib-400g-64p, cable.aoc-400g"));
}

TEST_CASE("A scenario's quotes win over the bundled prices", "[cost]") {
  cost::CostSettings s = settings(R"(cost:
  years: 3
  pue: 1.5
  prices:
    nic:
      cx7: 1900
      efa: 500
    switch:
      ib-400g-64p: {usd: 30000, watts: 700, source: "vendor quote 2025-05"}
    system:
      dgx-h100: 300000
)");
  CHECK(s.assumptions.years == 3);
  CHECK(s.assumptions.pue == 1.5);
  CHECK(s.assumptions.usd_per_kwh == Approx(0.0806));  // left at its default
  const auto& e = s.prices.entries;
  CHECK(e.at("nic.cx7").usd == 1900);
  CHECK(e.at("nic.cx7").watts == 25);  // a bare number keeps the book's power
  CHECK_THAT(e.at("nic.cx7").source, Contains("test.yaml:6:12"));
  CHECK(e.at("nic.efa").usd == 500);  // an item the book lacks is added
  CHECK(e.at("switch.ib-400g-64p").usd == 30000);
  CHECK(e.at("switch.ib-400g-64p").watts == 700);
  CHECK(e.at("switch.ib-400g-64p").source == "vendor quote 2025-05");
  // 32 x 300,000 + 12 x 30,000 + 256 x 300 + 256 x 900 = 10,267,200; over 3 years.
  cost::ClusterCost c = cost::cluster_cost(bom_of("dgx-h100", 32), s.prices, s.assumptions);
  CHECK(c.capital_usd == Approx(10'267'200));
  CHECK(c.capital_usd_per_hour == Approx(10'267'200 / (3 * kHoursPerYear)));
  CHECK(c.facility_power_w == Approx((32 * 10'200 + 12 * 700 + 256 * 17) * 1.5));
}

TEST_CASE("Bad cost sections say where and what was expected", "[cost]") {
  CHECK_THROWS_WITH(
      settings("cost:\n  prices:\n    gpus:\n      rtx-3090: 1\n"),
      Contains("test.yaml:4:7: cost.prices.gpus: no price category 'gpus'") && Contains("did you mean 'gpu'"));
  CHECK_THROWS_WITH(settings("cost:\n  prices:\n    gpu:\n      rtx-3091: 1\n"),
                    Contains("test.yaml:4:17: cost.prices.gpu.rtx-3091: no GPU 'rtx-3091'"));
  CHECK_THROWS_WITH(settings("cost:\n  prices:\n    switch:\n      ib-400g: 1\n"),
                    Contains("expected e.g. switch.ib-400g-64p"));
  CHECK_THROWS_WITH(settings("cost:\n  prices:\n    nic:\n      cx7: {usd: 1, wats: 3}\n"),
                    Contains("unknown key 'wats'"));
  CHECK_THROWS_WITH(settings("cost:\n  prices:\n    nic:\n      cx7: -5\n"), Contains("0 or more"));
  CHECK_THROWS_WITH(settings("cost:\n  prices:\n    nic:\n      cx7: cheap\n"), Contains("expected a number"));
  CHECK_THROWS_WITH(settings("cost:\n  pue: 0.9\n"), Contains("test.yaml:2:8") && Contains("pue"));
  CHECK_THROWS_WITH(settings("cost:\n  yeras: 3\n"), Contains("unknown key 'yeras'"));
}

TEST_CASE("Cost per step is cost per second times step time", "[cost][validation]") {
  // One item: 35,040 USD = 1 USD/h over 4 years of 8,760 h; 1,000 W at PUE 1 and 0.5 USD/kWh =
  // 0.5 USD/h; total 1.5 USD/h.
  cost::BillOfMaterials bom;
  bom.name = "toy";
  bom.gpus = 2;
  bom.lines.push_back({"gpu.rtx-4090", "a GPU", 1, false});
  cost::PriceBook book;
  book.entries["gpu.rtx-4090"] = {35'040, 0, 1'000, "test", "test"};
  cost::CostAssumptions a;
  a.pue = 1;
  a.usd_per_kwh = 0.5;
  cost::ClusterCost c = cost::cluster_cost(bom, book, a);
  CHECK(c.usd_per_hour == Approx(1.5));
  CHECK(c.usd_per_gpu_hour == Approx(0.75));

  // 2 s steps of 1e6 tokens: 1.5 / 3600 x 2 USD per step, the same per million tokens; a budget of
  // 2.5e6 tokens takes ceil(2.5) = 3 steps = 6 s.
  cost::StepCost s = cost::step_cost(c, Time::ms(2'000), 1e6, 2.5e6);
  CHECK(s.usd_per_step == Approx(1.5 / 3'600 * 2));
  CHECK(*s.usd_per_million_tokens == Approx(s.usd_per_step));
  CHECK(s.facility_kwh_per_step == Approx(1.0 * 2 / 3'600));
  CHECK(*s.train_steps == 3);
  CHECK(*s.train_seconds == Approx(6));
  CHECK(*s.train_usd == Approx(3 * s.usd_per_step));

  // Half utilisation doubles the capital share: 2 + 0.5 USD/h.
  a.utilisation = 0.5;
  CHECK(cost::cluster_cost(bom, book, a).usd_per_hour == Approx(2.5));

  // Without tokens: no per-token figures; a budget then is an error.
  cost::StepCost bare = cost::step_cost(c, Time::ms(1'000), 0);
  CHECK_FALSE(bare.usd_per_million_tokens);
  CHECK_FALSE(bare.train_steps);
  CHECK_THROWS_AS(cost::step_cost(c, Time::ms(1'000), 0, 1e9), ConfigError);
}

TEST_CASE("Performance per dollar relative to a base variant", "[cost]") {
  cost::StepCost base{.usd_per_step = 2, .tokens_per_step = 100};
  cost::StepCost cheaper{.usd_per_step = 1, .tokens_per_step = 100};
  cost::StepCost bigger{.usd_per_step = 2, .tokens_per_step = 300};
  CHECK(cost::relative_performance_per_dollar(base, base) == Approx(1));
  CHECK(cost::relative_performance_per_dollar(base, cheaper) == Approx(2));
  CHECK(cost::relative_performance_per_dollar(base, bigger) == Approx(3));
  cost::StepCost no_tokens{.usd_per_step = 4};
  CHECK(cost::relative_performance_per_dollar(base, no_tokens) == Approx(0.5));  // steps per dollar
}
