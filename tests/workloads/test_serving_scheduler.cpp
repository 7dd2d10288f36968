// The vLLM-style scheduler (workloads/serving/scheduler.h), a serving run on the Engine and its metrics:
// chunked prefill, the sequence limit, preemption, Little's law on the simulated queue, determinism, and a
// whole run with its tensor-parallel collectives on a catalogue system's fabric.
#include <catch2/catch.hpp>

#include <unordered_map>

#include "sim/core/errors.h"
#include "topologies/clusters.h"
#include "topologies/systems.h"
#include "workloads/serving/serving.h"

using namespace weft;

namespace {

std::vector<Sequence> sequences(std::initializer_list<std::pair<uint32_t, uint32_t>> lengths) {
  std::vector<Sequence> out;
  for (const auto& [prompt, output] : lengths) out.push_back(Sequence{.prompt = prompt, .output = output});
  return out;
}

// Runs the scheduler alone, each iteration ending 1 ms after it starts; returns the batches' token counts.
std::vector<uint32_t> drain(ReplicaScheduler& s, int most = 100000) {
  std::vector<uint32_t> tokens;
  std::unordered_map<int64_t, uint64_t> gaps;
  for (int i = 1; i <= most; ++i) {
    const ScheduledBatch b = s.schedule();
    if (b.empty()) break;
    tokens.push_back(b.shape.tokens());
    s.complete(b, Time::ms(i), gaps);
  }
  return tokens;
}

// The H100's iteration model with weft's defaults.
IterationModel h100_model(const ServingSpec& spec) {
  const ComputeProfile profile = default_compute_profile();
  const catalogue::GpuSpec& gpu = catalogue::gpu("h100-sxm");
  return IterationModel(spec, gpu, profile.resolve(gpu.name), default_host_overheads(), {});
}

}  // namespace

TEST_CASE("chunked prefill splits a long prompt over the token budget", "[serving]") {
  std::vector<Sequence> seqs = sequences({{10000, 3}});
  SchedulerLimits limits;
  limits.max_batched_tokens = 4096;
  ReplicaScheduler s(limits, 10000, seqs);
  s.add(0);
  // 4096 + 4096 + 1808 prompt tokens (the last chunk samples the first token), then two decodes.
  CHECK(drain(s) == std::vector<uint32_t>{4096, 4096, 1808, 1, 1});
  CHECK(seqs[0].first_token == Time::ms(3));
  CHECK(seqs[0].finish == Time::ms(5));
  CHECK(seqs[0].generated == 3);
  CHECK(s.blocks_used() == 0);
}

TEST_CASE("without chunking a prompt waits for a budget it fits whole", "[serving]") {
  std::vector<Sequence> seqs = sequences({{600, 2}, {600, 2}});
  SchedulerLimits limits;
  limits.max_batched_tokens = 1000;
  limits.chunked_prefill = false;
  ReplicaScheduler s(limits, 1000, seqs);
  s.add(0);
  s.add(1);
  // The second prompt does not fit beside the first; it joins the first's decode.
  CHECK(drain(s) == std::vector<uint32_t>{600, 601, 1});
}

TEST_CASE("at most max_seqs run; the others wait in arrival order", "[serving]") {
  std::vector<Sequence> seqs(10, Sequence{.prompt = 10, .output = 1});
  SchedulerLimits limits;
  limits.max_seqs = 4;
  ReplicaScheduler s(limits, 1000, seqs);
  for (uint32_t i = 0; i < 10; ++i) s.add(i);
  // One token each: every prompt finishes in its first iteration.
  CHECK(drain(s) == std::vector<uint32_t>{40, 40, 20});
  CHECK(seqs[9].finish == Time::ms(3));
}

