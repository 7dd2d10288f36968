// Expert-parallel serving replicas (parallel.ep: DP attention + EP): what the spec refuses, the weights
// each GPU holds, one engine's iteration beside the others of its group (the DeepEP exchange per MoE
// layer, the dummy batch, the padding to the group's batch), the exchange's times on the fabric, and
// a run whose engines step in lockstep.
#include <catch2/catch.hpp>

#include <map>

#include "sim/core/errors.h"
#include "tests/serving_runs.h"
#include "topologies/builders.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/systems.h"
#include "workloads/serving/kv_cache.h"
#include "workloads/serving/replica_collectives.h"

using namespace weft;
using weft::test::poisson_requests;
using weft::test::serve;

namespace {

ServingSpec expert_parallel(const char* name, uint32_t ep) {
  ServingSpec spec;
  spec.model = model(name);
  spec.ep = ep;
  return spec;
}

BatchShape decodes(uint32_t seqs, uint64_t context) {
  BatchShape b;
  b.decode_seqs = b.sampled = b.seqs = seqs;
  b.decode_context = context * seqs;
  return b;
}

}  // namespace

TEST_CASE("expert parallelism is checked against the model and the other parallelisms", "[serving]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  ServingSpec spec = expert_parallel("mixtral-8x7b", 8);
  CHECK_NOTHROW(check(spec, 8, h100));
  CHECK(serving_gpus(spec) == 8);
  spec.replicas = 2;
  CHECK(serving_gpus(spec) == 16);
  CHECK_THROWS_WITH(check(spec, 8, h100), Catch::Contains("tp 1 x ep 8 x replicas 2 = 16 GPUs"));
  spec.replicas = 1;
  spec.ep = 0;
  CHECK_THROWS_WITH(check(spec, 8, h100), Catch::Contains("parallel.ep: expected at least 1"));
  spec.ep = 16;
  CHECK_THROWS_WITH(check(spec, 16, h100), Catch::Contains("8 experts do not divide over 16 GPUs"));
  spec.ep = 4;
  spec.tp = 2;
  CHECK_THROWS_WITH(check(spec, 8, h100), Catch::Contains("set tp 1 and pp 1"));
  ServingSpec dense = expert_parallel("llama-3-8b", 2);
  CHECK_THROWS_WITH(check(dense, 8, h100), Catch::Contains("llama-3-8b is dense"));
}

TEST_CASE("an expert-parallel GPU holds its experts whole and everything else", "[serving]") {
  const ModelConfig m = model("mixtral-8x7b");
  const double experts = 32.0 * 8 * static_cast<double>(mlp_params_per_expert(m));
  const double rest = static_cast<double>(total_params(m)) - experts;
  CHECK(weight_bytes_per_gpu(m, WeightFormat::bf16, 1, 8) == Approx(2 * (rest + experts / 8)));
  CHECK(weight_bytes_per_gpu(m, WeightFormat::fp8, 1, 4) == Approx(rest + experts / 4));
  CHECK(weight_bytes_per_gpu(m, WeightFormat::bf16, 8, 1) == Approx(2 * (rest + experts) / 8));
  // Each engine's KV cache holds all KV heads of its own sequences (attention is not split).
  const ServingSpec spec = expert_parallel("mixtral-8x7b", 8);
  const KvCapacity c = kv_capacity(spec, catalogue::gpu("h100-sxm"));
  CHECK(c.bytes_per_token == Approx(kv_bytes_per_token(m, Precision::bf16, 1)));
  CHECK(c.weights == Approx(weight_bytes_per_gpu(m, WeightFormat::bf16, 1, 8)));
}

TEST_CASE("an engine's iteration pays its group's exchange per MoE layer", "[serving]") {
  const ServingSpec spec = expert_parallel("mixtral-8x7b", 8);
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  const Efficiencies eff = default_compute_profile().resolve("h100-sxm");
  std::map<std::pair<EpKernel, uint32_t>, int> asked;  // (kernel, tokens) -> dispatches and combines
  const auto exchange = [&asked](EpKernel k, EpPhase, uint32_t tokens) {
    ++asked[{k, tokens}];
    return Time::us(10);
  };
  const auto no_collective = [](CollectiveOp, Bytes) { return Time::us(1000); };  // ep alone: never asked
  const IterationModel model(spec, h100, eff, HostOverheads{}, no_collective, {}, exchange);

  // Decodes on one engine, the seven others idle: all pad to its CUDA graph of 8 (5 decodes).
  ExpertGroupLoad load;
  load.add(decodes(5, 1000));
  for (int i = 0; i < 7; ++i) load.add(BatchShape{});
  CHECK(load.tokens == 12);
  CHECK(load.max_tokens == 5);
  CHECK(load.decode_only);
  CHECK(model.graph_tokens(decodes(5, 1000), &load) == 8);
  CHECK(model.graph_tokens(BatchShape{}, &load) == 8);
  const IterationCost busy = model.cost(decodes(5, 1000), &load);
  const IterationCost idle = model.cost(BatchShape{}, &load);
  CHECK(busy.graph);
  // 32 layers, each a low-latency dispatch and combine of the padded 8 tokens per GPU.
  CHECK(asked.at({EpKernel::low_latency, 8}) == 4);  // two iterations' dispatch and combine, priced once per layer
  CHECK(busy.communication == Time::us(20) * 32);
  CHECK(idle.communication == busy.communication);
  // The idle engine reads its expert and attention weights as the busy one does, but no KV cache.
  CHECK(idle.gpu < busy.gpu);
  CHECK(idle.gpu > busy.communication);

  // A prompt anywhere in the group: the normal kernels, no graphs, the busiest engine's tokens.
  BatchShape prompt;
  prompt.prefill_tokens = 512;
  prompt.prefill_pairs = 512.0 * 513 / 2;
  prompt.sampled = prompt.seqs = 1;
  ExpertGroupLoad mixed;
  mixed.add(prompt);
  mixed.add(decodes(5, 1000));
  CHECK_FALSE(mixed.decode_only);
  const IterationCost decode_beside_prompt = model.cost(decodes(5, 1000), &mixed);
  CHECK_FALSE(decode_beside_prompt.graph);
  CHECK(asked.at({EpKernel::normal, 512}) == 2);
  // Its experts see the prompt's tokens too: slower than beside idle engines, exchange included.
  CHECK(decode_beside_prompt.gpu - decode_beside_prompt.communication > busy.gpu - busy.communication);
  CHECK_THROWS_AS(model.cost(decodes(5, 1000)), InvariantError);
}

