// Training-step generation and replay: pipeline orders, rank placement, per-scheme communication
// volumes against the formulas of ../shared/reference/workloads.md §3, overlap, bubble, determinism.
#include <catch2/catch.hpp>

#include <map>

#include "scenarios/scenario.h"
#include "sim/core/errors.h"
#include "tests/replay_checks.h"
#include "tests/small_model.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/systems.h"
#include "workloads/replayer.h"
#include "workloads/step_breakdown.h"
#include "workloads/training.h"

using namespace weft;

namespace {

TrainingSpec spec_for(ParallelSizes p, uint32_t global_batch) {
  TrainingSpec s;
  s.model = test::small_model();
  s.parallel = p;
  s.global_batch = global_batch;
  s.micro_batch = 1;
  return s;
}

Workload generate(const TrainingSpec& s) {
  return generate_training(s, catalogue::gpu("h100-sxm"), default_compute_profile());
}

// Sum of op bytes of one kind and group on one rank.
double bytes_of(const Workload& w, uint32_t rank, CommGroup g, CollectiveOp op) {
  double sum = 0;
  for (const Op& o : w.programs[rank].ops) {
    if (o.kind == OpKind::collective && o.group == g && o.collective == op) sum += static_cast<double>(o.bytes.count());
  }
  return sum;
}

size_t count_of(const Workload& w, uint32_t rank, CommGroup g, OpKind kind) {
  size_t n = 0;
  for (const Op& o : w.programs[rank].ops) n += o.kind == kind && o.group == g;
  return n;
}

}  // namespace

TEST_CASE("1F1B: p - r - 1 warm-up forwards, then one forward one backward", "[unit]") {
  auto a = pipeline_actions(PipelineKind::one_f_one_b, 0, 4, 8);
  REQUIRE(a.size() == 16);
  for (int i = 0; i < 3; ++i) CHECK(a[i].forward);
  CHECK(a[3].forward);  // first steady-state pair: forward 3, backward 0
  CHECK_FALSE(a[4].forward);
  CHECK(a[4].micro_batch == 0);
  // The last stage alternates from the start.
  auto last = pipeline_actions(PipelineKind::one_f_one_b, 3, 4, 8);
  CHECK(last[0].forward);
  CHECK_FALSE(last[1].forward);
}

TEST_CASE("Interleaved: every (micro-batch, chunk) once each way; m must divide by p", "[unit]") {
  auto a = pipeline_actions(PipelineKind::interleaved, 1, 4, 8, 2);
  std::map<std::tuple<bool, uint32_t, uint32_t>, int> seen;
  for (const auto& x : a) ++seen[{x.forward, x.micro_batch, x.chunk}];
  CHECK(seen.size() == 32);
  for (const auto& [k, n] : seen) CHECK(n == 1);
  CHECK_THROWS_AS(pipeline_actions(PipelineKind::interleaved, 0, 4, 6, 2), ConfigError);
}

TEST_CASE("Rank layout tp-cp-ep-dp-pp: TP fastest, PP slowest", "[unit]") {
  RankLayout l = make_layout({.tp = 2, .cp = 1, .ep = 1, .dp = 2, .pp = 2});
  CHECK(l.group_of(0, {kTp}) == std::vector<uint32_t>{0, 1});
  CHECK(l.group_of(1, {kEdp}) == std::vector<uint32_t>{1, 3});
  CHECK(l.group_of(0, {kPp}) == std::vector<uint32_t>{0, 4});
  CHECK_THROWS_AS(make_layout({.ep = 2, .dp = 3}), ConfigError);
  CHECK_THROWS_AS(make_layout({}, "tp-dp-pp"), ConfigError);
}

TEST_CASE("Impossible plans are ConfigErrors naming the key", "[unit]") {
  const auto& h100 = catalogue::gpu("h100-sxm");
  TrainingSpec s = spec_for({.tp = 3, .dp = 1}, 8);
  CHECK_THROWS_WITH(check(s, 3, h100), Catch::Contains("attention heads"));
  s = spec_for({.dp = 8}, 12);
  CHECK_THROWS_WITH(check(s, 8, h100), Catch::Contains("batch.global"));
  s = spec_for({.dp = 4}, 8);
  CHECK_THROWS_WITH(check(s, 8, h100), Catch::Contains("GPUs"));
  s = spec_for({.dp = 1, .pp = 3}, 3);
  CHECK_THROWS_WITH(check(s, 3, h100), Catch::Contains("layers"));
}

