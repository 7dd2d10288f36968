// weft plan --search parallel (scenarios/plan_search.h): the search ranks every fitting plan and
// its best is never slower than the scenario's own plan; no fitting plan is a clear error.
#include <catch2/catch.hpp>

#include "scenarios/plan_search.h"
#include "scenarios/run_scenario.h"
#include "sim/core/errors.h"

using namespace weft;

namespace {

// 2 DGX H100 (16 GPUs), a 4-layer model with 1,024 hidden: the whole search takes seconds.
constexpr const char* kSmall = R"(name: small search
system: {name: dgx-h100, nodes: 2}
workload:
  model: {name: llama-2-7b, layers: 4, hidden: 1024, heads: 16, kv_heads: 16, ffn: 4096, vocab: 1024, max_seq: 1024}
  parallel: {tp: 2, sequence_parallel: true}
  batch: {global: 16, micro: 1}
  seq_len: 1024
  collective_timing: isolated
)";

}  // namespace

TEST_CASE("plan search: the best plan is at least as fast as the scenario's own", "[.slow][plan]") {
  // With collectives timed in isolation the final runs equal the ranking runs, and the scenario's
  // own plan is one of those searched: the best can only be as fast or faster.
  const Scenario s = load_scenario_text(kSmall, "t.yaml");
  const Time own = run_scenario(s).total;
  PlanSearchOptions options;
  options.top = 3;
  size_t calls = 0, last_done = 0, last_total = 0;
  options.progress = [&](size_t done, size_t total) {
    ++calls;
    last_done = done;
    last_total = total;
  };
  const PlanSearchResult r = search_parallel_plans(s, options);
  CHECK(calls == r.ranked.size() + 3);  // each plan timed, then the 3 final runs
  CHECK(last_done == last_total);
  CHECK(r.gpus == 16);
  CHECK(r.nvlink_domain == 8);
  REQUIRE(r.finals == 3);
  REQUIRE(r.ranked.size() == r.space.plans.size());
  CHECK(*r.ranked[0].final_time <= own);
  CHECK(*r.ranked[0].final_time == r.ranked[0].isolated);
  for (size_t i = 1; i < r.ranked.size(); ++i) {
    if (i < r.finals) CHECK(*r.ranked[i - 1].final_time <= *r.ranked[i].final_time);
    if (i > r.finals) CHECK(r.ranked[i - 1].isolated <= r.ranked[i].isolated);
  }
  CHECK(r.ranked[0].usd_per_step.has_value());  // dgx-h100 is priced
  const std::string table = format_plan_search(r);
  CHECK_THAT(table, Catch::Contains("plan search: small search on 16 GPUs (NVLink domain 8)"));
  CHECK_THAT(table, Catch::Contains(r.ranked[0].name));
}

TEST_CASE("plan search: no plan that fits names the closest and by how much", "[unit][plan]") {
  const std::string yaml = R"(name: too big
system: {name: dgx-h100, nodes: 2}
workload:
  model: llama-3.1-405b
  batch: {global: 16}
  seq_len: 8192
  allow_oom: true
)";
  const Scenario s = load_scenario_text(yaml, "t.yaml");
  CHECK_THROWS_WITH(search_parallel_plans(s), Catch::Contains("no parallel plan of too big fits on 16 GPUs") &&
                                                  Catch::Contains("the closest, tp ") && Catch::Contains("GiB over"));
}

TEST_CASE("plan search: a traced or non-training workload is refused", "[unit][plan]") {
  const Scenario s = load_scenario_text(
      "name: c\nsystem: {name: dgx-h100}\nworkload:\n  collectives:\n    - {op: all_reduce, size: 1MiB}\n", "t.yaml");
  CHECK_THROWS_WITH(search_parallel_plans(s), Catch::Contains("not a generated training step"));
}
