#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "scenarios/report.h"
#include "scenarios/run_scenario.h"
#include "scenarios/scenario.h"
#include "scenarios/traffic_reader.h"
#include "sim/core/errors.h"
#include "topologies/builders.h"

using namespace weft;

namespace {

const LinkSpec k100G{LinkKind::ethernet, Bandwidth::gbps(100), Time::us(1)};

TrafficSpec incast(std::vector<uint32_t> senders, Bytes bytes) {
  TrafficSpec t;
  t.kind = TrafficKind::incast;
  t.senders = std::move(senders);
  t.bytes = bytes;
  return t;
}

TrafficSpec pattern(TrafficKind kind, Bytes bytes) {
  TrafficSpec t;
  t.kind = kind;
  t.bytes = bytes;
  return t;
}

// Line numbers in the error checks below count from `name:` as line 1.
const std::string kIncast = R"(name: incast
system:
  topology: single-switch
  ranks: 5
  link: {rate: 100Gbps, latency: 1us}
workload:
  traffic: incast
  senders: 4
  bytes: 1MB
)";

std::string with(const std::string& text, const std::string& from, const std::string& to) {
  std::string s = text;
  REQUIRE(s.find(from) != std::string::npos);
  s.replace(s.find(from), from.size(), to);
  return s;
}