TEST_CASE("DDP: each rank all-reduces every gradient once (2(n-1)/n of it on the wire)", "[validation]") {
  TrainingSpec s = spec_for({.dp = 8}, 16);  // 2 micro-batches: only the last one reduces
  Workload w = generate(s);
  // Per layer 12 h^2 parameters (attention 4h^2 + MLP 8h^2), 4 layers, plus the embedding and the
  // (untied) output layer, V h each; fp32 gradients.
  const double h = 1024, V = 1024;
  const double expected = (4 * 12 * h * h + 2 * V * h) * 4;
  CHECK(bytes_of(w, 0, CommGroup::dp, CollectiveOp::all_reduce) == Approx(expected).epsilon(1e-6));
  CHECK(count_of(w, 0, CommGroup::tp, OpKind::collective) == 0);
}

TEST_CASE("ZeRO-3 moves 1.5x the bytes of DDP", "[validation]") {
  TrainingSpec ddp = spec_for({.dp = 8}, 8);
  ddp.grad_bytes = 2;  // same element size for parameters and gradients, as in the ZeRO paper's count
  TrainingSpec z3 = ddp;
  z3.sharding = Sharding::zero3;
  // Wire bytes per rank: all-reduce 2(n-1)/n S, all-gather and reduce-scatter (n-1)/n S.
  auto wire = [](const Workload& w) {
    return 2 * bytes_of(w, 0, CommGroup::dp, CollectiveOp::all_reduce) +
           bytes_of(w, 0, CommGroup::dp, CollectiveOp::all_gather) +
           bytes_of(w, 0, CommGroup::dp, CollectiveOp::reduce_scatter);
  };
  // Layers (S_l = 4 x 12 h^2): gathered forward and backward, reduce-scattered: 3 S_l against
  // DDP's 2 S_l, the ZeRO paper's 1.5x. The embedding and output layer (S_o = 2 V h) are gathered
  // once per step (FSDP's root unit): 2 S_o, as DDP.
  const double layers = 4 * 12.0 * 1024 * 1024, outer = 2.0 * 1024 * 1024;
  CHECK(wire(generate(z3)) / wire(generate(ddp)) ==
        Approx((3 * layers + 2 * outer) / (2 * (layers + outer))).epsilon(1e-9));
}

TEST_CASE("TP: four all-reduces of b*s*h per layer per micro-batch (six with recompute)", "[validation]") {
  TrainingSpec s = spec_for({.tp = 8, .dp = 1}, 2);
  Workload w = generate(s);
  const double per_op = 1.0 * 1024 * 1024 * 2;  // b s h bf16
  // Outside the 4 layers, per micro-batch: the vocabulary-parallel embedding's all-reduce forward,
  // the output layer's input-gradient all-reduce backward (b s h each), and the cross-entropy's
  // three all-reduces of one fp32 per token (3 x 1024 x 4 B).
  const double outer = 2 * per_op + 3 * 1024 * 4;
  CHECK(bytes_of(w, 3, CommGroup::tp, CollectiveOp::all_reduce) == Approx(2 * (4 * 4 * per_op + outer)));
  s.recompute = true;
  CHECK(bytes_of(generate(s), 3, CommGroup::tp, CollectiveOp::all_reduce) == Approx(2 * (6 * 4 * per_op + outer)));
  s.recompute = false;
  // Sequence parallelism: each all-reduce becomes reduce-scatter + all-gather (the same wire
  // volume); backward re-gathers the sharded inputs of the QKV and first MLP GEMMs for their weight
  // gradients (2 more all-gathers per layer); the output layer's input is gathered forward and its
  // gradient reduce-scattered backward, the embedding's output reduce-scattered forward. Only the
  // cross-entropy's all-reduces stay.
  s.sequence_parallel = true;
  Workload sp = generate(s);
  CHECK(bytes_of(sp, 3, CommGroup::tp, CollectiveOp::all_reduce) == Approx(2 * 3 * 1024 * 4));
  CHECK(bytes_of(sp, 3, CommGroup::tp, CollectiveOp::all_gather) == Approx(2 * (4 * (4 + 2) * per_op + per_op)));
  CHECK(bytes_of(sp, 3, CommGroup::tp, CollectiveOp::reduce_scatter) == Approx(2 * (4 * 4 * per_op + 2 * per_op)));
}

TEST_CASE("Tied embeddings over pipeline stages: the first and last stage sum their gradients", "[validation]") {
  TrainingSpec s = spec_for({.dp = 1, .pp = 2}, 2);
  s.model.tied_embeddings = true;
  const Workload w = generate(s);
  // One all-reduce of V h fp32 gradients between ranks 0 and 1 (the two stages), nothing else on pp
  // but the point-to-point activations.
  for (uint32_t r : {0u, 1u}) CHECK(bytes_of(w, r, CommGroup::pp, CollectiveOp::all_reduce) == 1024.0 * 1024 * 4);
  s.model.tied_embeddings = false;
  CHECK(bytes_of(generate(s), 0, CommGroup::pp, CollectiveOp::all_reduce) == 0);
}

