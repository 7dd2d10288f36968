#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "scenarios/report.h"
#include "scenarios/run_scenario.h"
#include "scenarios/scenario.h"
#include "sim/core/errors.h"

using namespace weft;

namespace {

const std::string kGood = R"(name: two collectives
seed: 7
fabric: analytic
system:
  topology: ring
  ranks: 4
  link:
    rate: 100Gbps
    latency: 500ns
workload:
  collectives:
    - op: all_reduce
      size: 1MiB
      channels: 2
    - op: broadcast
      size: 4KB
      root: 3
)";

std::string with(const std::string& from, const std::string& to) {
  std::string s = kGood;
  s.replace(s.find(from), from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("a scenario loads into checked structs", "[scenario]") {
  Scenario s = load_scenario_text(kGood, "good.yaml");
  CHECK(s.name == "two collectives");
  CHECK(s.seed == 7);
  CHECK(s.fabric == "analytic");
  CHECK(s.system.topology == "ring");
  CHECK(s.system.ranks == 4);
  CHECK(s.system.link.rate == Bandwidth::gbps(100));
  CHECK(s.system.link.latency == Time::ns(500));
  REQUIRE(s.collectives().size() == 2);
  CHECK(s.collectives()[0].ring.channels == 2);
  CHECK(s.collectives()[1].op == CollectiveOp::broadcast);
  CHECK(s.collectives()[1].ring.root == 3);
  CHECK(s.collectives()[1].size == Bytes(4000));
}

TEST_CASE("running a scenario places collectives one after another", "[scenario]") {
  ScenarioResult r = run_scenario(load_scenario_text(kGood, "good.yaml"));
  REQUIRE(r.collectives.size() == 2);
  CHECK(r.collectives[1].start == r.collectives[0].row.time);
  CHECK(r.total == r.collectives[0].row.time + r.collectives[1].row.time);
  std::string json = format_scenario(r, OutputFormat::json);
  CHECK(json == format_scenario(run_scenario(load_scenario_text(kGood, "good.yaml")), OutputFormat::json));
}

TEST_CASE("the bundled default scenario loads and runs", "[scenario]") {
  Scenario s = default_scenario();
  REQUIRE(s.training());
  CHECK(s.compare.size() >= 5);
  ScenarioResult r = run_scenario(s);
  CHECK(r.total > Time());
  REQUIRE(r.variants.size() == s.compare.size());
  // The answer the scenario exists for: a faster network shortens the step of a 25 GbE cluster.
  CHECK(r.variants.back().total < r.total);
}

TEST_CASE("bad scenarios name file, line, column, key and what was expected", "[scenario]") {
  auto error_of = [](const std::string& text) {
    try {
      load_scenario_text(text, "bad.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // A typo in a key: reported where it stands.
  // A typo in a key: the required key is missing, and the near miss is pointed at.
  CHECK(error_of(with("    latency: 500ns", "    latncy: 500ns")) ==
        "bad.yaml:8:5: latency: missing (this key is required here); is 'latncy' at 9:5 a typo of it?");
  CHECK(error_of(with("seed: 7", "sed: 7")) == "bad.yaml:2:1: unknown key 'sed'");
  // A bad unit: line and column of the value, the key, and an example of what is expected.
  std::string unit = error_of(with("100Gbps", "100 Gbits"));
  CHECK_THAT(unit, Catch::StartsWith("bad.yaml:8:11:") && Catch::Contains("rate") && Catch::Contains("400Gbps"));
  CHECK_THAT(error_of(with("op: all_reduce", "op: all_reduse")),
             Catch::StartsWith("bad.yaml:12:11:") && Catch::Contains("all_gather"));
  CHECK_THAT(error_of(with("root: 3", "root: 4")), Catch::Contains("root") && Catch::Contains("below 4"));
  CHECK_THAT(error_of(with("ranks: 4", "ranks: four")), Catch::Contains("ranks") && Catch::Contains("whole number"));
  CHECK_THAT(error_of(with("fabric: analytic", "fabric: nosuch")),
             Catch::StartsWith("bad.yaml:3:9:") && Catch::Contains("flow"));
  CHECK_THAT(error_of(with("topology: ring", "topology: torus")), Catch::Contains("single-switch"));
  CHECK_THAT(error_of(with("      size: 1MiB\n", "")), Catch::Contains("size") && Catch::Contains("missing"));
  CHECK_THAT(error_of("system: [unclosed"), Catch::StartsWith("bad.yaml:") && Catch::Contains("not valid YAML"));
  CHECK_THAT(error_of("- just\n- a list\n"), Catch::Contains("mapping"));
  CHECK_THROWS_WITH(load_scenario_file("/nonexistent/weft.yaml"), Catch::Contains("cannot open"));
}

TEST_CASE("a catalogue system in a scenario, with fields overridden", "[scenario]") {
  const std::string text =
      "system:\n"
      "  name: dgx-h100\n"
      "  nodes: 3\n"
      "  node:\n"
      "    nics: 4\n"
      "  network:\n"
      "    technology: roce\n"
      "workload:\n"
      "  collectives:\n"
      "    - {op: all_reduce, size: 1MiB, root: 23}\n";
  Scenario s = load_scenario_text(text, "catalogue.yaml");
  CHECK(s.system.preset == "dgx-h100");
  CHECK(s.system.ranks == 24);  // 3 nodes x 8 GPUs: root 23 is a valid rank
  CHECK(s.system.cluster.node.nics == 4);
  CHECK(s.system.cluster.network.technology == NetworkTechnology::roce);
  Topology t = build_system(s.system);
  CHECK(t.gpus().size() == 24);
  size_t nics = 0;
  for (NodeIndex n = 0; n < t.node_count(); ++n) nics += t.node(n).kind == NodeKind::nic;
  CHECK(nics == 12);
  CHECK(run_scenario(s).total > Time());
  auto error_of = [&](const std::string& from, const std::string& to) {
    std::string bad = text;
    bad.replace(bad.find(from), from.size(), to);
    try {
      load_scenario_text(bad, "catalogue.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("dgx-h100", "dgx-h1000"),
             Catch::StartsWith("catalogue.yaml:2:9:") && Catch::Contains("dgx-h100"));
  CHECK_THAT(error_of("nics: 4", "nics: many"),
             Catch::StartsWith("catalogue.yaml:5:11:") && Catch::Contains("whole number"));
  CHECK_THAT(error_of("technology: roce", "technology: carrier-pigeon"), Catch::StartsWith("catalogue.yaml:7:17:"));
  CHECK_THAT(error_of("nodes: 3", "nodes: 0"), Catch::Contains("nodes"));
  CHECK_THAT(error_of("nodes: 3", "nodez: 3"), Catch::Contains("unknown key 'nodez'"));
}

TEST_CASE("fabric: a name, or a map with the packet fabric's configuration", "[scenario]") {
  const std::string text =
      "fabric:\n"
      "  model: packet\n"
      "  profile: roce\n"
      "  ecn: {kmin_at_25g: 50KB, kmax_at_25g: 200KB, pmax: 0.1}\n"
      "  pfc: {enabled: false, quanta: 1000}\n"
      "  dcqcn: {g: 1/16, rate_ai: 10Gbps, cnp_interval: 4us}\n"
      "  lossy: {mode: selective, rto: 100us, ack_every: 4}\n"
      "  switch: {buffer: 16MB, scheduler: dwrr}\n"
      "  transport: rdma\n"
      "  deadlock_timeout: 10ms\n"
      "system:\n"
      "  topology: single-switch\n"
      "  ranks: 4\n"
      "  link: {rate: 100Gbps, latency: 1us}\n"
      "workload:\n"
      "  collectives:\n"
      "    - {op: all_reduce, size: 1MiB}\n";
  Scenario s = load_scenario_text(text, "f.yaml");
  CHECK(s.fabric == "packet");
  REQUIRE(s.fabric_options.packet);
  const packet::PacketConfig& c = *s.fabric_options.packet;
  packet::PacketConfig roce = packet::packet_profile("roce");
  CHECK(c.ecn.kmin_at_25g == Bytes(50'000));
  CHECK(c.ecn.kmax_at_25g == Bytes(200'000));
  CHECK(c.ecn.pmax == 0.1);
  CHECK(c.ecn.enabled == roce.ecn.enabled);  // untouched keys keep the profile's value
  CHECK_FALSE(c.pfc.enabled);
  CHECK(c.pfc.quanta == 1000);
  CHECK(c.dcqcn.g == 1.0 / 16);
  CHECK(c.dcqcn.rate_ai == Bandwidth::gbps(10));
  CHECK(c.dcqcn.cnp_interval == Time::us(4));
  CHECK(c.dcqcn.byte_counter == roce.dcqcn.byte_counter);
  CHECK(c.lossy.mode == packet::Retransmit::selective);
  CHECK(c.lossy.rto == Time::us(100));
  CHECK(c.lossy.ack_every == 4);
  CHECK(c.switches.buffer == Bytes(16'000'000));
  CHECK(c.switches.scheduler == packet::Scheduler::dwrr);
  CHECK(c.transport == packet::Transport::rdma);
  CHECK(c.deadlock_timeout == Time::ms(10));

  // The scalar form and a map naming another model leave the packet configuration unset.
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string bad = text;
    bad.replace(bad.find(from), from.size(), to);
    return bad;
  };
  const std::string fabric_block = text.substr(0, text.find("system:"));
  Scenario flow = load_scenario_text(edited(fabric_block, "fabric: flow\n"), "f.yaml");
  CHECK(flow.fabric == "flow");
  CHECK_FALSE(flow.fabric_options.packet);
  Scenario map_flow = load_scenario_text(edited(fabric_block, "fabric: {model: analytic}\n"), "f.yaml");
  CHECK(map_flow.fabric == "analytic");
  CHECK_FALSE(map_flow.fabric_options.packet);
  Scenario defaults = load_scenario_text(edited(fabric_block, "fabric: {profile: ib}\n"), "f.yaml");
  CHECK(defaults.fabric == "packet");  // a map configures the packet fabric unless it names another model
  CHECK(defaults.fabric_options.packet->pfc.enabled == packet::packet_profile("ib").pfc.enabled);

  auto error_of = [&](const std::string& from, const std::string& to) {
    try {
      load_scenario_text(edited(from, to), "f.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("profile: roce", "profile: rocky"),
             Catch::StartsWith("f.yaml:3:12: packet: unknown profile 'rocky'"));
  CHECK_THAT(error_of("model: packet", "model: packed"),
             Catch::StartsWith("f.yaml:2:10: fabric: unknown model 'packed'"));
  CHECK(error_of("kmin_at_25g: 50KB", "kmin: 50KB") == "f.yaml:4:9: unknown key 'kmin'");
  CHECK(error_of("transport: rdma", "transprt: rdma") == "f.yaml:9:3: unknown key 'transprt'");
  CHECK_THAT(error_of("pmax: 0.1", "pmax: high"), Catch::StartsWith("f.yaml:4:54: pmax: expected a number"));
  CHECK_THAT(error_of("enabled: false", "enabled: nope"),
             Catch::StartsWith("f.yaml:5:18: enabled: expected true or false"));
  CHECK_THAT(error_of("quanta: 1000", "quanta: 70000"),
             Catch::StartsWith("f.yaml:5:33: quanta: expected at most 65535"));
  CHECK_THAT(error_of("scheduler: dwrr", "scheduler: wfq"),
             Catch::StartsWith("f.yaml:8:37: scheduler: unknown value 'wfq'") && Catch::Contains("strict or dwrr"));
  CHECK_THAT(error_of("mode: selective", "mode: sack"), Catch::Contains("go-back-n or selective"));
  // validate() runs on the result; its message is placed at the fabric map.
  CHECK_THAT(error_of("kmin_at_25g: 50KB", "kmin_at_25g: 500KB"), Catch::StartsWith("f.yaml:2:3: packet.ecn: kmin"));
  CHECK_THAT(error_of(fabric_block, "fabric: {model: flow, pfc: {enabled: false}}\n"),
             Catch::StartsWith("f.yaml:1:28: pfc: configures the packet fabric only (this one is model: flow)"));
}

TEST_CASE("Scenario: the router's keys (routing, pxn) are fabric keys of every model", "[scenario]") {
  const std::string text = R"(fabric: {model: flow, pxn: true}
system: {name: dgx-h100, nodes: 2}
workload:
  collectives:
    - {op: all_to_all, size: 16MB}
)";
  const Scenario pxn = load_scenario_text(text, "pxn.yaml");
  CHECK(pxn.fabric == "flow");
  CHECK(pxn.fabric_options.pxn);
  CHECK(pxn.simulation().fabric_options.pxn);
  CHECK_FALSE(load_scenario_text("fabric: flow\n" + text.substr(text.find("system:")), "p.yaml").fabric_options.pxn);
  std::string bad = text;
  bad.replace(bad.find("true"), 4, "yes");
  CHECK_THROWS_WITH(load_scenario_text(bad, "pxn.yaml"),
                    Catch::StartsWith("pxn.yaml:1:28: pxn: expected true or false"));
  // PXN moves the inter-node traffic onto the rail-matched NICs: the run differs from the direct one.
  std::string direct = text;
  direct.replace(direct.find("true"), 4, "false");
  CHECK(run_scenario(pxn).collectives.at(0).row.time !=
        run_scenario(load_scenario_text(direct, "d.yaml")).collectives.at(0).row.time);
}

TEST_CASE("Scenario: a training plan that does not fit in GPU memory is refused at workload:", "[unit][memory]") {
  // Llama 3 8B on 16 H100 with DDP: about 150 GB of weights, gradients and Adam state per GPU.
  const std::string oom = R"(name: too big
system: {name: dgx-h100, nodes: 2}
workload:
  model: llama-3-8b
  batch: {global: 16, micro: 1}
  seq_len: 8192
)";
  CHECK_THROWS_WITH(load_scenario_text(oom, "oom.yaml"),
                    Catch::Contains("oom.yaml:4:3: workload: the plan does not fit in h100-sxm memory") &&
                        Catch::Contains("of 80.0 GiB") && Catch::Contains("changes that fit: zero: 2"));
  // allow_oom: simulated anyway, and the report says it does not fit.
  const ScenarioResult r =
      run_scenario(load_scenario_text(oom + "  allow_oom: true\n  collective_timing: isolated\n", "oom.yaml"));
  const std::string report = format_scenario(r, OutputFormat::table);
  CHECK_THAT(report, Catch::Contains("memory per GPU:") && Catch::Contains("DOES NOT FIT"));
  const auto j = nlohmann::json::parse(format_scenario(r, OutputFormat::json));
  CHECK(j.dump().find("\"fits\":false") != std::string::npos);
}
