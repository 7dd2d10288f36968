#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "sim/core/errors.h"
#include "tests/small_model.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/model.h"
#include "workloads/training.h"

using namespace weft;

namespace {

double total_of(const char* name) { return static_cast<double>(total_params(model(name))); }

}  // namespace

TEST_CASE("every catalogue model is valid, named once and sourced", "[model]") {
  std::set<std::string> names;
  for (const ModelConfig& m : models()) {
    CHECK_NOTHROW(check(m));
    CHECK_FALSE(m.source.empty());
    CHECK(names.insert(m.name).second);
  }
  CHECK(names.size() == 31);
  CHECK(model("LLAMA-3-8B").name == "llama-3-8b");
}

TEST_CASE("an unknown model names the known ones and the closest", "[model]") {
  REQUIRE_THROWS_AS(model("llama3-8b"), ConfigError);
  REQUIRE_THROWS_WITH(model("llama3-8b"), Catch::Contains("did you mean 'llama-3-8b'") &&
                                              Catch::Contains("mixtral-8x22b") && Catch::Contains("unknown"));
}

TEST_CASE("check names the bad field of a user-defined model and what was expected", "[model]") {
  const ModelConfig good{.name = "mine",
                         .layers = 4,
                         .hidden = 512,
                         .heads = 8,
                         .kv_heads = 2,
                         .ffn = 2048,
                         .vocab = 1000,
                         .max_seq = 128};
  CHECK_NOTHROW(check(good));
  ModelConfig m = good;
  m.layers = 0;
  CHECK_THROWS_WITH(check(m), Catch::Contains("model 'mine': layers") && Catch::Contains("positive"));
  m = good;
  m.heads = 7;  // 512 / 7 is not whole
  CHECK_THROWS_WITH(check(m), Catch::Contains("hidden") && Catch::Contains("multiple of heads (7)"));
  m.head_dim = 64;  // an explicit head size makes it legal (then heads % kv_heads still fails: 7 % 2)
  CHECK_THROWS_WITH(check(m), Catch::Contains("kv_heads") && Catch::Contains("divisor of heads (7)"));
  m = good;
  m.experts = 2;
  m.top_k = 3;
  CHECK_THROWS_WITH(check(m), Catch::Contains("top_k") && Catch::Contains("at most experts (2)"));
}

