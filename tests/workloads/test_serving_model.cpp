// LLM serving's pure parts (workloads/serving/): the request stream's distributions, the KV cache's size
// and the cost of one iteration, against closed forms derived in the comments.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/core/errors.h"
#include "sim/core/rng.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/serving/iteration_cost.h"
#include "workloads/serving/kv_cache.h"
#include "workloads/serving/requests.h"

using namespace weft;

namespace {

struct Moments {
  double mean = 0, sd = 0;
};

template <class F>
Moments moments(int n, F draw) {
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = draw();
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / n;
  return {mean, std::sqrt(sum2 / n - mean * mean)};
}

ServingSpec llama8b(uint32_t tp) {
  ServingSpec s;
  s.model = model("llama-3-8b");
  s.tp = tp;
  return s;
}

IterationModel no_host_model(const ServingSpec& spec, const catalogue::GpuSpec& gpu, const Efficiencies& eff) {
  return IterationModel(spec, gpu, eff, HostOverheads{}, [](CollectiveOp, Bytes) { return Time::us(10); });
}

}  // namespace

TEST_CASE("samplers have the moments of their distributions", "[serving][validation]") {
  Rng rng(7, "test");
  // Exponential(1): mean 1, sd 1. Gamma(k): mean k, sd sqrt(k). Normal: 0, 1. 200k draws: the standard
  // error of a mean is under 0.3 % of these scales.
  const Moments e = moments(200000, [&] { return sample_exponential(rng); });
  CHECK(e.mean == Approx(1).epsilon(0.01));
  CHECK(e.sd == Approx(1).epsilon(0.01));
  const Moments g = moments(200000, [&] { return sample_gamma(rng, 0.25); });
  CHECK(g.mean == Approx(0.25).epsilon(0.02));
  CHECK(g.sd == Approx(0.5).epsilon(0.02));
  const Moments n = moments(200000, [&] { return sample_normal(rng); });
  CHECK(n.mean == Approx(0).margin(0.01));
  CHECK(n.sd == Approx(1).epsilon(0.01));
}

TEST_CASE("a request stream has its rate, burstiness and lengths, and repeats for a seed", "[serving][validation]") {
  RequestStreamSpec s;
  s.arrivals = {ArrivalKind::gamma, 10, 2};  // mean gap 0.1 s, cv 2
  s.count = 50000;
  s.prompt = {LengthKind::lognormal, 1000, 400, 1, 0};
  s.output = {LengthKind::uniform, 200, 100, 1, 0};
  const std::vector<Request> r = generate_requests(s, 3);
  REQUIRE(r.size() == 50000);
  std::vector<double> gaps;
  for (size_t i = 1; i < r.size(); ++i) gaps.push_back((r[i].arrival - r[i - 1].arrival).seconds());
  size_t k = 0;
  const Moments gap = moments(static_cast<int>(gaps.size()), [&] { return gaps[k++]; });
  CHECK(gap.mean == Approx(0.1).epsilon(0.03));
  CHECK(gap.sd / gap.mean == Approx(2).epsilon(0.05));
  k = 0;
  const Moments prompt = moments(50000, [&] { return static_cast<double>(r[k++].prompt); });
  CHECK(prompt.mean == Approx(1000).epsilon(0.02));
  CHECK(prompt.sd == Approx(400).epsilon(0.05));
  k = 0;
  const Moments output = moments(50000, [&] { return static_cast<double>(r[k++].output); });
  CHECK(output.mean == Approx(200).epsilon(0.01));
  CHECK(output.sd == Approx(100 / std::sqrt(3.0)).epsilon(0.02));  // uniform of half-width 100: w / sqrt(3)

  const std::vector<Request> again = generate_requests(s, 3), other = generate_requests(s, 4);
  CHECK(again.back().arrival == r.back().arrival);
  CHECK(again[123].prompt == r[123].prompt);
  CHECK(other.back().arrival != r.back().arrival);
}

