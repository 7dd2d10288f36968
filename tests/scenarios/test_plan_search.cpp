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
  options.isolated = 0;  // no screen: every plan ranked in isolation
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
  CHECK(r.screened == 0);
  CHECK(r.isolated == r.ranked.size());
  CHECK(*r.ranked[0].final_time <= own);
  CHECK(*r.ranked[0].final_time == *r.ranked[0].isolated);
  for (size_t i = 1; i < r.ranked.size(); ++i) {
    CHECK_FALSE(r.ranked[i].screened);
    if (i < r.finals) CHECK(*r.ranked[i - 1].final_time <= *r.ranked[i].final_time);
    if (i > r.finals) CHECK(*r.ranked[i - 1].isolated <= *r.ranked[i].isolated);
  }
  CHECK(r.ranked[0].usd_per_step.has_value());  // dgx-h100 is priced
  const std::string table = format_plan_search(r);
  CHECK_THAT(table, Catch::Contains("plan search: small search on 16 GPUs (NVLink domain 8)"));
  CHECK_THAT(table, Catch::Contains(r.ranked[0].name));
}

TEST_CASE("plan search: a screened search finds the same best plan, on any number of threads", "[.slow][plan]") {
  // The screen (NCCL's estimate of each collective) keeps the best 16 for isolated runs; the whole
  // search above ranks every plan in isolation. Both must end on the same best plan and time.
  const Scenario s = load_scenario_text(kSmall, "t.yaml");
  PlanSearchOptions whole;
  whole.top = 1;
  whole.isolated = 0;
  const PlanSearchResult all = search_parallel_plans(s, whole);
  for (unsigned threads : {1u, 2u}) {
    PlanSearchOptions screened = whole;
    screened.isolated = 16;
    screened.threads = threads;
    const PlanSearchResult r = search_parallel_plans(s, screened);
    CHECK(r.screened == all.ranked.size());
    CHECK(r.isolated == 16);
    REQUIRE(r.ranked.size() == all.ranked.size());
    CHECK(r.ranked[0].name == all.ranked[0].name);
    CHECK(*r.ranked[0].final_time == *all.ranked[0].final_time);
    for (size_t i = 0; i < r.ranked.size(); ++i) {
      CHECK(r.ranked[i].screened);
      CHECK(r.ranked[i].isolated.has_value() == (i < 16));
      if (i > 16) CHECK(*r.ranked[i - 1].screened <= *r.ranked[i].screened);
    }
    CHECK_THAT(format_plan_search(r), Catch::Contains("screened with NCCL's estimate"));
  }
}

TEST_CASE("plan search: the screen's micro-batches extended along the steady state give the whole step",
          "[.slow][plan]") {
  // A pipeline in its steady state adds one period per micro-batch (or two alternating ones): the
  // screen runs pp + 2 and pp + 4 micro-batches (2·pp and 3·pp interleaved) and extends the line.
  // Against the whole replay with the same collective times, on plans with many micro-batches.
  const Scenario s = load_scenario_text(kSmall, "t.yaml");
  TrainingSpec base = s.training()->spec;
  base.global_batch = 64;
  struct Case {
    uint32_t tp, pp, dp, vs;
  };
  for (const Case c : {Case{2, 2, 4, 1}, Case{2, 4, 2, 1}, Case{1, 4, 4, 1}, Case{2, 2, 4, 2}, Case{1, 1, 16, 1}}) {
    TrainingSpec plan = base;
    plan.parallel = {.tp = c.tp, .dp = c.dp, .pp = c.pp};
    plan.virtual_stages = c.vs;
    if (c.vs > 1) plan.pipeline = PipelineKind::interleaved;
    plan.sequence_parallel = c.tp > 1;
    const Time whole = replica_step(s, plan, CollectiveTiming::model);
    const Time screened = screened_step(s, plan);
    INFO(plan_name(plan) << ": whole " << whole.seconds() << " s, screened " << screened.seconds() << " s");
    CHECK(std::abs(screened.seconds() / whole.seconds() - 1) < 1e-3);
  }
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
