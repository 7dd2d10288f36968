// weft lower: a DP+TP+PP step lowers to a schedule whose sends and recvs pair up and whose
// communicators are consistent; collective scenarios and the GPU sweep lower too.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "executor/lower.h"
#include "executor/schedule_check.h"
#include "scenarios/scenario.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"

namespace weft {

TEST_CASE("a lowered DP+TP+PP step has paired sends and consistent communicators", "[unit][executor]") {
  // 16 A100s in two DGX nodes, tp 2 x pp 2 x dp 4 (dgx-h100 here trips a tuner error in weft run too).
  // Micro-batches of 2 x 1024 tokens: layers whose GEMMs run above half the GEMM rate, so that some
  // compute lowers as a GEMM (equivalent_gemm); with 512-token ones none does once outputs are costed.
  const Scenario sc = load_scenario_text(R"(name: dp tp pp
system: {name: dgx-a100, nodes: 2}
workload:
  model: gpt-2-124m
  parallel: {tp: 2, pp: 2}
  collective_timing: isolated
  batch: {global: 16, micro: 2}
  seq_len: 1024
)",
                                         "mem.yaml");
  const Lowered l = lower_scenario(sc, "");
  const LoweredSchedule& s = l.schedule;
  REQUIRE(s.ranks() == 16);
  check_schedule(s);  // pairs, sequences, membership
  std::set<std::string> groups;
  for (const LoweredComm& c : s.comms) groups.insert(c.group);
  CHECK(groups.contains("tp"));
  CHECK(groups.contains("dp"));
  size_t sends = 0, recvs = 0, collectives = 0, gemms = 0;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t> bytes_sent, bytes_received;
  for (uint32_t r = 0; r < s.ranks(); ++r) {
    for (const LoweredOp& o : s.programs[r]) {
      if (o.kind == LoweredKind::send) {
        ++sends;
        bytes_sent[{r, o.peer, o.tag}] += o.bytes;
        CHECK(o.link != "self");
      }
      if (o.kind == LoweredKind::recv) {
        ++recvs;
        bytes_received[{o.peer, r, o.tag}] += o.bytes;
      }
      if (o.kind == LoweredKind::collective) {
        ++collectives;
        CHECK(!o.algorithm.empty());
        CHECK(o.channels >= 1);
        const auto& members = s.comms[o.comm].ranks;
        CHECK(std::find(members.begin(), members.end(), r) != members.end());
        // tp pairs sit in one node: NVLink, never the network
        if (s.comms[o.comm].group == "tp") CHECK(o.link == "intra");
      }
      if (o.gemm) ++gemms;
    }
  }
  CHECK(sends > 0);
  CHECK(sends == recvs);
  CHECK(bytes_sent == bytes_received);
  CHECK(collectives > 0);
  CHECK(gemms > 0);
  // one prediction per op, each ending after it starts
  size_t ops = 0;
  for (const auto& p : s.programs) ops += p.size();
  REQUIRE(l.predicted.ops.size() == ops);
  for (const PredictedOp& p : l.predicted.ops) CHECK(p.end_ps >= p.start_ps);
  CHECK(l.predicted.fingerprint == fingerprint(s));
  // the file form reads back the same schedule
  CHECK(to_json(schedule_from_json(nlohmann::json::parse(to_json(s).dump()), "mem")) == to_json(s));
}

TEST_CASE("a collectives scenario lowers to one communicator, one op per collective", "[unit][executor]") {
  const Scenario sc = load_scenario_text(R"(name: sweep
system: {topology: single-switch, ranks: 4, link: {kind: ethernet, rate: 100Gbps, latency: 1us}}
workload:
  collectives:
    - {op: all_reduce, size: 1MiB}
    - {op: all_gather, size: 4MiB}
)",
                                         "mem.yaml");
  const Lowered l = lower_scenario(sc, "");
  REQUIRE(l.schedule.ranks() == 4);
  REQUIRE(l.schedule.comms.size() == 1);
  CHECK(l.schedule.programs[2].size() == 2);
  CHECK(l.schedule.programs[2][1].op == "all_gather");
  CHECK(l.schedule.programs[2][1].dtype == "float32");
  CHECK(l.schedule.programs[2][1].instance == 1);
  // 1 MiB ring all-reduce over 4 x 100 Gb/s: at least 2 (n-1)/n x 1 MiB / 12.5 GB/s = 126 us
  const PredictedOp& p = l.predicted.ops[0];
  CHECK(p.end_ps - p.start_ps >= 125'000'000);
}

TEST_CASE("compute-bound ops become the square GEMM of the same FLOPs", "[unit][executor]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  const ComputeProfile profile = default_compute_profile();
  // 2 x 4096^3 FLOPs at 794 TFLOP/s (0.803 x 989) take 173 us: compute-bound
  const double flops = 2.0 * 4096 * 4096 * 4096;
  auto g = equivalent_gemm(flops, Time::us(173), &h100, profile);
  REQUIRE(g);
  CHECK(g->m == 4096);
  CHECK(g->n == 4096);
  // the same FLOPs over 10 ms: memory-bound, duration only
  CHECK_FALSE(equivalent_gemm(flops, Time::ms(10), &h100, profile));
  CHECK_FALSE(equivalent_gemm(flops, Time::us(173), nullptr, profile));
}

TEST_CASE("the GPU sweep is a valid single-rank schedule with GEMMs, copies and launches", "[unit][executor]") {
  const Lowered l = lower_gpu_sweep("h200", 2048, 16 << 20);
  check_schedule(l.schedule);
  std::set<std::string> kinds;
  for (const LoweredOp& o : l.schedule.programs[0]) kinds.insert(std::string(to_string(o.kind)));
  CHECK(kinds == std::set<std::string>{"collective", "compute", "copy"});
  CHECK(l.predicted.ops.size() == l.schedule.programs[0].size());
}

TEST_CASE("a calibrated profile re-times collectives and lays the step out again", "[unit][executor]") {
  const Scenario sc = load_scenario_text(R"(name: two
system: {topology: single-switch, ranks: 2, link: {kind: ethernet, rate: 100Gbps, latency: 1us}}
workload:
  collectives:
    - {op: all_reduce, size: 1MiB}
    - {op: all_reduce, size: 2MiB}
)",
                                         "mem.yaml");
  const Lowered l = lower_scenario(sc, "");
  NetworkProfile prof;
  SeriesFit f{"collective", "all_reduce", 2, "ring", "simple", l.schedule.comms[0].link, {}};
  f.fit.alpha_us = 10;
  f.fit.us_per_byte = 1e-3;  // 1 GB/s
  prof.series.push_back(f);
  const Predicted p = recalibrated(l.schedule, l.predicted, prof, "test");
  // 10 + 1048.576 us, then 10 + 2097.152 us after it
  CHECK(p.ops[0].end_ps == 1'058'576'000);
  CHECK(p.ops[1].start_ps == 1'058'576'000);
  CHECK(p.step_ps == int64_t{1'058'576'000} + 2'107'152'000);
}

}  // namespace weft