TEST_CASE("a stream bounded by duration stops there; lengths are clamped", "[serving]") {
  RequestStreamSpec s;
  s.arrivals = {ArrivalKind::poisson, 100, 1};
  s.duration = Time::ms(10'000);
  s.prompt = {LengthKind::normal, 100, 1000, 50, 150};
  const std::vector<Request> r = generate_requests(s, 1);
  CHECK(r.size() == Approx(1000).epsilon(0.1));  // 100/s for 10 s
  CHECK(r.back().arrival < s.duration);
  for (const Request& q : r) {
    CHECK(q.prompt >= 50);
    CHECK(q.prompt <= 150);
  }
  s.arrivals.kind = ArrivalKind::all_at_once;
  CHECK_THROWS_AS(generate_requests(s, 1), ConfigError);  // neither a count nor a rate to end it
  s.count = 4;
  for (const Request& q : generate_requests(s, 1)) CHECK(q.arrival == Time());
}

TEST_CASE("KV bytes per token: 2 x layers x KV heads held x head_dim x bytes", "[serving][validation]") {
  const ModelConfig m = model("llama-3-8b");  // 32 layers, 8 KV heads of 128
  CHECK(kv_bytes_per_token(m, Precision::bf16, 1) == 2.0 * 32 * 8 * 128 * 2);
  CHECK(kv_bytes_per_token(m, Precision::fp8, 2) == 2.0 * 32 * 4 * 128 * 1);
  CHECK(kv_bytes_per_token(m, Precision::bf16, 16) == 2.0 * 32 * 1 * 128 * 2);  // one head, replicated
}

TEST_CASE("the KV cache is what the weights, activations and fixed costs leave", "[serving]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  ServingSpec s = llama8b(1);
  const KvCapacity c = kv_capacity(s, h100);
  CHECK(c.usable == Approx(0.9 * static_cast<double>(h100.memory.count())));
  CHECK(c.weights == Approx(static_cast<double>(total_params(s.model)) * 2));
  CHECK(c.kv == Approx(c.usable - c.weights - c.activations - c.fixed));
  CHECK(c.blocks == static_cast<uint64_t>(c.kv / (c.bytes_per_token * 16)));
  s.tp = 2;
  CHECK(kv_capacity(s, h100).tokens() > 2 * c.tokens());  // half the weights and half the KV heads per GPU

  ServingSpec big;
  big.model = model("llama-3-70b");
  const catalogue::GpuSpec& rtx = catalogue::gpu("rtx-4090");
  const KvCapacity none = kv_capacity(big, rtx);
  CHECK(none.blocks == 0);
  CHECK_THROWS_WITH(require_room(none, big, rtx, 1000), Catch::Contains("does not leave room for the KV cache"));
  CHECK_THROWS_WITH(require_room(c, s, h100, c.tokens() * 4), Catch::Contains("fewer than the longest request"));
}

TEST_CASE("a batch-1 decode step reads the weights at the HBM's speed", "[serving][validation]") {
  // One token: every weight is read once; the GEMMs' FLOPs (2 per weight) are far below the ridge, so
  // the step is weight bytes / (bandwidth x memory efficiency), plus the KV and activations (< 1 %).
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  const ComputeProfile profile = default_compute_profile();
  const Efficiencies eff = profile.resolve(h100.name);
  const ServingSpec s = llama8b(1);
  const IterationModel model = no_host_model(s, h100, eff);
  BatchShape b;
  b.decode_seqs = b.sampled = b.seqs = 1;
  b.decode_context = 100;
  const double expected =
      (static_cast<double>(total_params(s.model)) - static_cast<double>(embedding_params(s.model))) * 2 /
      (h100.memory_bandwidth * eff.memory);
  CHECK(model.cost(b).gpu.seconds() == Approx(expected).epsilon(0.01));
}

TEST_CASE("prefill FLOPs are 2 x parameters x tokens plus causal attention", "[serving][validation]") {
  // One 2,048-token prompt from an empty cache, one token sampled: each layer's QKV (h x (a + 2 a_kv) d),
  // output (a d x h) and SwiGLU MLP (3 h f) for every token, attention 4 d a per causal pair (n (n + 1) / 2),
  // and the logits of one token (2 h V).
  const ServingSpec s = llama8b(1);
  const ModelConfig& m = s.model;
  const double n = 2048, h = m.hidden, d = 128, a = m.heads, kv = m.kv_heads, f = m.ffn;
  const double layer = h * (a + 2 * kv) * d + a * d * h + 3 * h * f;
  BatchShape b;
  b.prefill_tokens = 2048;
  b.prefill_pairs = n * (n + 1) / 2;
  b.sampled = b.seqs = 1;
  const double flops = m.layers * (2 * n * layer + 4 * d * a * b.prefill_pairs) + 2 * h * m.vocab;
  CHECK(iteration_flops(s, b) == Approx(flops).epsilon(1e-12));
  // Compute-bound: the time is at least those FLOPs at the GEMM efficiency's rate, and not much more.
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  const Efficiencies eff = default_compute_profile().resolve(h100.name);
  const double floor = m.layers * 2 * n * layer / (h100.bf16_flops * eff.gemm);
  const double t = no_host_model(s, h100, eff).cost(b).gpu.seconds();
  CHECK(t > floor);
  CHECK(t < 1.3 * floor);
}

TEST_CASE("tensor parallelism halves the per-GPU work and adds two all-reduces per layer", "[serving]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  const Efficiencies eff = default_compute_profile().resolve(h100.name);
  BatchShape b;
  b.decode_seqs = b.sampled = b.seqs = 8;
  b.decode_context = uint64_t{8} * 1000;
  const ServingSpec one = llama8b(1), two = llama8b(2);
  const IterationCost c1 = no_host_model(one, h100, eff).cost(b), c2 = no_host_model(two, h100, eff).cost(b);
  CHECK(c1.communication == Time());
  // 32 layers x 2 all-reduces at 10 us, and the logits' all-gather.
  CHECK(c2.communication == Time::us(10) * (32 * 2 + 1));
  CHECK((c2.gpu - c2.communication).seconds() == Approx(c1.gpu.seconds() / 2).epsilon(0.05));
  CHECK(iteration_flops(two, b) == Approx(iteration_flops(one, b) / 2).epsilon(0.01));
}

TEST_CASE("CUDA graphs pad decode batches; eager launches cost per kernel", "[serving]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  const Efficiencies eff = default_compute_profile().resolve(h100.name);
  ServingSpec s = llama8b(1);
  const IterationModel graphs(s, h100, eff, default_host_overheads(), {});
  BatchShape b;
  b.decode_seqs = b.sampled = b.seqs = 13;
  b.decode_context = uint64_t{13} * 100;
  CHECK(graphs.graph_tokens(b) == 16);
  CHECK(graphs.cost(b).launch == default_host_overheads().graph_launch);
  s.limits.cuda_graphs = false;
  const IterationModel eager(s, h100, eff, default_host_overheads(), {});
  CHECK(eager.graph_tokens(b) == 0);
  CHECK(eager.cost(b).launch == default_host_overheads().kernel_launch * (32 * 10 + 4));
  b.prefill_tokens = 100;  // a mixed batch runs eagerly
  CHECK(graphs.graph_tokens(b) == 0);
}
