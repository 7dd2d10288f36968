// The serving form of a scenario (scenarios/serving_reader.h), its request traces (request_trace_file.h),
// its errors at file:line:column, its round trip through `weft validate --resolved` and its report.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "scenarios/report.h"
#include "scenarios/request_trace_file.h"
#include "scenarios/run_scenario.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_yaml.h"
#include "scenarios/serving_layouts.h"
#include "scenarios/serving_plan.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/serving/kv_cache.h"
#include "workloads/serving/serving.h"

using namespace weft;

namespace {

std::string serving_text(const std::string& serving) {
  return "name: serve\nsystem: {name: dgx-h100}\nworkload:\n  serving:\n" + serving;
}

const std::string kGood = serving_text(
    "    model: llama-3-8b\n"
    "    parallel: {tp: 2, replicas: 2}\n"
    "    requests: {arrivals: poisson, rate: 5, count: 50, prompt: {distribution: uniform, mean: 300, spread: 100},\n"
    "               output: {mean: 20}}\n"
    "    scheduler: {max_seqs: 64}\n"
    "    slo: {ttft: 200ms}\n");

}  // namespace

TEST_CASE("a request trace: columns by name, sorted by arrival", "[serving]") {
  const std::vector<Request> r = parse_request_trace(
      "# comment\noutput_tokens,arrival_s,prompt_tokens,user\n5,0.5,100,a\n\n7,0.25,200,b\n", "t.csv");
  REQUIRE(r.size() == 2);
  CHECK(r[0].arrival == Time::ms(250));
  CHECK(r[0].prompt == 200);
  CHECK(r[0].output == 7);
  CHECK(r[1].id == 1);
}

TEST_CASE("a request trace may give each prompt's shared prefix", "[serving]") {
  const std::vector<Request> r = parse_request_trace(
      "arrival_s,prompt_tokens,output_tokens,prefix_tokens,prefix_group\n0,1000,5,800,3\n1,200,5,0,0\n", "t.csv");
  REQUIRE(r.size() == 2);
  CHECK(r[0].prefix == 800);
  CHECK(r[0].prefix_group == 3);
  CHECK(r[1].prefix == 0);
  CHECK_THROWS_WITH(parse_request_trace("arrival_s,prompt_tokens,output_tokens,prefix_group\n0,10,5,1\n", "t.csv"),
                    Catch::Contains("t.csv:1:1") && Catch::Contains("give both columns or neither"));
  CHECK_THROWS_WITH(
      parse_request_trace("arrival_s,prompt_tokens,output_tokens,prefix_tokens,prefix_group\n0,10,5,10,1\n", "t.csv"),
      Catch::Contains("t.csv:2:8") && Catch::Contains("prefix_tokens") && Catch::Contains("not below"));
  CHECK_THROWS_WITH(
      parse_request_trace("arrival_s,prompt_tokens,output_tokens,prefix_tokens,prefix_group\n0,10,5,2,-1\n", "t.csv"),
      Catch::Contains("t.csv:2:10") && Catch::Contains("prefix_group") && Catch::Contains("whole number >= 0"));
}

TEST_CASE("a malformed request trace names the file, line and column", "[serving]") {
  CHECK_THROWS_WITH(parse_request_trace("arrival_s,prompt_tokens\n0,1\n", "t.csv"),
                    Catch::Contains("t.csv:1:1") && Catch::Contains("no column output_tokens"));
  CHECK_THROWS_WITH(
      parse_request_trace("arrival_s,prompt_tokens,output_tokens\n0,10,5\n1.5, x12,3\n", "t.csv"),
      Catch::Contains("t.csv:3:6") && Catch::Contains("prompt_tokens") && Catch::Contains("expected a whole number"));
  CHECK_THROWS_WITH(parse_request_trace("arrival_s,prompt_tokens,output_tokens\n-1,10,5\n", "t.csv"),
                    Catch::Contains("t.csv:2:1") && Catch::Contains("seconds >= 0"));
  CHECK_THROWS_WITH(parse_request_trace("arrival_s,prompt_tokens,output_tokens\n1,10\n", "t.csv"),
                    Catch::Contains("t.csv:2") && Catch::Contains("output_tokens"));
  CHECK_THROWS_WITH(parse_request_trace("arrival_s,prompt_tokens,output_tokens\n", "t.csv"),
                    Catch::Contains("no requests"));
}