TEST_CASE("CP: c-1 K/V blocks of 2 b (s/c) a_kv d B per layer forward, twice the bytes backward", "[validation]") {
  TrainingSpec s = spec_for({.cp = 4, .dp = 2}, 2);
  Workload w = generate(s);
  // K and V of 256 tokens: 2 x 256 x 16 heads x 64 x 2 B = 1 MiB; 3 sends per layer forward.
  const double kv = 2.0 * 256 * 16 * 64 * 2;
  double sent = 0;
  for (const Op& o : w.programs[0].ops) {
    if (o.kind == OpKind::send && o.group == CommGroup::cp) sent += static_cast<double>(o.bytes.count());
  }
  CHECK(sent == Approx(4 * 1 * (3 * kv + 3 * 2 * kv)));  // 4 layers, 1 micro-batch per rank
}

TEST_CASE("Replay: the breakdown adds up and DDP overlaps backward", "[validation]") {
  TrainingSpec s = spec_for({.dp = 16}, 64);
  Workload w = generate(s);
  ClusterSpec c = test::dgx_h100(2);
  Topology t = build_cluster(c);
  ReplayResult r = replay(w, t, c);
  StepBreakdown b = breakdown(w, r, peak_flops(catalogue::gpu("h100-sxm"), Precision::bf16));
  CHECK(b.step_time > Time());
  for (const TimeSplit& split : b.ranks) {
    CHECK(split.compute + split.exposed_total() + split.idle == b.step_time);
    CHECK(split.idle >= Time());
  }
  // Gradient buckets run while the rest of backward computes: less is exposed than is spent.
  const auto dp = static_cast<size_t>(CommGroup::dp);
  CHECK(b.mean.exposed[dp] < b.communication[dp]);
  CHECK(b.mfu > 0.05);
  CHECK(b.mfu < 1.0);
}

TEST_CASE("Replay: same workload, same seed, same timings", "[validation]") {
  TrainingSpec s = spec_for({.tp = 2, .dp = 4, .pp = 2}, 8);
  Workload w = generate(s);
  ClusterSpec c = test::dgx_h100(2);
  Topology t = build_cluster(c);
  ReplayResult a = replay(w, t, c), b = replay(w, t, c);
  REQUIRE(a.step_time == b.step_time);
  for (size_t r = 0; r < a.ops.timings().size(); ++r) {
    for (size_t i = 0; i < a.ops.timings()[r].size(); ++i)
      REQUIRE(a.ops.timings()[r][i].ended == b.ops.timings()[r][i].ended);
  }
}

TEST_CASE("Replay: each op leaves through the Recorder once, as the result's timeline holds it", "[unit]") {
  TrainingSpec s = spec_for({.tp = 2, .dp = 2, .pp = 2}, 4);
  Workload w = generate(s);
  ClusterSpec c = test::dgx_h100(1);
  Topology t = build_cluster(c);
  struct Counting : OpTimeline {
    using OpTimeline::OpTimeline;
    void on_op_done(const OpRecord& r) override {
      ++seen;
      OpTimeline::on_op_done(r);
    }
    size_t seen = 0;
  } mine(w);
  ReplayOptions options;
  options.sinks.push_back(&mine);
  const ReplayResult r = replay(w, t, c, options);
  size_t ops = 0;
  for (const Program& p : w.programs) ops += p.ops.size();
  CHECK(mine.seen == ops);
  REQUIRE(mine.timings().size() == w.ranks());
  for (uint32_t rank = 0; rank < w.ranks(); ++rank) {
    for (size_t i = 0; i < w.programs[rank].ops.size(); ++i) {
      const OpTiming &a = mine.timings()[rank][i], &b = r.ops.timings()[rank][i];
      CHECK(a.issued == b.issued);
      CHECK(a.started == b.started);
      CHECK(a.ended == b.ended);
      CHECK(a.issued <= a.started);
      CHECK(a.started <= a.ended);
    }
  }
}

