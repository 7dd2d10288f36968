// The field tables of the scenario file (scenarios/workload_fields.h, cost/assumption_fields.h):
// every key they list is one the readers take, into the member the table names, in the grammar and
// range the table states; docs/scenario-keys.md holds their tables.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cost/assumption_fields.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_fields.h"
#include "scenarios/scenario_keys.h"
#include "scenarios/workload_fields.h"
#include "sim/core/errors.h"
#include "tests/source_file.h"

using namespace weft;

namespace {

const std::string kTraining = R"(system: {name: dgx-h100, nodes: 1}
workload:
  model: {name: llama-3-8b}
  parallel: {tp: 2}
  batch: {global: 16, micro: 1}
  seq_len: 2048
cost: {years: 3}
)";

const std::string kCollectives = R"(system: {topology: single-switch, ranks: 8, link: {rate: 400Gbps, latency: 1us}}
workload:
  collectives:
    - {op: all_reduce, size: 64MiB, channels: 4}
)";

// kCollectives with its item's `channels: 4` replaced by `keys`.
std::string collectives_with(const std::string& keys) {
  std::string text = kCollectives;
  return text.replace(text.find("channels: 4"), 11, keys);
}

std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario_text(text, "f.yaml", sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("scenario keys: every training key reads back through --set as the table shows it", "[scenario]") {
  const Scenario base = load_scenario_text(kTraining, "f.yaml");
  for (const Field<TrainingWorkload>& f : training_fields()) {
    const std::string shown = f.show(*base.training());
    if (shown.empty()) continue;  // unset (tokens)
    INFO(f.key << " = " << shown);
    const Scenario again = load_scenario_text(kTraining, "f.yaml", {fmt::format("workload.{}={}", f.key, shown)});
    CHECK(f.show(*again.training()) == shown);
  }
}

TEST_CASE("scenario keys: a key sets the member its table names", "[scenario]") {
  const Scenario s =
      load_scenario_text(kTraining, "f.yaml",
                         {"workload.model.learned_positions=true", "workload.parallel.zero=2", "workload.bucket=50MiB",
                          "workload.tokens=1e9", "cost.pue=1.5", "workload.model.label=mine"});
  const TrainingWorkload& t = *s.training();
  CHECK(t.spec.model.learned_positions);
  CHECK(t.spec.model.name == "mine");
  CHECK(t.spec.sharding == Sharding::zero2);
  CHECK(t.spec.bucket == Bytes(50u << 20));
  REQUIRE(t.token_budget);
  CHECK(*t.token_budget == 1e9);
  CHECK(s.cost.assumptions.pue == 1.5);
  CHECK(s.cost.assumptions.years == 3);
  CHECK(t.spec.parallel.dp == 4);  // 8 GPUs / tp 2
  const Scenario c = load_scenario_text(collectives_with("channels: 4, chunk: 1MiB"), "f.yaml");
  CHECK(c.collectives()[0].ring.channels == 4);
  CHECK(c.collectives()[0].ring.chunk == Bytes(1 << 20));
}

TEST_CASE("scenario keys: a value out of its table's range fails at its line", "[scenario]") {
  CHECK(error_of(collectives_with("channels: 65")) == "f.yaml:4:47: channels: expected 1 to 64, got 65");
  CHECK_THAT(error_of(kTraining, {"workload.grad_bytes=9"}), Catch::EndsWith("grad_bytes: expected 0 to 8, got 9"));
  CHECK_THAT(error_of(kTraining, {"workload.parallel.zero=4"}),
             Catch::EndsWith("zero: expected 0, 1, 2 or 3, got '4'"));
  CHECK_THAT(error_of(kTraining, {"cost.pue=0.9"}), Catch::Contains("pue") && Catch::Contains("1 or more"));
  CHECK_THAT(error_of(kTraining, {"workload.model.gated_mlp=yes"}), Catch::Contains("gated_mlp"));
}

TEST_CASE("scenario keys: docs/scenario-keys.md holds every section's table", "[scenario]") {
  const std::string docs = source_file("docs/scenario-keys.md");
  const std::vector<KeySection> sections = scenario_keys();
  REQUIRE(sections.size() == 13);
  for (const KeySection& s : sections) {
    INFO(s.name);
    CHECK(docs.find(s.markdown) != std::string::npos);
    CHECK(!s.rows.empty());
  }
}

TEST_CASE("scenario keys: the top level, the custom system and the router's keys read through their tables",
          "[scenario]") {
  const Scenario base = load_scenario_text(kCollectives, "f.yaml");
  CHECK(base.name == "unnamed");
  CHECK(base.seed == 1);
  CHECK(base.system.link.kind == LinkKind::generic);
  const Scenario set = load_scenario_text(
      kCollectives, "f.yaml",
      {"name=probe", "seed=7", "compare_baseline=before", "system.topology=ring", "system.ranks=4",
       "system.link.kind=nvlink", "system.link.rate=100Gbps", "fabric={model: flow, routing: spray, pxn: true}"});
  CHECK(set.name == "probe");
  CHECK(set.seed == 7);
  CHECK(set.baseline == "before");
  CHECK(set.system.topology == "ring");
  CHECK(set.system.ranks == 4);
  CHECK(set.system.link.kind == LinkKind::nvlink);
  CHECK(set.system.link.rate == Bandwidth::gbps(100));
  CHECK(set.fabric_options.routing == RoutingPolicy::spray);
  CHECK(set.fabric_options.pxn);
  // Every key of each table shows back what it was set to.
  for (const Field<Scenario>& f : scenario_top_fields()) {
    const Scenario again = load_scenario_text(kCollectives, "f.yaml", {fmt::format("{}={}", f.key, f.show(set))});
    CHECK(f.show(again) == f.show(set));
  }
  for (const Field<SystemSpec>& f : custom_system_fields()) {
    const Scenario again =
        load_scenario_text(kCollectives, "f.yaml", {fmt::format("system.{}={}", f.key, f.show(set.system))});
    CHECK(f.show(again.system) == f.show(set.system));
  }
}

TEST_CASE("scenario keys: the small maps' errors name the key and what it takes", "[scenario]") {
  CHECK_THAT(error_of(kCollectives, {"system.ranks=0"}), Catch::EndsWith("ranks: expected 1 to 1048576, got 0"));
  CHECK_THAT(error_of(kCollectives, {"system.topology=torus"}),
             Catch::EndsWith("topology: unknown topology 'torus' (expected single-switch or ring)"));
  CHECK_THAT(error_of(kCollectives, {"system.link.kind=nvlnk"}), Catch::Contains("unknown link kind 'nvlnk'"));
  CHECK_THAT(error_of(kCollectives, {"seed=-1"}), Catch::Contains("seed"));
  CHECK_THAT(error_of(kCollectives, {"fabric={model: flow, pxn: yes}"}),
             Catch::Contains("pxn: expected true or false"));
  CHECK_THAT(error_of(kCollectives, {"fabric={model: flow, routing: random}"}),
             Catch::Contains("unknown policy 'random'"));
  CHECK_THAT(error_of(kCollectives, {"fabric={model: flow, ecn: {}}"}),
             Catch::Contains("ecn: configures the packet fabric only"));
  const std::string no_rate = R"(system: {topology: ring, ranks: 8, link: {latency: 1us}}
workload: {collectives: [{op: all_reduce, size: 1MiB}]}
)";
  CHECK_THAT(error_of(no_rate), Catch::Contains("rate"));
}
