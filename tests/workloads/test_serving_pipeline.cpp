// Pipelined serving replicas (parallel.pp): how the layers and the memory split over the stages, a
// token's time through the stages and the fabric between them, batches overlapping in the pipeline, and
// a loaded run's bookkeeping.
#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "tests/serving_runs.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/systems.h"
#include "workloads/serving/kv_cache.h"

using namespace weft;
using weft::test::poisson_requests;
using weft::test::serve;

namespace {

ServingSpec pipelined(const char* name, uint32_t tp, uint32_t pp) {
  ServingSpec spec;
  spec.model = model(name);
  spec.tp = tp;
  spec.pp = pp;
  return spec;
}

}  // namespace

TEST_CASE("pipeline stages take the layers as vLLM splits them", "[serving]") {
  CHECK(stage_layers(80, 1) == std::vector<uint32_t>{80});
  CHECK(stage_layers(126, 2) == std::vector<uint32_t>{63, 63});
  // The remainder goes to the stages before the last (vLLM's get_pp_indices; its documented examples).
  CHECK(stage_layers(61, 2) == std::vector<uint32_t>{31, 30});
  CHECK(stage_layers(61, 4) == std::vector<uint32_t>{15, 15, 16, 15});
  CHECK(stage_layers(22, 4) == std::vector<uint32_t>{5, 6, 6, 5});
  CHECK(stage_layers(5, 3) == std::vector<uint32_t>{2, 2, 1});
}

TEST_CASE("pipeline stages split the weights and the KV cache per token", "[serving]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  const ServingSpec flat = pipelined("llama-3-70b", 4, 1), split = pipelined("llama-3-70b", 4, 2);
  const ModelConfig& m = flat.model;
  // Every parameter is on exactly one stage (the output layer is not tied to the embedding here).
  REQUIRE(output_layer_params(m) > 0);
  CHECK(stage_weight_bytes_per_gpu(m, WeightFormat::bf16, 4, 0, 2) +
            stage_weight_bytes_per_gpu(m, WeightFormat::bf16, 4, 1, 2) ==
        Approx(weight_bytes_per_gpu(m, WeightFormat::bf16, 4)));
  CHECK(stage_weight_bytes_per_gpu(m, WeightFormat::bf16, 4, 0, 2) ==
        Approx((40.0 * layer_params(m) + embedding_params(m)) * 2 / 4));
  const KvCapacity one = kv_capacity(flat, h100), two = kv_capacity(split, h100);
  CHECK(two.stages == 2);
  CHECK(two.bytes_per_token == Approx(one.bytes_per_token / 2));
  // Half the weights per GPU leave more room, and each token takes half the bytes: over twice the tokens.
  CHECK(two.tokens() > 2 * one.tokens());
  CHECK(describe(two).find("of stage") != std::string::npos);
}

TEST_CASE("a pipelined token passes every stage and the fabric between them", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 1, {}, "--set");
  const Topology topology = build_cluster(cluster);
  ServingSpec spec = pipelined("llama-3-8b", 1, 2);
  // One request: its second token is one decode step through both stages.
  const uint32_t prompt = 1000;
  const std::vector<Request> one{{.id = 0, .arrival = Time(), .prompt = prompt, .output = 2}};
  const ServingOutcome o = serve(topology, cluster, spec, one);
  REQUIRE(o.run.sequences[0].generated == 2);
  const Time step = o.run.sequences[0].last_token - o.run.sequences[0].first_token;

  const Efficiencies eff = default_compute_profile().resolve("h100-sxm");
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  const auto none = [](CollectiveOp, Bytes) { return Time(); };
  const IterationModel first(spec, h100, eff, default_host_overheads(), none, {16, true, false});
  const IterationModel last(spec, h100, eff, default_host_overheads(), none, {16, false, true});
  BatchShape decode;
  decode.decode_seqs = decode.sampled = decode.seqs = 1;
  decode.decode_context = prompt + 1;
  const Time stages = first.cost(decode).total() + last.cost(decode).total();
  // 16 KiB of activations (hidden states and residual, bf16) over NVLink: a few microseconds.
  CHECK(o.run.stage_bytes == Approx(stage_activation_bytes_per_token(spec.model) * (prompt + 1)));
  CHECK(o.run.stage_transfers == 2);
  CHECK(step > stages);
  CHECK(step < stages + Time::us(20));
  // Each GPU is busy for its own stage only: the iteration's busy time is the stages' mean.
  CHECK(o.run.iterations.back().duration == Time::ps(stages.ps() / 2));
}