TEST_CASE("the exchange is simulated at powers of two and linear between them", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 2, {}, "--set");
  const Topology topology = build_cluster(cluster);
  Simulation main(topology, SimulationSetup{});
  IsolatedTimer timer(main);
  std::vector<uint32_t> gpus(16);
  for (uint32_t g = 0; g < 16; ++g) gpus[g] = g;
  ReplicaCollectives c(topology, cluster, gpus, timer);
  ModelConfig m = model("mixtral-8x7b");
  m.experts = 64;  // four per GPU
  CHECK(c.exchange(m, EpKernel::normal, EpPhase::dispatch, 0) == Time());
  const Time at64 = c.exchange(m, EpKernel::normal, EpPhase::dispatch, 64);
  const Time at128 = c.exchange(m, EpKernel::normal, EpPhase::dispatch, 128);
  CHECK(at64 < at128);
  CHECK(c.exchange(m, EpKernel::normal, EpPhase::dispatch, 96) == at64 + Time::ps((at128 - at64).ps() / 2));
  // Combine carries bf16 back, dispatch fp8 out (DeepEP's formats): combine is the slower.
  CHECK(c.exchange(m, EpKernel::normal, EpPhase::combine, 64) > at64);
  // Across two nodes the tokens cross the InfiniBand: slower than on one node's NVLink.
  std::vector<uint32_t> node(gpus.begin(), gpus.begin() + 8);
  ReplicaCollectives one_node(topology, cluster, node, timer);
  CHECK(one_node.exchange(m, EpKernel::normal, EpPhase::dispatch, 64) < at64);
  CHECK(timer.simulated() == 4);
}

TEST_CASE("an expert-parallel replica's engines step together and serve every request", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 1, {}, "--set");
  const Topology topology = build_cluster(cluster);
  const ServingSpec spec = expert_parallel("mixtral-8x7b", 8);
  const std::vector<Request> requests = poisson_requests(20, 120, {LengthKind::fixed, 300}, {LengthKind::fixed, 40}, 3);
  const ServingOutcome o = serve(topology, cluster, spec, requests);
  CHECK(o.run.replicas == 8);  // engines
  for (const Sequence& s : o.run.sequences) CHECK(s.generated == 40);
  // Every engine was used (the least loaded takes each request), and engines that ran at the same
  // instant ended together: one duration per start.
  std::map<int64_t, Time> ends;
  std::vector<int> used(8, 0);
  for (const IterationSample& it : o.run.iterations) {
    ++used[it.replica];
    const auto [at, first] = ends.emplace(it.start.ps(), it.duration);
    if (!first) CHECK(at->second == it.duration);
  }
  for (int u : used) CHECK(u > 0);
  CHECK(ends.size() < o.run.iterations.size());  // some iterations shared by several engines
  // Iterations of one group never overlap: each starts after the previous one ended.
  Time free;
  for (const auto& [start, duration] : ends) {
    CHECK(Time::ps(start) >= free);
    free = Time::ps(start) + duration;
  }
}

TEST_CASE("disaggregated pools may each be expert-parallel", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 2, {}, "--set");
  const Topology topology = build_cluster(cluster);
  ServingSpec spec = expert_parallel("mixtral-8x7b", 1);
  spec.disaggregated = {
      .prefill_tp = 1, .prefill_replicas = 1, .decode_tp = 1, .decode_replicas = 1, .prefill_ep = 8, .decode_ep = 8};
  CHECK(serving_gpus(spec) == 16);
  const std::vector<Request> requests = poisson_requests(20, 60, {LengthKind::fixed, 300}, {LengthKind::fixed, 20}, 5);
  const ServingOutcome o = serve(topology, cluster, spec, requests);
  CHECK(o.run.replicas == 16);  // engines: eight prefill, eight decode
  CHECK(o.run.prefill_replicas == 8);
  for (const Sequence& s : o.run.sequences) CHECK(s.generated == 20);
  // Each cache goes from the one prefill GPU that holds it to the one decode GPU, all KV heads (tp 1).
  CHECK(o.run.kv_bytes == Approx(60 * 300 * kv_bytes_per_token(spec.model, Precision::bf16, 1)).epsilon(1e-9));

  // A decode pool whose replicas would start inside a node is refused, and so is tp with ep.
  spec.disaggregated.prefill_ep = 4;
  CHECK_THROWS_WITH(serve(topology, cluster, spec, requests), Catch::Contains("would start at GPU 4"));
  spec.disaggregated.decode_tp = 2;
  CHECK_THROWS_WITH(check(spec, 16, catalogue::gpu("h100-sxm")),
                    Catch::Contains("disaggregated.decode_ep") && Catch::Contains("set decode_tp 1"));
}