std::string error_of(const std::string& text) {
  try {
    load_scenario_text(text, "t.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("incast: N senders are the first N ranks other than the receiver, staggered in order", "[traffic]") {
  TrafficSpec t = incast({}, Bytes(1000));
  t.senders = {1, 2, 3};
  t.start = Time::us(5);
  t.stagger = Time::us(2);
  t.priority = 3;
  std::vector<FlowSpec> flows = make_traffic(t, 4, 1);
  REQUIRE(flows.size() == 3);
  for (uint32_t k = 0; k < 3; ++k) {
    CHECK(flows[k].src == k + 1);
    CHECK(flows[k].dst == 0);
    CHECK(flows[k].start == Time::us(5 + 2 * k));
    CHECK(flows[k].priority == 3);
  }
  // From YAML: a count skips the receiver.
  Scenario s = load_scenario_text(with(kIncast, "  senders: 4\n", "  senders: 3\n  receiver: 1\n"), "t.yaml");
  REQUIRE(s.traffic());
  CHECK(s.traffic()->senders == std::vector<uint32_t>{0, 2, 3});
  CHECK(s.traffic()->receiver == 1);
  CHECK(s.collectives().empty());
  CHECK(s.training() == nullptr);  // one workload form only
  Scenario listed = load_scenario_text(with(kIncast, "senders: 4", "senders: [4, 2]"), "t.yaml");
  CHECK(listed.traffic()->senders == std::vector<uint32_t>{4, 2});
}

TEST_CASE("permutation: a derangement, reproducible per seed", "[traffic]") {
  for (uint32_t n : {2u, 3u, 17u, 100u}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      std::vector<FlowSpec> flows = make_traffic(pattern(TrafficKind::permutation, Bytes(64)), n, seed);
      REQUIRE(flows.size() == n);
      std::set<uint32_t> sources, destinations;
      for (const FlowSpec& f : flows) {
        CHECK(f.src != f.dst);
        sources.insert(f.src);
        destinations.insert(f.dst);
      }
      CHECK(sources.size() == n);       // each rank sends exactly once...
      CHECK(destinations.size() == n);  // ...and receives exactly once
    }
  }
  auto destinations = [](uint64_t seed, std::optional<uint64_t> own) {
    TrafficSpec t = pattern(TrafficKind::permutation, Bytes(64));
    t.seed = own;
    std::vector<uint32_t> out;
    for (const FlowSpec& f : make_traffic(t, 64, seed)) out.push_back(f.dst);
    return out;
  };
  CHECK(destinations(7, std::nullopt) == destinations(7, std::nullopt));
  CHECK(destinations(7, std::nullopt) != destinations(8, std::nullopt));
  CHECK(destinations(1, 7) == destinations(2, 7));  // the spec's own seed wins over the scenario's
  CHECK_THROWS_AS(make_traffic(pattern(TrafficKind::permutation, Bytes(64)), 1, 1), ConfigError);
}

TEST_CASE("all_to_all: every ordered pair once, n(n-1) flows", "[traffic]") {
  std::vector<FlowSpec> flows = make_traffic(pattern(TrafficKind::all_to_all, Bytes(4096)), 6, 1);
  CHECK(flows.size() == 6 * 5);
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (const FlowSpec& f : flows) {
    CHECK(f.src != f.dst);
    pairs.insert({f.src, f.dst});
  }
  CHECK(pairs.size() == 30);
}

TEST_CASE("traffic forms read from YAML", "[traffic]") {
  Scenario p = load_scenario_text(with(kIncast, "  traffic: incast\n  senders: 4\n",
                                       "  traffic: permutation\n  seed: 9\n  priority: 2\n  start: 3us\n"),
                                  "t.yaml");
  CHECK(p.traffic()->kind == TrafficKind::permutation);
  CHECK(p.traffic()->seed == 9u);
  CHECK(p.traffic()->priority == 2);
  CHECK(p.traffic()->start == Time::us(3));
  CHECK(p.traffic()->bytes == Bytes(1'000'000));
  Scenario a = load_scenario_text(with(kIncast, "traffic: incast\n  senders: 4", "traffic: all_to_all"), "t.yaml");
  CHECK(make_traffic(*a.traffic(), a.system.ranks, a.seed).size() == 20);
  Scenario f = load_scenario_text(with(kIncast, "incast\n  senders: 4\n  bytes: 1MB\n",
                                       "flows\n  flows:\n    - {src: 1, dst: 2, bytes: 4KB}\n"
                                       "    - {src: 3, dst: 0, bytes: 1MiB, start: 2us, priority: 5}\n"),
                                  "t.yaml");
  REQUIRE(f.traffic()->flows.size() == 2);
  CHECK(f.traffic()->flows[0].bytes == Bytes(4000));
  CHECK(f.traffic()->flows[0].start == Time());
  CHECK(f.traffic()->flows[1].start == Time::us(2));
  CHECK(f.traffic()->flows[1].priority == 5);
  CHECK(f.traffic()->flows[1].bytes == Bytes(1 << 20));
}

TEST_CASE("bad traffic names file, line, column and what was expected", "[traffic]") {
  CHECK_THAT(error_of(with(kIncast, "senders: 4", "senders: 5")),
             Catch::StartsWith("t.yaml:8:12: senders: expected 1 to 4"));
  CHECK_THAT(error_of(with(kIncast, "senders: 4", "senders: [1, 9]")),
             Catch::StartsWith("t.yaml:8:12: senders: rank 9 is out of range"));
  CHECK_THAT(error_of(with(kIncast, "senders: 4", "senders: [1, 0]")),
             Catch::StartsWith("t.yaml:8:12: senders: rank 0 is the receiver"));
  CHECK_THAT(error_of(with(kIncast, "senders: 4", "senders: [1, 1]")), Catch::Contains("listed twice"));
  CHECK_THAT(error_of(with(kIncast, "senders: 4", "senders: [1, x]")),
             Catch::StartsWith("t.yaml:8:16: senders: expected a whole number"));
  CHECK_THAT(error_of(with(kIncast, "senders: 4", "senders: 4\n  receiver: 5")),
             Catch::StartsWith("t.yaml:9:13: receiver: rank 5 is out of range"));
  CHECK_THAT(error_of(with(kIncast, "bytes: 1MB", "bytes: 0")),
             Catch::Equals("t.yaml:9:10: bytes: expected at least 1, got 0"));
  CHECK_THAT(error_of(with(kIncast, "bytes: 1MB", "bytes: 1MB\n  priority: 8")),
             Catch::Equals("t.yaml:10:13: priority: expected 0 to 7, got 8"));
  CHECK(error_of(with(kIncast, "bytes: 1MB", "bytes: 1MB\n  seed: 3")) ==
        "t.yaml:10:9: seed: applies to traffic: permutation only");
  CHECK_THAT(error_of(with(kIncast, "traffic: incast", "traffic: broadcast")),
             Catch::StartsWith("t.yaml:7:12: traffic: unknown pattern 'broadcast'") && Catch::Contains("permutation"));
  CHECK_THAT(error_of(with(kIncast, "  traffic: incast\n", "  traffic: incast\n  collectives: []\n")),
             Catch::StartsWith("t.yaml:7:3: workload: expected one of model: (a training step), trace: (a traced "
                               "step), collectives:, traffic: or serving:"));
  CHECK_THAT(error_of(with(kIncast, "  bytes: 1MB\n", "")), Catch::StartsWith("t.yaml:7:3: bytes: missing"));
  const std::string flows =
      with(kIncast, "incast\n  senders: 4\n  bytes: 1MB\n", "flows\n  flows:\n    - {src: 1, dst: 2, bytes: 4KB}\n");
  CHECK_THAT(error_of(with(flows, "dst: 2", "dst: 1")),
             Catch::StartsWith("t.yaml:9:21: dst: the same rank as src (1)"));
  CHECK_THAT(error_of(with(flows, "dst: 2", "dst: 5")), Catch::StartsWith("t.yaml:9:21: dst: rank 5 is out of range"));
  CHECK_THAT(error_of(with(flows, "bytes: 4KB", "bytes: 4KB, prio: 1")),
             Catch::StartsWith("t.yaml:9:36: unknown key 'prio'"));
  CHECK_THAT(error_of(with(flows, "bytes: 4KB", "bytes: 4KB, priority: 9")),
             Catch::StartsWith("t.yaml:9:46: priority"));
}

// 16 senders -> rank 0 over one 100 Gb/s switch, 1 us per link, 10 MB each. Max-min gives each
// flow 100/16 Gb/s of the receiver's downlink from start to end (their uplinks have room), so all
// drain together after 16 * 10e6 B * 8 / 100e9 b/s = 12.8 ms, and arrive 2 links * 1 us later.
// Alone, a flow would take 10e6 * 8 / 100e9 = 0.8 ms + 2 us: a slowdown of 12802 / 802.
TEST_CASE("a 16-to-1 incast on the flow fabric: the receiver's downlink shared equally", "[traffic][validation]") {
  Topology t = single_switch(17, k100G);
  TrafficSpec spec = incast({}, Bytes(10'000'000));
  for (uint32_t r = 1; r <= 16; ++r) spec.senders.push_back(r);
  TrafficResult r = run_traffic(make_traffic(spec, 17, 1), t, {"flow", 1});
  const Time expected = Time::us(12'800) + Time::us(2);
  REQUIRE(r.flows.size() == 16);
  for (const FlowOutcome& f : r.flows) {
    CHECK(f.fct == expected);
    CHECK(f.ideal == Time::us(802));
    CHECK(f.slowdown == Approx(12802.0 / 802.0).epsilon(1e-12));
  }
  CHECK(r.summary.flows == 16);
  CHECK(r.summary.min == expected);
  CHECK(r.summary.median == expected);
  CHECK(r.summary.p99 == expected);
  CHECK(r.summary.max == expected);
  CHECK(r.summary.makespan == expected);
  CHECK(r.summary.bytes == Bytes(160'000'000));
  CHECK(r.summary.goodput_Gbps == Approx(160e6 * 8 / 12802e-6 / 1e9));
  CHECK(r.fabric.transfers_done == 16);
  CHECK(r.fabric.bytes_delivered == Bytes(160'000'000));
  // The analytic fabric has no contention: every flow at its ideal.
  TrafficResult alone = run_traffic(make_traffic(spec, 17, 1), t, {"analytic", 1});
  for (const FlowOutcome& f : alone.flows) CHECK(f.fct == Time::us(802));
}

// A permutation on one switch: every rank has its own uplink and downlink, so no two flows share a
// link and each takes exactly its ideal time.
TEST_CASE("a permutation on one switch runs every flow at its ideal", "[traffic][validation]") {
  Topology t = single_switch(32, k100G);
  std::vector<FlowSpec> flows = make_traffic(pattern(TrafficKind::permutation, Bytes(3'000'001)), 32, 5);
  TrafficResult r = run_traffic(flows, t, {"flow", 5});
  for (const FlowOutcome& f : r.flows) CHECK(std::abs(f.slowdown - 1.0) < 1e-9);
  CHECK(r.summary.mean_slowdown == Approx(1.0).margin(1e-9));
  CHECK(r.summary.p99_slowdown == Approx(1.0).margin(1e-9));
}

TEST_CASE("traffic runs are deterministic; staggered starts count from each flow's own start", "[traffic]") {
  Topology t = single_switch(8, k100G);
  std::vector<FlowSpec> flows = make_traffic(pattern(TrafficKind::all_to_all, Bytes(250'000)), 8, 3);
  auto fcts = [&](uint64_t seed) {
    std::vector<Time> out;
    for (const FlowOutcome& f : run_traffic(flows, t, {"flow", seed}).flows) out.push_back(f.fct);
    return out;
  };
  CHECK(fcts(3) == fcts(3));
  // Two senders 1 ms apart to one receiver, 1 MB each (80 us alone): they never overlap.
  TrafficSpec spec = incast({1, 2}, Bytes(1'000'000));
  spec.stagger = Time::ms(1);
  TrafficResult r = run_traffic(make_traffic(spec, 8, 1), t, {"flow", 1});
  CHECK(r.flows[1].flow.start == Time::ms(1));
  CHECK(r.flows[0].fct == Time::us(82));
  CHECK(r.flows[1].fct == Time::us(82));
  CHECK(r.summary.makespan == Time::ms(1) + Time::us(82));
}

TEST_CASE("nearest-rank percentiles", "[traffic]") {
  std::vector<FlowOutcome> flows;
  for (int64_t i = 1; i <= 200; ++i)
    flows.push_back({FlowSpec{0, 1, Bytes(1), Time(), 0}, Time::us(i), Time::us(1), double(i)});
  FctSummary s = summarize(flows);
  CHECK(s.median == Time::us(100));  // ceil(0.50 * 200) = 100th
  CHECK(s.p99 == Time::us(198));     // ceil(0.99 * 200) = 198th
  CHECK(s.p99_slowdown == 198.0);
  CHECK(s.mean_slowdown == Approx(100.5));
  flows.resize(3);
  CHECK(summarize(flows).median == Time::us(2));  // ceil(1.5) = 2nd
  CHECK(summarize(flows).p99 == Time::us(3));
}

TEST_CASE("a traffic scenario runs and reports FCTs and counters in every format", "[traffic]") {
  Scenario s = load_scenario_text(kIncast, "t.yaml");
  ScenarioResult r = run_scenario(s);
  REQUIRE(r.traffic);
  CHECK(r.total == r.traffic->summary.makespan);
  std::string table = format_scenario(r, OutputFormat::table);
  CHECK_THAT(table, Catch::Contains("fct_p99") && Catch::Contains("transfers") && !Catch::Contains("packets_sent"));
  std::string csv = format_scenario(r, OutputFormat::csv);
  CHECK_THAT(csv, Catch::StartsWith("src,dst,bytes,start_us,fct_us,ideal_us,slowdown\n1,0,1000000,"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
  auto json = nlohmann::json::parse(format_scenario(r, OutputFormat::json));
  CHECK(json["traffic"] == "incast");
  CHECK(json["summary"]["flows"] == 4);
  CHECK(json["counters"]["transfers"] == 4);
  CHECK(json["flows"].size() == 4);
  CHECK(format_scenario(run_scenario(s), OutputFormat::json) == format_scenario(r, OutputFormat::json));
}

TEST_CASE("a traffic run rejects flows the topology cannot carry", "[traffic]") {
  Topology t = single_switch(4, k100G);
  CHECK_THROWS_AS(run_traffic({FlowSpec{0, 4, Bytes(1), Time(), 0}}, t, {"flow", 1}), ConfigError);
  CHECK_THROWS_AS(run_traffic({FlowSpec{2, 2, Bytes(1), Time(), 0}}, t, {"flow", 1}), ConfigError);
  CHECK_THROWS_AS(run_traffic({FlowSpec{0, 1, Bytes(1), Time(), 0}}, t, {"nosuch", 1}), ConfigError);
}

// The packet fabric behind the same interface: a small incast completes (PFC keeps it lossless)
// and no flow beats its ideal time (headers and queueing only add to it).
TEST_CASE("a small incast on the packet fabric completes", "[traffic]") {
  const auto& fabrics = fabric_registry();
  if (std::none_of(fabrics.begin(), fabrics.end(), [](const FabricEntry& f) { return f.name == "packet"; })) {
    WARN("the packet fabric is not registered yet");
    return;
  }
  Topology t = single_switch(5, k100G);
  TrafficResult r = run_traffic(make_traffic(incast({1, 2, 3, 4}, Bytes(200'000)), 5, 1), t, {"packet", 1});
  for (const FlowOutcome& f : r.flows) CHECK(f.slowdown >= 1.0 - 1e-9);
  CHECK(r.fabric.transfers_done == 4);
  CHECK(r.fabric.packets_sent > 0);
  CHECK_FALSE(r.fabric.deadlocked);
}