TEST_CASE("a serving scenario reads into its spec and draws its requests", "[serving]") {
  const Scenario s = load_scenario_text(kGood, "serve.yaml");
  REQUIRE(s.serving() != nullptr);
  const ServingWorkload& w = *s.serving();
  CHECK(w.spec.model.name == "llama-3-8b");
  CHECK(w.spec.tp == 2);
  CHECK(w.spec.replicas == 2);
  CHECK(w.spec.limits.max_seqs == 64);
  CHECK(w.spec.slo.ttft == Time::ms(200));
  CHECK(w.gpu == "h100-sxm");
  REQUIRE(w.requests.size() == 50);
  for (const Request& r : w.requests) {
    CHECK(r.prompt >= 200);
    CHECK(r.prompt <= 400);
    CHECK(r.output == 20);
  }
  CHECK(w.kv.blocks > 0);
}

TEST_CASE("serving mistakes are errors at their key", "[serving]") {
  CHECK_THROWS_WITH(load_scenario_text(serving_text("    model: llama-3-8b\n    requests: {count: 5, rate: 1}\n"
                                                    "    paralel: {tp: 2}\n"),
                                       "s.yaml"),
                    Catch::Contains("s.yaml:7:5") && Catch::Contains("paralel"));
  CHECK_THROWS_WITH(load_scenario_text(serving_text("    model: llama-3-8b\n"), "s.yaml"),
                    Catch::Contains("requests") && Catch::Contains("missing"));
  CHECK_THROWS_WITH(
      load_scenario_text(serving_text("    model: llama-3-8b\n    requests: {count: 5, rate: 0}\n"), "s.yaml"),
      Catch::Contains("s.yaml:6") && Catch::Contains("rate must be above 0"));
  CHECK_THROWS_WITH(load_scenario_text(
                        serving_text("    model: llama-3-8b\n    weights: int3\n    requests: {count: 5}\n"), "s.yaml"),
                    Catch::Contains("s.yaml:6") && Catch::Contains("int4"));
  CHECK_THROWS_WITH(
      load_scenario_text(serving_text("    model: llama-3-8b\n    requests: {trace: t.csv, rate: 3}\n"), "s.yaml"),
      Catch::Contains("no generated stream beside it"));
  // 70B in bf16 (141 GB) on one 80 GB GPU.
  CHECK_THROWS_WITH(load_scenario_text(serving_text("    model: llama-3-70b\n    requests: {count: 5}\n"), "s.yaml"),
                    Catch::Contains("s.yaml:5:5") && Catch::Contains("does not leave room for the KV cache"));
  CHECK_THROWS_WITH(load_scenario_text(serving_text("    model: llama-3-8b\n    parallel: {tp: 8, replicas: 2}\n"
                                                    "    requests: {count: 5}\n"),
                                       "s.yaml"),
                    Catch::Contains("16 GPUs, but the system has 8"));
  CHECK_THROWS_WITH(
      load_scenario_text(serving_text("    model: llama-3-8b\n    requests: {count: 5, prompt: {mean: 9000}}\n"),
                         "s.yaml"),
      Catch::Contains("request 0 needs 9128 tokens"));
}

TEST_CASE("a serving scenario written back reads to the same run", "[serving]") {
  const Scenario s = load_scenario_text(kGood, "serve.yaml");
  const std::string yaml = scenario_yaml(s);
  const Scenario again = load_scenario_text(yaml, "resolved.yaml");
  REQUIRE(again.serving() != nullptr);
  CHECK(again.serving()->requests.size() == s.serving()->requests.size());
  CHECK(again.serving()->requests.back().arrival == s.serving()->requests.back().arrival);
  CHECK(again.serving()->spec.limits.max_seqs == 64);
  CHECK(format_scenario(run_scenario(again), OutputFormat::csv) == format_scenario(run_scenario(s), OutputFormat::csv));
}

TEST_CASE("a serving report has the latency table and the cost per million tokens", "[serving]") {
  const ScenarioResult r = run_scenario(load_scenario_text(kGood, "serve.yaml"));
  const std::string table = format_scenario(r, OutputFormat::table);
  CHECK_THAT(table, Catch::Contains("ttft") && Catch::Contains("tpot") && Catch::Contains("per M output tokens") &&
                        Catch::Contains("50 requests"));
  const std::string json = format_scenario(r, OutputFormat::json);
  CHECK_THAT(json, Catch::Contains("\"goodput_requests_per_s\"") && Catch::Contains("\"series\""));
}