TEST_CASE("a full KV cache preempts the latest sequence, which recomputes later", "[serving]") {
  // 8 blocks of 16 tokens: two sequences of 48 prompt tokens (3 blocks each) growing to 48 + 40 tokens
  // (6 blocks each) cannot both finish at once; the second is preempted, then recomputes its tokens.
  std::vector<Sequence> seqs = sequences({{48, 40}, {48, 40}});
  SchedulerLimits limits;
  ReplicaScheduler s(limits, 8, seqs);
  s.add(0);
  s.add(1);
  drain(s);
  CHECK(seqs[0].finished());
  CHECK(seqs[1].finished());
  CHECK(seqs[0].preemptions == 0);
  CHECK(seqs[1].preemptions >= 1);
  CHECK(seqs[1].generated == 40);
  CHECK(s.blocks_used() == 0);
}

TEST_CASE("Little's law holds on the simulated system", "[serving][validation]") {
  // L = lambda W: the time-averaged number of requests in the system, sampled at each iteration's
  // start, against the arrival rate times the mean time in the system (from each request's record).
  ServingSpec spec;
  spec.model = model("llama-3-8b");
  RequestStreamSpec stream;
  stream.arrivals = {ArrivalKind::poisson, 8, 1};
  stream.count = 4000;
  stream.prompt = {LengthKind::lognormal, 800, 400, 1, 4000};
  stream.output = {LengthKind::lognormal, 200, 100, 1, 2000};
  const std::vector<Request> requests = generate_requests(stream, 5);
  const IterationModel model = h100_model(spec);
  const KvCapacity kv = kv_capacity(spec, catalogue::gpu("h100-sxm"));
  ServingSetup setup{.limits = spec.limits};
  setup.pools.push_back({1, 1, kv.blocks, [&](uint32_t, uint32_t) -> const IterationModel& { return model; }});
  const ServingRun run = simulate_serving(setup, requests);
  const ServingMetrics m = serving_metrics(run, spec.slo);
  REQUIRE(m.requests == 4000);
  const double lambda = static_cast<double>(m.requests) / m.duration.seconds();
  CHECK(m.mean_in_system == Approx(lambda * m.e2e.mean.seconds()).epsilon(0.03));
  CHECK(m.output_tokens == [&] {
    uint64_t n = 0;
    for (const Request& r : requests) n += r.output;
    return n;
  }());
  CHECK(m.itl.count == m.output_tokens - m.requests);  // every token after a sequence's first
}

TEST_CASE("a serving run on a catalogue system times its all-reduces on the fabric, deterministically", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 1, {}, "--set");
  const Topology topology = build_cluster(cluster);
  ServingSpec spec;
  spec.model = model("llama-3-8b");
  spec.tp = 2;
  spec.replicas = 4;
  RequestStreamSpec stream;
  stream.arrivals = {ArrivalKind::poisson, 20, 1};
  stream.count = 300;
  const std::vector<Request> requests = generate_requests(stream, 1);
  const ComputeProfile profile = default_compute_profile();
  const ServingInputs in{
      spec, requests, topology, cluster, SimulationSetup{"flow", 1, {}}, profile, default_host_overheads()};
  const ServingOutcome a = run_serving(in), b = run_serving(in);
  CHECK(a.collective_sizes > 0);
  // Each iteration takes at least its FLOPs at the dense peak (efficiencies are below 1), so the model
  // FLOPs utilisation stays under the replicas' busy fraction.
  CHECK(a.metrics.mfu > 0);
  CHECK(a.metrics.mfu < a.metrics.busy);
  CHECK(a.isolated_runs < a.collective_sizes);  // the four replicas' NVSwitch groups are images of one another
  CHECK(a.metrics.e2e.p99 == b.metrics.e2e.p99);
  CHECK(a.run.iterations.size() == b.run.iterations.size());
  bool any_communication = false;
  for (const IterationSample& it : a.run.iterations) any_communication |= it.communication > Time();
  CHECK(any_communication);

  spec.model.max_seq = 1000;
  std::vector<Request> too_long = requests;
  too_long[7].prompt = 2000;
  const ServingInputs bad{
      spec, too_long, topology, cluster, SimulationSetup{"flow", 1, {}}, profile, default_host_overheads()};
  CHECK_THROWS_WITH(run_serving(bad), Catch::Contains("request 7 needs 2128 tokens"));
}