TEST_CASE("Replay: each collective and the run's counters leave through the Recorder", "[unit]") {
  TrainingSpec s = spec_for({.tp = 2, .dp = 2, .pp = 2}, 4);
  Workload w = generate(s);
  ClusterSpec c = test::dgx_h100(1);
  Topology t = build_cluster(c);
  struct Watching : CollectiveTally {
    uint8_t hooks() const override { return CollectiveTally::hooks() | static_cast<uint8_t>(Hook::runs); }
    void on_comm_done(const CommRecord& r) override {
      CHECK(r.start <= r.end);
      CHECK(!r.algorithm.empty());
      ++comms;
      CollectiveTally::on_comm_done(r);
    }
    void on_run_done(const RunRecord& r) override { runs.push_back(r); }
    uint64_t comms = 0;
    std::vector<RunRecord> runs;
  } mine;
  ReplayOptions options;
  options.sinks.push_back(&mine);
  const ReplayResult r = replay(w, t, c, options);
  uint64_t counted = 0;
  for (const CollectiveStat& row : r.collectives) counted += row.count;
  CHECK(counted == mine.comms);
  CHECK(counted > 0);
  const std::vector<CollectiveStat> rows = mine.stats();
  REQUIRE(rows.size() == r.collectives.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i].group == r.collectives[i].group);
    CHECK(rows[i].op == r.collectives[i].op);
    CHECK(rows[i].algorithm == r.collectives[i].algorithm);
    CHECK(rows[i].total == r.collectives[i].total);
  }
  REQUIRE(mine.runs.size() == 1);  // the shared fabric's run; isolated ones record nothing here
  CHECK(mine.runs[0].events == r.events);
  CHECK(mine.runs[0].fabric.transfers_done == r.fabric.transfers_done);
  CHECK(mine.runs[0].fabric.bytes_delivered == r.fabric.bytes_delivered);
  CHECK(r.fabric.transfers_done > 0);
}

TEST_CASE("1F1B bubble: idle fraction (p-1)/(m+p-1) when communication is nearly free", "[validation]") {
  // p = 4 stages of one layer each on one NVSwitch node (pipeline sends of 2 MiB over NVLink take
  // microseconds against milliseconds of compute); m = 8 micro-batches.
  TrainingSpec s = spec_for({.dp = 1, .pp = 4}, 8);
  Workload w = generate(s);
  ClusterSpec c = test::dgx_h100(1);
  Topology t = build_cluster(c);
  StepBreakdown b = breakdown(w, replay(w, t, c), 0);
  // The first and last stages also run the embedding and logits, so stages are not quite equal.
  const double idle = b.mean.idle.seconds() / b.step_time.seconds();
  CHECK(idle == Approx(3.0 / 11.0).margin(0.04));
}

TEST_CASE("Interleaved 1F1B: the bubble shrinks by the number of chunks", "[validation]") {
  // p = 4, v = 2 chunks of one layer each, m = 8: idle fraction (p-1)/(v m + p - 1) = 3/19.
  TrainingSpec s = spec_for({.dp = 1, .pp = 4}, 8);
  s.model = test::small_model("test-small", 8);
  s.pipeline = PipelineKind::interleaved;
  s.virtual_stages = 2;
  Workload w = generate(s);
  ClusterSpec c = test::dgx_h100(1);
  Topology t = build_cluster(c);
  StepBreakdown b = breakdown(w, replay(w, t, c), 0);
  CHECK(b.mean.idle.seconds() / b.step_time.seconds() == Approx(3.0 / 19.0).margin(0.04));
}

TEST_CASE("EP: dispatch and combine all-to-alls of T k h B x capacity, forward and backward", "[validation]") {
  TrainingSpec s = spec_for({.ep = 4, .dp = 8}, 8);
  s.model.experts = 8;
  s.model.top_k = 2;
  s.capacity_factor = 1.25;
  Workload w = generate(s);
  // T = b s = 1024 tokens, k = 2, h = 1024, bf16, x 1.25: 5 MiB per all-to-all; 4 per layer, 4 layers.
  const double per_op = 1024.0 * 2 * 1024 * 2 * 1.25;
  CHECK(bytes_of(w, 5, CommGroup::ep, CollectiveOp::all_to_all) == Approx(4 * 4 * per_op));
  // Expert gradients reduce over the expert-data-parallel group (8 / 4 = 2 ranks), dense ones over all 8.
  size_t expert_buckets = 0;
  for (const Op& o : w.programs[5].ops) {
    if (o.kind == OpKind::collective && o.group == CommGroup::dp && w.communicators[o.comm].ranks.size() == 2)
      ++expert_buckets;
  }
  CHECK(expert_buckets > 0);
}