TEST_CASE("a serving plan: SLO attainment, the highest rate within it, the cheapest that meets it", "[serving]") {
  const Scenario s = load_scenario_text(kGood, "serve.yaml");
  const ServingPlanRow row = serve_for_plan("base", s, 0.9);
  CHECK(row.rate == 5);
  CHECK(row.attainment > 0.9);  // 5 requests/s of 300 tokens on two H100 pairs: TTFT far below 200 ms
  CHECK(row.meets);
  REQUIRE(row.usd_per_hour.has_value());
  // One GPU (no collectives to time) keeps the search's few dozen runs quick.
  const std::vector<std::string> one_gpu = {"workload.serving.parallel.tp=1", "workload.serving.parallel.replicas=1"};
  const Scenario single = load_scenario_text(kGood, "serve.yaml", one_gpu);
  const std::optional<ServingPlanRow> best = highest_rate("base", single, 0.9);
  REQUIRE(best.has_value());
  CHECK(best->meets);
  CHECK(best->rate > 5);
  // A TTFT no prefill can meet: out of reach at any rate.
  std::vector<std::string> tight_sets = one_gpu;
  tight_sets.emplace_back("workload.serving.slo.ttft=1us");
  const Scenario tight = load_scenario_text(kGood, "serve.yaml", tight_sets);
  CHECK_FALSE(highest_rate("tight", tight, 0.9).has_value());

  std::vector<ServingPlanRow> rows(3);
  rows[0].meets = true, rows[0].usd_per_hour = 30;
  rows[1].meets = false, rows[1].usd_per_hour = 1;
  rows[2].meets = true, rows[2].usd_per_hour = 3;
  CHECK(cheapest_serving(rows) == 2u);
  rows[0].meets = rows[2].meets = false;
  CHECK_FALSE(cheapest_serving(rows).has_value());
  // The same system at the same load: the one serving more tokens, whatever its price per output token.
  std::vector<ServingPlanRow> same(2);
  for (ServingPlanRow& r : same) r.meets = true, r.usd_per_hour = 30, r.attainment = 1;
  same[0].total_tokens_per_s = 1000, same[0].usd_per_m_output = 5;
  same[1].total_tokens_per_s = 1100, same[1].usd_per_m_output = 6;
  CHECK(cheapest_serving(same) == 1u);
  same[1].total_tokens_per_s = 1000, same[0].attainment = 0.95;
  CHECK(cheapest_serving(same) == 1u);
}

TEST_CASE("a disaggregated serving scenario: its pools, its KV transfers, written back, and its errors", "[serving]") {
  const std::string body =
      "    model: llama-3-8b\n"
      "    disaggregated: {prefill_tp: 2, prefill_replicas: 1, decode_tp: 2, decode_replicas: 2, "
      "kv_transfer: after_prefill}\n"
      "    requests: {rate: 10, count: 40, prompt: {mean: 600}, output: {mean: 40}}\n";
  const Scenario s = load_scenario_text(serving_text(body), "d.yaml");
  REQUIRE(s.serving() != nullptr);
  CHECK(s.serving()->spec.disaggregated.transfer == KvTransferMode::after_prefill);
  const ScenarioResult r = run_scenario(s);
  const std::string table = format_scenario(r, OutputFormat::table);
  CHECK_THAT(table, Catch::Contains("prefill tp 2 x 1, decode tp 2 x 2, KV after_prefill") &&
                        Catch::Contains("KV caches to decode: 40 sequences"));
  CHECK_THAT(format_scenario(r, OutputFormat::json), Catch::Contains("\"kv_transfer\""));
  const Scenario again = load_scenario_text(scenario_yaml(s), "resolved.yaml");
  CHECK(again.serving()->spec.disaggregated.decode_replicas == 2);
  CHECK(format_scenario(run_scenario(again), OutputFormat::csv) == format_scenario(r, OutputFormat::csv));

  CHECK_THROWS_WITH(load_scenario_text(serving_text("    model: llama-3-8b\n    parallel: {tp: 2}\n"
                                                    "    disaggregated: {prefill_tp: 2}\n    requests: {count: 5}\n"),
                                       "d.yaml"),
                    Catch::Contains("d.yaml:") && Catch::Contains("parallel:, not both"));
  CHECK_THROWS_WITH(
      load_scenario_text(serving_text("    model: llama-3-8b\n    disaggregated: {prefill_tp: 4, decode_tp: 8}\n"
                                      "    requests: {count: 5}\n"),
                         "d.yaml"),
      Catch::Contains("prefill 4 x 1 + decode 8 x 1 = 12 GPUs, but the system has 8"));
  CHECK_THROWS_WITH(load_scenario_text(serving_text("    model: llama-3-8b\n    disaggregated: {kv_transfer: later}\n"
                                                    "    requests: {count: 5}\n"),
                                       "d.yaml"),
                    Catch::Contains("expected after_prefill or layerwise"));
}