// Norm weights and biases are not modelled; each tolerance says what that leaves out.
TEST_CASE("parameter counts match the published totals", "[model][validation]") {
  // HF counts 6,738,415,616 including 65 RMSNorm vectors of 4,096 (266,240): ours is that minus them.
  CHECK(total_params(model("llama-2-7b")) == 6'738'415'616 - 65 * 4096);
  CHECK(layer_params(model("llama-2-7b")) == 202'375'168);  // reference notes: 202.4M per layer
  // Llama 3 8B: HF 8,030,261,248 with norms; 70B: 70,553,706,496 with 161 norms of 8,192.
  CHECK(total_params(model("llama-3-8b")) == 8'030'261'248 - 65 * 4096);
  CHECK(total_params(model("llama-3-70b")) == 70'553'706'496 - 161 * 8192);
  // Published figures rounded to 0.1B (<= 0.4 % here), plus 0.01 % of biases and norms.
  CHECK(total_of("llama-2-13b") == Approx(13.0e9).epsilon(0.005));
  CHECK(total_of("llama-2-70b") == Approx(69.0e9).epsilon(0.005));
  CHECK(total_of("llama-3.1-405b") == Approx(405.8e9).epsilon(0.001));
  // GPT-3 "175.0B": 12 L h^2 + V h + 2048 h = 174.59B; 0.3 % off, the paper's own rounding.
  CHECK(total_of("gpt-3-175b") == Approx(175.0e9).epsilon(0.005));
  CHECK(layer_params(model("gpt-3-175b")) == 12ULL * 12288 * 12288);
  // GPT-2: HF 124,439,808 includes 2 biases per matrix and 25 LayerNorms: 121,344 we leave out (0.1 %).
  CHECK(total_params(model("gpt-2-124m")) == 124'439'808 - 121'344);
  // MobileLLM Table 9 (tied, no biases): 124.6M and 345.3M, exactly up to the norms (0.03 %).
  CHECK(total_of("mobilellm-125m") == Approx(124.6e6).epsilon(0.001));
  CHECK(total_of("mobilellm-350m") == Approx(345.3e6).epsilon(0.001));
}

TEST_CASE("mixture-of-experts totals and active parameters", "[model][validation]") {
  const ModelConfig& m = model("mixtral-8x7b");
  // Per layer: 41.9M attention + 8 x 176.2M experts + 4096 x 8 router (reference notes §4).
  CHECK(attention_params(m) == 41'943'040);
  CHECK(mlp_params_per_expert(m) == 176'160'768);
  CHECK(router_params(m) == 32'768);
  // Mixtral paper: 46.7B total, 12.9B active (rounded to 0.1B: 0.2 % tolerance).
  CHECK(static_cast<double>(total_params(m)) == Approx(46.7e9).epsilon(0.002));
  CHECK(static_cast<double>(active_params(m)) == Approx(12.9e9).epsilon(0.002));
  // Mixtral 8x22B: "141B total, 39B active" (rounded to 1B: 0.5 %).
  const ModelConfig& big = model("mixtral-8x22b");
  CHECK(static_cast<double>(total_params(big)) == Approx(141e9).epsilon(0.005));
  CHECK(static_cast<double>(active_params(big)) == Approx(39e9).epsilon(0.005));
  // Dense models: every parameter is active.
  CHECK(active_params(model("llama-3-8b")) == total_params(model("llama-3-8b")));
}

TEST_CASE("the Megatron GPT family equals the paper's parameter formula less biases and norms", "[model][validation]") {
  // Narayanan et al. 2021 §5.1: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)); the 13 l h term is
  // the biases and LayerNorms we leave out.
  for (const char* name : {"megatron-gpt-1.7b", "megatron-gpt-145.6b", "megatron-gpt-1008b"}) {
    const ModelConfig& m = model(name);
    const double l = m.layers, h = m.hidden, V = m.vocab, s = m.max_seq;
    const double paper = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
    CHECK(static_cast<double>(total_params(m)) == Approx(paper - 13 * l * h).epsilon(1e-12));
  }
  CHECK(total_of("megatron-gpt-1008b") == Approx(1008e9).epsilon(0.001));
}

TEST_CASE("GPT-3 layer FLOPs are 24bsh^2 + 4bs^2h, piece by piece", "[model][validation]") {
  const ModelConfig& m = model("gpt-3-175b");
  const double b = 4, s = 2048, h = 12288;
  const LayerFlops f = layer_forward_flops(m, {.micro_batch = 4, .seq = 2048});
  CHECK(f.qkv == Approx(6 * b * s * h * h));
  CHECK(f.attention == Approx(4 * b * s * s * h));
  CHECK(f.out_proj == Approx(2 * b * s * h * h));
  CHECK(f.mlp == Approx(16 * b * s * h * h));
  CHECK(f.router == 0);
  CHECK(f.total() == Approx(24 * b * s * h * h + 4 * b * s * s * h).epsilon(1e-12));
  CHECK(logits_forward_flops(m, {.micro_batch = 4, .seq = 2048}) == Approx(2 * b * s * h * 50257));
}

TEST_CASE("tensor and context parallelism split a layer's FLOPs", "[model][validation]") {
  const ModelConfig& m = model("llama-3-70b");
  const LayerFlops one = layer_forward_flops(m, {.micro_batch = 1, .seq = 8192});
  // t = 8: every GEMM and the attention of 1/8 of the heads.
  const LayerFlops tp = layer_forward_flops(m, {.micro_batch = 1, .seq = 8192, .tp = 8});
  CHECK(tp.total() == Approx(one.total() / 8));
  // c = 2: half the tokens per rank, each still attending to all s keys: everything halves.
  const LayerFlops cp = layer_forward_flops(m, {.micro_batch = 1, .seq = 8192, .cp = 2});
  CHECK(cp.qkv == Approx(one.qkv / 2));
  CHECK(cp.attention == Approx(one.attention / 2));
  // A causal kernel does half the score and AV products; the GEMMs are unchanged.
  const LayerFlops causal = layer_forward_flops(m, {.micro_batch = 1, .seq = 8192, .causal_skip = true});
  CHECK(causal.attention == Approx(one.attention / 2));
  CHECK(causal.mlp == one.mlp);
  // Backward doubles, recomputation adds one forward.
  CHECK(layer_pass_flops(1.0, false) == 3.0);
  CHECK(layer_pass_flops(1.0, true) == 4.0);
}

TEST_CASE("a training step matches Narayanan et al.'s whole-step formula", "[model][validation]") {
  // Eq. (3) of arXiv:2104.04473 with and without activation recomputation, for the SC21 145.6B
  // model at its Table 1 batch (1,536 sequences of 2,048 tokens).
  const ModelConfig& m = model("megatron-gpt-145.6b");
  const double G = 1536, s = 2048, L = m.layers, h = m.hidden, V = m.vocab;
  const double plain = 72 * G * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
  const double recompute = 96 * G * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h));
  CHECK(training_step_flops(m, 1536, 2048, false) == Approx(plain).epsilon(1e-12));
  CHECK(training_step_flops(m, 1536, 2048, true) == Approx(recompute).epsilon(1e-12));
}

TEST_CASE("GQA, SwiGLU and top-k follow Megatron's generalised FLOP count", "[model][validation]") {
  // reference notes §3.1: F = 12 G s L h^2 [(1 + a_kv/a + s/h)(a d/h) + (f/h) k g + V/(2 L h)],
  // g = 3/2 for SwiGLU; the router (h x experts, 3 x 2 G s h E per layer) is not in it.
  for (const char* name : {"llama-3-8b", "mixtral-8x7b", "mobilellm-125m"}) {
    const ModelConfig& m = model(name);
    const double G = 8, s = 4096, L = m.layers, h = m.hidden, a = m.heads, kv = m.kv_heads;
    const double d = head_dim(m), f = m.ffn, k = m.top_k, V = m.vocab, E = m.experts;
    const double megatron =
        12 * G * s * L * h * h * ((1 + kv / a + s / h) * (a * d / h) + (f / h) * k * 1.5 + V / (2 * L * h));
    const double router = E > 1 ? 3 * 2 * G * s * h * E * L : 0;
    CHECK(training_step_flops(m, 8, 4096, false) == Approx(megatron + router).epsilon(1e-12));
  }
}

TEST_CASE("activation bytes of the memory-bound ops", "[model]") {
  const ModelConfig& m = model("gpt-3-175b");
  const double s = 2048, h = 12288, e = 2;
  const LayerBytes one = layer_forward_bytes(m, {.micro_batch = 1, .seq = 2048});
  CHECK(one.norms == Approx(2 * 2 * s * h * e));       // two norms, read + write
  CHECK(one.residual == Approx(2 * 3 * s * h * e));    // two adds, read 2 + write 1
  CHECK(one.activation == Approx(2 * s * 4 * h * e));  // GELU over f = 4h, read + write
  CHECK(one.attention_io == Approx(4 * s * h * e));    // Q, K, V in, O out (MHA)
  // Without sequence parallelism every TP rank repeats the norms; with it they split t ways.
  const LayerBytes tp = layer_forward_bytes(m, {.micro_batch = 1, .seq = 2048, .tp = 8});
  const LayerBytes sp = layer_forward_bytes(m, {.micro_batch = 1, .seq = 2048, .tp = 8, .sequence_parallel = true});
  CHECK(tp.norms == one.norms);
  CHECK(sp.norms == Approx(one.norms / 8));
  CHECK(tp.activation == Approx(one.activation / 8));
  CHECK(backward_bytes(one.total()) == 2 * one.total());
  // Flash-attention by default: no score traffic, no fp8 casts.
  CHECK(one.scores == 0);
  CHECK(one.casts_attention + one.casts_mlp + one.casts_attention_backward + one.casts_mlp_backward == 0);
}

TEST_CASE("materialised attention scores and fp8 casts through HBM", "[model]") {
  const ModelConfig& m = model("gpt-3-175b");  // 96 heads, h 12288, GELU MLP f = 4h
  const double s = 2048, h = 12288, a = 96, e = 2, t = 8;
  const LayerBytes unfused = layer_forward_bytes(m, {.micro_batch = 2, .seq = 2048, .tp = 8, .flash_attention = false});
  // b a/t s^2 score elements: 2 x 12 x 2048^2 = 100.7 M; forward 6e + 1 = 13 B each (scores written,
  // softmax read + write, dropout read + write + 1-byte mask, AV read), backward 9e + 1 = 19 B.
  const double elements = 2 * a / t * s * s;
  CHECK(unfused.scores == Approx((6 * e + 1) * elements));
  CHECK(unfused.scores_backward == Approx((9 * e + 1) * elements));
  CHECK(unfused.scores == Approx(1.3086e9).epsilon(1e-4));
  // fp8 (attention and tensors stay 2-byte): 4 B per cast element (read 2, write fp8 + transpose).
  const LayerBytes fp8 = layer_forward_bytes(m, {.micro_batch = 1, .seq = 2048, .tp = 8, .fp8_gemm_inputs = true});
  CHECK(fp8.casts_attention == Approx(4 * s * h / t));                     // out-projection input: b s (a d)/t
  CHECK(fp8.casts_mlp == Approx(4 * s * 4 * h / t));                       // second MLP GEMM input: b s f/t
  CHECK(fp8.casts_attention_backward == Approx(4 * s * (3 * h / t + h)));  // dQKV, d(out-proj output)
  CHECK(fp8.casts_mlp_backward == Approx(4 * s * (4 * h / t + h)));        // d(fc1 output), d(fc2 output)
  CHECK(fp8.scores == 0);
}

TEST_CASE("bias gradients read each biased linear layer's output gradient once", "[model]") {
  const ModelConfig& m = model("gpt-3-175b");  // MHA, GELU MLP f = 4h
  const double s = 2048, h = 12288, e = 2, t = 8;
  // Column-parallel QKV (3h/t) and fc1 (4h/t) outputs; the row-parallel out-projection and fc2 add
  // their biases to the full h after the all-reduce, repeated on every TP rank without SP.
  const LayerBytes b = layer_forward_bytes(m, {.micro_batch = 1, .seq = 2048, .tp = 8, .linear_biases = true});
  CHECK(b.bias_grads_attention == Approx(s * (3 * h / t + h) * e));
  CHECK(b.bias_grads_mlp == Approx(s * (4 * h / t + h) * e));
  const LayerBytes sp = layer_forward_bytes(
      m, {.micro_batch = 1, .seq = 2048, .tp = 8, .sequence_parallel = true, .linear_biases = true});
  CHECK(sp.bias_grads_mlp == Approx(s * (4 * h / t + h / t) * e));  // with SP each rank holds s/t rows of fc2's
  const LayerBytes none = layer_forward_bytes(m, {.micro_batch = 1, .seq = 2048, .tp = 8});
  CHECK(none.bias_grads_attention + none.bias_grads_mlp == 0);
}

TEST_CASE("MPT: llm-foundry's published parameter counts, less biases and LayerNorms", "[model][validation]") {
  // llm-foundry scripts/train/benchmarking/README.md NumParams at 2,048 tokens (learned positions grow
  // the count by d_model per token); the 9 h biases and 4 h LayerNorm elements per layer (and 2 h of
  // the final norm) are not in ModelConfig.
  const struct {
    const char* name;
    double published;
  } rows[] = {{"mpt-125m", 125311488}, {"mpt-7b", 6658859008}, {"mpt-70b", 64862437376}};
  for (const auto& r : rows) {
    const ModelConfig& m = model(r.name);
    const double l = m.layers, h = m.hidden;
    CHECK(static_cast<double>(total_params(m)) == Approx(r.published - (13 * l + 2) * h).epsilon(1e-12));
  }
}

TEST_CASE("training metric passes read the logits again in fp32 after each micro-batch's backward", "[model]") {
  // Each pass reads the 2-byte logits, writes and reads their fp32 copy and writes fp32 log-probabilities:
  // 2 + 12 = 14 B per logit; the output layer's backward op already moves 4 + 2 (the softmax's gradient).
  TrainingSpec s;
  s.model = test::small_model();  // vocabulary 1,024
  s.global_batch = 1;
  s.seq_len = 1024;
  CHECK(logits_backward_bytes(s, 2) == 6);
  s.metric_passes = 2;
  CHECK(metric_logit_bytes(s, 2) == 28);
  CHECK(logits_backward_bytes(s, 2) == 34);
  // In a generated step the op grows by the time of those bytes at the GPU's memory rate.
  const catalogue::GpuSpec& gpu = catalogue::gpu("h100-sxm");
  auto bwd_logits = [&](uint32_t passes) {
    s.metric_passes = passes;
    const Workload w = generate_training(s, gpu, default_compute_profile());
    for (const Op& op : w.programs[0].ops) {
      if (w.labels[op.label] == "bwd logits") return op.duration;
    }
    FAIL("no bwd logits op");
    return Time();
  };
  const double logits = 1024.0 * 1024, rate = gpu.memory_bandwidth * default_compute_profile().resolve(gpu.name).memory;
  const double plain_s = logits * 6 / rate, with_s = logits * 34 / rate;
  CHECK((bwd_logits(2) - bwd_logits(0)).seconds() == Approx(with_s - plain_s).margin(2e-12));
}

TEST_CASE("a block's norm moves its fused bytes at the software stack's norm efficiency", "[model]") {
  // One norm per block: forward reads x and writes y, backward reads x and dy and writes dx, each
  // b s h elements of 2 bytes; the rest of the op (GEMMs, activation, residual) is the same in every stack.
  TrainingSpec s;
  s.model = test::small_model();  // hidden 1,024
  s.global_batch = 1;
  s.seq_len = 1024;
  const catalogue::GpuSpec& gpu = catalogue::gpu("h100-sxm");
  auto op = [&](SoftwareStack stack, const char* label) {
    const Workload w = generate_training(s, gpu, default_compute_profile(stack));
    for (const Op& o : w.programs[0].ops) {
      if (w.labels[o.label] == label) return o.duration;
    }
    FAIL("no " << label << " op");
    return Time();
  };
  const double tensor = 1024.0 * 1024 * 2;
  const Efficiencies fused = default_compute_profile().resolve(gpu.name);
  const Efficiencies apex = default_compute_profile(SoftwareStack::y2021).resolve(gpu.name);
  const double rate = gpu.memory_bandwidth * fused.memory;
  const double forward_s = 2 * tensor / rate * (1 / apex.norm - 1 / fused.norm);
  const double backward_s = 3 * tensor / rate * (1 / apex.norm_backward - 1 / fused.norm_backward);
  CHECK((op(SoftwareStack::y2021, "fwd mlp") - op(SoftwareStack::y2025, "fwd mlp")).seconds() ==
        Approx(forward_s).margin(2e-12));
  CHECK((op(SoftwareStack::y2021, "bwd mlp") - op(SoftwareStack::y2025, "bwd mlp")).seconds() ==
        Approx(backward_s).margin(2e-12));
  CHECK(backward_s > forward_s);  // apex's 2020 backward read x and dy twice
}
