// A scenario written out (scenarios/scenario_yaml.h) reads back to the same scenario: every bundled
// scenario's written text is a fixed point, the cost: and plan: sections read back value by value,
// and compare: variants come back as the keys they set.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "scenarios/cost_section.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_yaml.h"
#include "scenarios/yaml_reader.h"

using namespace weft;

namespace {

// Written beside the source, so that a relative path would resolve the same way.
Scenario reread(const Scenario& s) { return load_scenario_text(scenario_yaml(s), s.source); }

}  // namespace

TEST_CASE("scenario yaml: every bundled scenario's written text reads back to the same text", "[scenario]") {
  int files = 0;
  for (const char* folder : {"scenarios", "scenarios/examples"}) {
    for (const auto& entry : std::filesystem::directory_iterator(std::string(WEFT_SOURCE_DIR) + "/" + folder)) {
      if (entry.path().extension() != ".yaml") continue;
      INFO(entry.path().string());
      const Scenario s = load_scenario_file(entry.path().string());
      const std::string text = scenario_yaml(s);
      const Scenario back = reread(s);
      CHECK(scenario_yaml(back) == text);
      CHECK(back.compare.size() == s.compare.size());
      for (size_t i = 0; i < s.compare.size() && i < back.compare.size(); ++i) {
        CHECK(back.compare[i].name == s.compare[i].name);
        CHECK(scenario_yaml(*back.compare[i].scenario) == scenario_yaml(*s.compare[i].scenario));
      }
      ++files;
    }
  }
  CHECK(files >= 9);
}

TEST_CASE("scenario yaml: the written scenario holds what was read, defaults included", "[scenario]") {
  const Scenario s = load_scenario_text(R"(system: {topology: ring, ranks: 4, link: {rate: 100Gbps, latency: 2us}}
fabric: {model: flow, pxn: true}
workload: {traffic: permutation, bytes: 1MB, seed: 7}
compare:
  - {name: bigger, set: {workload.bytes: 2MB, system.ranks: 8}}
)",
                                        "f.yaml");
  const std::string text = scenario_yaml(s);
  CHECK_THAT(text, Catch::Contains("topology: ring") && Catch::Contains("latency: 2000000ps") &&
                       Catch::Contains("rate: 100000000000bps") && Catch::Contains("pxn: true") &&
                       Catch::Contains("seed: 7") && Catch::Contains("priority: 0"));
  CHECK_THAT(text, !Catch::Contains("stagger"));  // incast only
  CHECK_THAT(text, Catch::Contains("set:\n      system.ranks: 8\n      workload.bytes: 2000000"));
  const Scenario back = load_scenario_text(text, "f.yaml");
  CHECK(back.fabric_options.pxn);
  REQUIRE(back.traffic());
  CHECK(back.traffic()->seed == std::optional<uint64_t>(7));
  REQUIRE(back.compare.size() == 1);
  CHECK(back.compare[0].scenario->system.ranks == 8);
}

TEST_CASE("scenario yaml: a cost: section reads back price by price", "[scenario]") {
  const cost::CostSettings c = cost::read_cost_section(YamlMap::parse(R"(cost:
  years: 3
  utilisation: 0.75
  prices:
    nic: {cx7: 1900}
    switch: {ib-400g-64p: {usd: 30000, watts: 700, source: "vendor quote: 2025-05, \"B\""}}
)",
                                                                      "c.yaml")
                                                           .map("cost"));
  const std::string text = cost_section_yaml(c, cost::default_prices());
  const cost::CostSettings back = cost::read_cost_section(YamlMap::parse(text, "w.yaml").map("cost"));
  CHECK(back.assumptions.years == 3);
  CHECK(back.assumptions.utilisation == 0.75);
  CHECK(back.assumptions.pue == c.assumptions.pue);
  REQUIRE(back.prices.entries.size() == c.prices.entries.size());
  for (const auto& [key, entry] : c.prices.entries) {
    INFO(key);
    const cost::PriceEntry& b = back.prices.entries.at(key);
    CHECK(b.usd == entry.usd);
    CHECK(b.usd_per_hour == entry.usd_per_hour);
    CHECK(b.watts == entry.watts);
    CHECK(b.source == entry.source);
  }
  // Only what differs from the book is written.
  CHECK_THAT(text, Catch::Contains("cx7") && Catch::Contains("ib-400g-64p") && !Catch::Contains("h100"));
}

TEST_CASE("scenario yaml: a plan grid reads back axis by axis", "[scenario]") {
  const std::vector<cost::GridAxis> grid = {{"workload.parallel.tp", {"1", "2", "8"}},
                                            {"system.network.technology", {"roce", "infiniband"}}};
  const std::string text = plan_grid_yaml(grid);
  const YamlMap plan = YamlMap::parse(text, "p.yaml").map("plan").map("grid");
  REQUIRE(plan.keys().size() == 2);
  CHECK(plan.strings("workload.parallel.tp") == grid[0].values);
  CHECK(plan.strings("system.network.technology") == grid[1].values);
}