TEST_CASE("serving layouts: every split of the GPUs that holds the model, colocated and disaggregated", "[serving]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  ServingSpec spec;
  spec.model = model("llama-3-8b");
  const std::vector<ServingLayout> small = serving_layouts(spec, 8, 8, h100, 2048);
  std::set<std::string> names;
  for (const ServingLayout& l : small) {
    names.insert(l.name);
    CHECK(serving_gpus(l.spec) == 8);  // every GPU used
    CHECK((l.spec.pp == 1 || !l.spec.disaggregated.enabled()));
  }
  // tp x pp over 8 GPUs in powers of two: 4 + 3 + 2 + 1 colocated; disaggregated over 2 + 6, 4 + 4 and
  // 6 + 2 GPUs, each pool tp 1, 2 or 4 where it divides: 2 x 2 + 3 x 3 + 2 x 2.
  CHECK(small.size() == 10 + 17);
  CHECK(names.size() == small.size());
  for (const char* n : {"tp 8 x 1", "tp 2 x pp 2 x 2", "P tp 1 x 2 + D tp 2 x 3", "P tp 4 x 1 + D tp 4 x 1"}) {
    CHECK(names.count(n) == 1);
  }
  // Llama 3 70B in bf16 (141 GB) fits no GPU alone; every pool left holds the longest request.
  spec.model = model("llama-3-70b");
  const std::vector<ServingLayout> large = serving_layouts(spec, 8, 8, h100, 2048);
  CHECK(large.size() < small.size());
  for (const ServingLayout& l : large) {
    INFO(l.name);
    for (const ServingSpec& pool : pool_specs(l.spec)) {
      CHECK(pool.tp * pool.pp >= 2);
      CHECK(kv_capacity(pool, h100).tokens() >= 2048);
    }
  }
  // A mixture of experts adds expert-parallel replicas, placed whole within or across nodes.
  spec.model = model("mixtral-8x7b");
  names.clear();
  for (const ServingLayout& l : serving_layouts(spec, 16, 8, h100, 2048)) names.insert(l.name);
  CHECK(names.count("ep 8 x 2") == 1);
  CHECK(names.count("ep 4 x 4") == 1);
  CHECK(names.count("P tp 8 x 1 + D ep 8 x 1") == 1);
  CHECK(names.count("ep 16 x 1") == 0);  // 8 experts do not divide over 16 GPUs
}

TEST_CASE("serving layouts: a scenario laid out runs as that layout", "[serving]") {
  const Scenario s = load_scenario_text(kGood, "s.yaml");
  const ServingWorkload& w = *s.serving();
  const std::vector<ServingLayout> layouts =
      serving_layouts(w.spec, 8, 8, catalogue::gpu(w.gpu), longest_request(w.spec, w.requests));
  const auto it = std::find_if(layouts.begin(), layouts.end(),
                               [](const ServingLayout& l) { return l.name == "P tp 2 x 1 + D tp 2 x 3"; });
  REQUIRE(it != layouts.end());
  const Scenario laid = with_layout(s, *it);
  CHECK(laid.serving()->spec.disaggregated.decode_replicas == 3);
  const ScenarioResult r = run_scenario(laid);
  REQUIRE(r.serving);
  CHECK(r.serving->run.prefill_replicas == 1);
  CHECK(r.serving->run.replicas == 4);
  CHECK(r.serving->metrics.requests == 50);
}