TEST_CASE("compare: each variant is the base scenario with only its own keys changed", "[unit]") {
  const char* yaml = R"(name: t
system:
  name: pcie-3090x8-nvlink
  nodes: 2
  node: {pcie_lanes: 8, nvlink_bridges: false}
workload:
  model: llama-2-7b
  parallel: {tp: 2}
  batch: {global: 8}
  allow_oom: true  # 7B with DDP on 24 GB GPUs: this test is about the variants' keys
compare:
  - {name: wide, set: {system.node.pcie_lanes: 16}}
  - {name: bridged, set: {system.node.nvlink_bridges: true, workload.parallel.pp: 2}}
)";
  Scenario s = load_scenario_text(yaml, "t.yaml");
  REQUIRE(s.compare.size() == 2);
  CHECK(s.system.cluster.node.pcie_lanes == 8);
  CHECK(s.compare[0].scenario->system.cluster.node.pcie_lanes == 16);
  CHECK_FALSE(s.compare[0].scenario->system.cluster.node.nvlink_bridges);
  CHECK(s.compare[1].scenario->system.cluster.node.pcie_lanes == 8);  // not the first variant's 16
  CHECK(s.compare[1].scenario->system.cluster.node.nvlink_bridges);
  CHECK(s.compare[1].scenario->training()->spec.parallel.pp == 2);
  CHECK(s.compare[1].scenario->training()->spec.parallel.dp == 4);  // 16 GPUs / (tp 2 x pp 2)
  CHECK_THROWS_WITH(
      load_scenario_text(std::string(yaml) + "  - {name: bad, set: {workload.parallel.tp: 3}}\n", "t.yaml"),
      Catch::Contains("t.yaml:14:45:") && Catch::Contains("tp"));
}

TEST_CASE("software: picks the compute efficiencies' generation; a variant can change it", "[unit]") {
  const char* yaml = R"(name: t
system: {name: dgx-a100}
workload:
  model: llama-2-7b
  parallel: {tp: 8}
  batch: {global: 8}
  software: 2023
compare:
  - {name: today, set: {workload.software: 2025}}
)";
  Scenario s = load_scenario_text(yaml, "t.yaml");
  CHECK(s.training()->profile.software == SoftwareStack::y2023);
  CHECK(s.training()->profile.resolve("a100-80gb").attention == Approx(0.25));
  CHECK(s.compare[0].scenario->training()->profile.software == SoftwareStack::y2025);
  std::string bad(yaml);
  bad.replace(bad.find("software: 2023"), 14, "software: 1999");
  CHECK_THROWS_WITH(load_scenario_text(bad, "t.yaml"), Catch::Contains("t.yaml:7:13:") && Catch::Contains("1999"));
}

TEST_CASE("One replica: with isolated collectives its step is the whole step, to the picosecond", "[validation]") {
  // The plan search ranks candidates on one rank per pipeline stage and cp position (the tp, ep and dp
  // copies run the same program on GPUs that are images of each other on a rail-optimised DGX).
  const ClusterSpec c = test::dgx_h100(2);
  const Topology t = build_cluster(c);
  ReplayOptions isolated;
  isolated.collectives = CollectiveTiming::isolated;
  std::vector<TrainingSpec> plans;
  plans.push_back(spec_for({.tp = 2, .dp = 4, .pp = 2}, 16));
  plans.push_back(spec_for({.tp = 2, .cp = 2, .dp = 2, .pp = 2}, 8));
  plans.push_back(spec_for({.dp = 16}, 32));
  plans.back().sharding = Sharding::zero3;
  plans.push_back(spec_for({.tp = 2, .dp = 4, .pp = 2}, 16));
  plans.back().pipeline = PipelineKind::interleaved;
  plans.back().virtual_stages = 2;
  plans.back().sequence_parallel = true;
  plans.back().recompute = true;
  for (const TrainingSpec& s : plans) {
    const Workload full = generate(s);
    const Workload one =
        generate_training(s, catalogue::gpu("h100-sxm"), default_compute_profile(), RankSample::one_replica);
    CHECK(one.sampled);
    size_t with_programs = 0;
    for (const Program& p : one.programs) with_programs += !p.ops.empty();
    CHECK(with_programs == size_t{s.parallel.pp} * s.parallel.cp);
    const Time whole = replay(full, t, c, isolated).step_time;
    CHECK(whole > Time::ms(1));
    CHECK(replay(one, t, c, isolated).step_time == whole);
  }
  // On the shared fabric the missing copies' traffic would be missing: refused.
  const Workload one =
      generate_training(plans[0], catalogue::gpu("h100-sxm"), default_compute_profile(), RankSample::one_replica);
  CHECK_THROWS_WITH(replay(one, t, c), Catch::Contains("collective_timing: isolated"));
}