TEST_CASE("a loaded pipeline keeps batches in flight on every stage and finishes every request", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 1, {}, "--set");
  const Topology topology = build_cluster(cluster);
  const std::vector<Request> requests = poisson_requests(30, 300, {LengthKind::lognormal, 1000, 500, 1, 4000},
                                                         {LengthKind::lognormal, 200, 100, 1, 800}, 5);
  const uint64_t outputs = weft::test::output_tokens(requests);
  ServingSpec spec = pipelined("llama-3-70b", 2, 4);
  spec.limits.cuda_graphs = false;  // batches unpadded: the activations' bytes follow the tokens exactly
  const ServingOutcome o = serve(topology, cluster, spec, requests);
  CHECK(o.metrics.output_tokens == outputs);
  CHECK(o.run.replica_gpus == std::vector<uint32_t>{8});
  uint64_t tokens = 0, overlapping = 0;
  for (size_t i = 0; i < o.run.iterations.size(); ++i) {
    const IterationSample& it = o.run.iterations[i];
    tokens += it.tokens;
    // A batch's stages take 4 x its duration; the next batch entering before that means both are in
    // the pipeline at once (one stage replica cannot overlap its batches).
    if (i + 1 < o.run.iterations.size() && o.run.iterations[i + 1].start < it.start + it.duration * 4) ++overlapping;
  }
  CHECK(overlapping > o.run.iterations.size() / 2);
  CHECK(o.run.stage_transfers == o.run.iterations.size() * 3 * 2);  // 3 stage boundaries x tp 2
  CHECK(o.run.stage_bytes == Approx(static_cast<double>(tokens) * 3 * stage_activation_bytes_per_token(spec.model)));
  const ServingOutcome again = serve(topology, cluster, spec, requests);
  CHECK(again.metrics.e2e.p99 == o.metrics.e2e.p99);
}

TEST_CASE("a pipelined replica short of KV blocks preempts only sequences not in flight", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 1, {}, "--set");
  const Topology topology = build_cluster(cluster);
  const std::vector<Request> requests = poisson_requests(40, 200, {LengthKind::lognormal, 2000, 800, 100, 6000},
                                                         {LengthKind::lognormal, 400, 200, 2, 1500}, 7);
  const uint64_t outputs = weft::test::output_tokens(requests);
  ServingSpec spec = pipelined("llama-3-8b", 1, 2);
  spec.limits.gpu_memory_utilization = 0.2;
  const ServingOutcome o = serve(topology, cluster, spec, requests);
  CHECK(o.metrics.preemptions > 0);
  CHECK(o.metrics.output_tokens == outputs);
  for (const Sequence& s : o.run.sequences) CHECK_FALSE(s.in_flight);
}

TEST_CASE("pipeline stages are checked against the model and the system", "[serving]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  ServingSpec spec = pipelined("llama-3-8b", 1, 33);
  CHECK_THROWS_WITH(check(spec, 64, h100), Catch::Contains("parallel.pp: 33 stages") && Catch::Contains("32 layers"));
  spec.pp = 4;
  spec.tp = 4;
  CHECK_THROWS_WITH(check(spec, 8, h100), Catch::Contains("tp 4 x pp 4 x replicas 1 = 16 GPUs"));
  CHECK(serving_gpus(spec) == 16);
  spec.disaggregated.prefill_tp = 1;
  CHECK_THROWS_WITH(check(spec, 64, h100), Catch::Contains("take their stages from disaggregated.prefill_pp"));
}
