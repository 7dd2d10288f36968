#include "workloads/model.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/names.h"

namespace weft {
namespace {

// Megatron-LM's GPT family of the SC21 weak-scaling table (Narayanan et al. 2021, arXiv:2104.04473,
// Table 1; ../shared/validation/training.csv names layers, hidden and heads): vocabulary 51,200
// (GPT-2 BPE padded), f = 4h with GELU, learned positions, tied embeddings, s = 2048.
// clang-format off
ModelConfig megatron_gpt(const char* size, uint32_t layers, uint32_t hidden, uint32_t heads) {
  return {.name = fmt::format("megatron-gpt-{}", size), .layers = layers, .hidden = hidden, .heads = heads,
          .kv_heads = heads, .ffn = 4 * hidden, .vocab = 51200, .tied_embeddings = true,
          .learned_positions = true, .max_seq = 2048,
          .source = "Narayanan et al. 2021, arXiv:2104.04473, Table 1 (Megatron-LM GPT, SC21)"};
}

// OpenAI's GPT-2 and GPT-3.
std::vector<ModelConfig> gpt_models() {
  return {
    // HF openai-community/gpt2 config.json: n_embd 768, n_layer 12, n_head 12, vocab 50257,
    // n_positions 1024, tied wte/lm_head; published 124M (124,439,808 with biases and norms).
    {.name = "gpt-2-124m", .layers = 12, .hidden = 768, .heads = 12, .kv_heads = 12, .ffn = 3072,
     .vocab = 50257, .tied_embeddings = true, .learned_positions = true, .max_seq = 1024,
     .source = "Radford et al. 2019 (GPT-2); HF openai-community/gpt2 config.json"},
    // Brown et al. 2020, arXiv:2005.14165, Table 2.1: 96 layers, d_model 12288, 96 heads of 128,
    // d_ff = 4 d_model, context 2048, GPT-2's 50257-token BPE; 175.0B published.
    {.name = "gpt-3-175b", .layers = 96, .hidden = 12288, .heads = 96, .kv_heads = 96, .ffn = 49152,
     .vocab = 50257, .tied_embeddings = true, .learned_positions = true, .max_seq = 2048,
     .source = "Brown et al. 2020, arXiv:2005.14165, Table 2.1"},
  };
}

// Meta's Llama 2 and Llama 3.
std::vector<ModelConfig> llama_models() {
  return {
    // Touvron et al. 2023, arXiv:2307.09288, and HF meta-llama/Llama-2-*-hf config.json: SwiGLU,
    // RoPE, untied output layer, context 4096. 70B uses GQA with 8 KV heads.
    {.name = "llama-2-7b", .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 32, .ffn = 11008,
     .vocab = 32000, .gated_mlp = true, .max_seq = 4096,
     .source = "arXiv:2307.09288; HF meta-llama/Llama-2-7b-hf config.json"},
    {.name = "llama-2-13b", .layers = 40, .hidden = 5120, .heads = 40, .kv_heads = 40, .ffn = 13824,
     .vocab = 32000, .gated_mlp = true, .max_seq = 4096,
     .source = "arXiv:2307.09288; HF meta-llama/Llama-2-13b-hf config.json"},
    {.name = "llama-2-70b", .layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .ffn = 28672,
     .vocab = 32000, .gated_mlp = true, .max_seq = 4096,
     .source = "arXiv:2307.09288; HF meta-llama/Llama-2-70b-hf config.json"},
    // Llama 3 herd paper, arXiv:2407.21783, Table 3, and HF meta-llama config.json: 128,256-token
    // vocabulary, GQA with 8 KV heads, context 8192 (3.1: 131,072).
    {.name = "llama-3-8b", .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn = 14336,
     .vocab = 128256, .gated_mlp = true, .max_seq = 8192,
     .source = "arXiv:2407.21783, Table 3; HF meta-llama/Meta-Llama-3-8B config.json"},
    {.name = "llama-3-70b", .layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .ffn = 28672,
     .vocab = 128256, .gated_mlp = true, .max_seq = 8192,
     .source = "arXiv:2407.21783, Table 3; HF meta-llama/Meta-Llama-3-70B config.json"},
    {.name = "llama-3.1-405b", .layers = 126, .hidden = 16384, .heads = 128, .kv_heads = 8, .ffn = 53248,
     .vocab = 128256, .gated_mlp = true, .max_seq = 131072,
     .source = "arXiv:2407.21783, Table 3; HF meta-llama/Llama-3.1-405B config.json"},
  };
}

// Mistral's mixtures of experts.
std::vector<ModelConfig> mixtral_models() {
  return {
    // Jiang et al. 2024, arXiv:2401.04088, Table 1: 8 experts, top-2, context 32768; 46.7B total,
    // 12.9B active.
    {.name = "mixtral-8x7b", .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn = 14336,
     .vocab = 32000, .experts = 8, .top_k = 2, .gated_mlp = true, .max_seq = 32768,
     .source = "Jiang et al. 2024, arXiv:2401.04088, Table 1"},
    // HF mistralai/Mixtral-8x22B-Instruct-v0.1 config.json (vocabulary 32768; the first base release
    // had 32000, 0.1 % fewer parameters); Mistral's announcement: 141B total, 39B active.
    {.name = "mixtral-8x22b", .layers = 56, .hidden = 6144, .heads = 48, .kv_heads = 8, .ffn = 16384,
     .vocab = 32768, .experts = 8, .top_k = 2, .gated_mlp = true, .max_seq = 65536,
     .source = "HF mistralai/Mixtral-8x22B-Instruct-v0.1 config.json; mistral.ai/news/mixtral-8x22b"},
  };
}

// Meta's small on-device models.
std::vector<ModelConfig> mobilellm_models() {
  return {
    // Liu et al. 2024, arXiv:2402.14905 (MobileLLM), Table 9: deep-and-thin, GQA, SwiGLU, tied
    // embeddings, head dim 64; 124.6M and 345.3M.
    {.name = "mobilellm-125m", .layers = 30, .hidden = 576, .heads = 9, .kv_heads = 3, .ffn = 1536,
     .vocab = 32000, .gated_mlp = true, .tied_embeddings = true, .max_seq = 2048,
     .source = "Liu et al. 2024, arXiv:2402.14905, Table 9"},
    {.name = "mobilellm-350m", .layers = 32, .hidden = 960, .heads = 15, .kv_heads = 5, .ffn = 2560,
     .vocab = 32000, .gated_mlp = true, .tied_embeddings = true, .max_seq = 2048,
     .source = "Liu et al. 2024, arXiv:2402.14905, Table 9"},
  };
}

// The ten sizes of the SC21 table (megatron_gpt above).
std::vector<ModelConfig> megatron_gpt_models() {
  return {megatron_gpt("1.7b", 24, 2304, 24), megatron_gpt("3.6b", 30, 3072, 32),
          megatron_gpt("7.5b", 36, 4096, 32), megatron_gpt("18.4b", 40, 6144, 48),
          megatron_gpt("39.1b", 48, 8192, 64), megatron_gpt("76.1b", 60, 10240, 80),
          megatron_gpt("145.6b", 80, 12288, 96), megatron_gpt("310.1b", 96, 16384, 128),
          megatron_gpt("529.6b", 105, 20480, 128), megatron_gpt("1008b", 128, 25600, 160)};
}

// MosaicML's MPT, as llm-foundry benchmarks them (scripts/train/yamls/pretrain/mpt-*.yaml @8c8dd48):
// GELU MLP of 4 d_model, learned positions (MPTConfig's default; the published parameter counts grow
// by d_model per token of max_seq_len), tied embeddings, biases on, 50,368-token vocabulary. 760m,
// 1b and 3b have fewer heads than their first release so that d_head is 128 (the yamls' comments).
ModelConfig mpt(const char* size, uint32_t layers, uint32_t hidden, uint32_t heads) {
  return {.name = std::string("mpt-") + size, .layers = layers, .hidden = hidden, .heads = heads,
          .kv_heads = heads, .ffn = 4 * hidden, .vocab = 50368, .tied_embeddings = true,
          .learned_positions = true, .max_seq = 2048,
          .source = "mosaicml/llm-foundry scripts/train/yamls/pretrain/mpt-" + std::string(size) + ".yaml"};
}

std::vector<ModelConfig> mpt_models() {
  return {mpt("125m", 12, 768, 12),   mpt("350m", 24, 1024, 16), mpt("760m", 24, 1536, 12),
          mpt("1b", 24, 2048, 16),    mpt("3b", 32, 2560, 20),   mpt("7b", 32, 4096, 32),
          mpt("13b", 40, 5120, 40),   mpt("30b", 48, 7168, 56),  mpt("70b", 80, 8192, 64)};
}

// Family after family: the order models() lists them in.
std::vector<ModelConfig> build_catalogue() {
  std::vector<ModelConfig> out;
  for (auto family : {gpt_models, llama_models, mixtral_models, mobilellm_models, megatron_gpt_models, mpt_models}) {
    for (ModelConfig& m : family()) out.push_back(std::move(m));
  }
  return out;
}
// clang-format on

// Built once on first use; immutable afterwards.
const std::vector<ModelConfig>& catalogue() {
  static const std::vector<ModelConfig> models = build_catalogue();
  return models;
}

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

[[noreturn]] void bad_field(const ModelConfig& m, const char* field, const std::string& expected) {
  throw ConfigError(fmt::format("model '{}': {}: {}", m.name, field, expected));
}

double d(uint64_t v) { return static_cast<double>(v); }

}  // namespace

std::span<const ModelConfig> models() { return catalogue(); }

const ModelConfig& model(std::string_view name) {
  std::vector<std::string_view> known;
  for (const ModelConfig& m : catalogue()) {
    if (iequals(m.name, name)) return m;
    known.push_back(m.name);
  }
  throw ConfigError(
      fmt::format("model: unknown '{}' (known: {}){}", name, join_names(known), did_you_mean(name, known)));
}

void check(const ModelConfig& m) {
  const std::pair<const char*, uint32_t> sizes[] = {
      {"layers", m.layers}, {"hidden", m.hidden},   {"heads", m.heads}, {"kv_heads", m.kv_heads}, {"ffn", m.ffn},
      {"vocab", m.vocab},   {"experts", m.experts}, {"top_k", m.top_k}, {"max_seq", m.max_seq}};
  for (const auto& [field, value] : sizes) {
    if (value == 0) bad_field(m, field, "expected a positive whole number, got 0");
  }
  if (m.head_dim == 0 && m.hidden % m.heads != 0) {
    bad_field(m, "hidden",
              fmt::format("expected a multiple of heads ({}) or an explicit head_dim, got {}", m.heads, m.hidden));
  }
  if (m.heads % m.kv_heads != 0) {
    bad_field(m, "kv_heads", fmt::format("expected a divisor of heads ({}), got {}", m.heads, m.kv_heads));
  }
  if (m.top_k > m.experts) {
    bad_field(m, "top_k", fmt::format("expected at most experts ({}), got {}", m.experts, m.top_k));
  }
}

uint32_t head_dim(const ModelConfig& m) { return m.head_dim != 0 ? m.head_dim : m.hidden / m.heads; }

// Q: h x (a d), K and V: h x (a_kv d) each, O: (a d) x h.
uint64_t attention_params(const ModelConfig& m) {
  const uint64_t h = m.hidden, q = uint64_t{m.heads} * head_dim(m), kv = uint64_t{m.kv_heads} * head_dim(m);
  return h * q + 2 * h * kv + q * h;
}

// GELU: up h x f and down f x h; SwiGLU adds the gate h x f.
uint64_t mlp_params_per_expert(const ModelConfig& m) { return (m.gated_mlp ? 3ULL : 2ULL) * m.hidden * m.ffn; }

// The gate is one h x experts matrix (Mixtral's `gate`, no bias).
uint64_t router_params(const ModelConfig& m) { return m.experts > 1 ? uint64_t{m.hidden} * m.experts : 0; }

uint64_t layer_params(const ModelConfig& m) {
  return attention_params(m) + m.experts * mlp_params_per_expert(m) + router_params(m);
}

uint64_t layer_active_params(const ModelConfig& m) {
  return attention_params(m) + m.top_k * mlp_params_per_expert(m) + router_params(m);
}

uint64_t embedding_params(const ModelConfig& m) {
  return uint64_t{m.vocab} * m.hidden + (m.learned_positions ? uint64_t{m.max_seq} * m.hidden : 0);
}

uint64_t output_layer_params(const ModelConfig& m) { return m.tied_embeddings ? 0 : uint64_t{m.vocab} * m.hidden; }

uint64_t total_params(const ModelConfig& m) {
  return m.layers * layer_params(m) + embedding_params(m) + output_layer_params(m);
}

// Every token reads its embedding row and the whole output layer, so both count as active (the
// convention behind Mixtral's 12.9B).
uint64_t active_params(const ModelConfig& m) {
  return m.layers * layer_active_params(m) + embedding_params(m) + output_layer_params(m);
}

// Each GEMM of an (M x K) by (K x N) product costs 2 M K N. Tokens on this rank: M = b s / c.
// Tensor parallelism splits the heads and the FFN columns, so every GEMM's N (or K) shrinks by t.
LayerFlops layer_forward_flops(const ModelConfig& m, const LayerShape& shape) {
  const double t = shape.tp, tokens = d(shape.micro_batch) * d(shape.seq) / shape.cp;
  const double h = m.hidden, q = d(m.heads) * head_dim(m), kv = d(m.kv_heads) * head_dim(m);
  LayerFlops f;
  f.qkv = 2 * tokens * h * (q + 2 * kv) / t;
  // QK^T: each of the rank's queries against all s keys, a d each; AV the same again. GQA shares
  // K and V between heads but every query head still does its own products.
  f.attention = 2 * 2 * tokens * d(shape.seq) * q / t * (shape.causal_skip ? 0.5 : 1.0);
  f.out_proj = 2 * tokens * q * h / t;
  f.mlp = 2 * tokens * h * d(m.ffn) * (m.gated_mlp ? 3 : 2) * m.top_k / t;
  // Megatron replicates the router on every tensor-parallel rank (it is tiny: h x experts).
  f.router = m.experts > 1 ? 2 * tokens * h * m.experts : 0;
  return f;
}

double logits_forward_flops(const ModelConfig& m, const LayerShape& shape) {
  const double tokens = d(shape.micro_batch) * d(shape.seq) / shape.cp;
  return 2 * tokens * m.hidden * d(m.vocab) / shape.tp;
}

double training_step_flops(const ModelConfig& m, uint64_t global_batch, uint64_t seq, bool recompute,
                           bool causal_skip) {
  const LayerShape shape{.micro_batch = global_batch, .seq = seq, .causal_skip = causal_skip};
  const double layer = layer_forward_flops(m, shape).total();
  return m.layers * layer_pass_flops(layer, recompute) + layer_pass_flops(logits_forward_flops(m, shape), false);
}

LayerBytes layer_forward_bytes(const ModelConfig& m, const LayerShape& shape) {
  const double e = shape.element_bytes, t = shape.tp;
  const double tokens = d(shape.micro_batch) * d(shape.seq) / shape.cp;
  const double replicated = shape.sequence_parallel ? t : 1.0;  // norms/residuals split only with SP
  const double h = m.hidden, q = d(m.heads) * head_dim(m), kv = d(m.kv_heads) * head_dim(m);
  LayerBytes b;
  b.norms = 2 * 2 * tokens * h * e / replicated;
  b.residual = 2 * 3 * tokens * h * e / replicated;
  b.activation = tokens * d(m.ffn) * m.top_k * (m.gated_mlp ? 3 : 2) * e / t;
  // Q in and O out for this rank's tokens; K and V for all s positions of its micro-batch (with
  // context parallelism the other ranks' blocks arrive and are read once each).
  b.attention_io = (2 * tokens * q + 2 * d(shape.micro_batch) * d(shape.seq) * kv) * e / t;
  if (!shape.flash_attention) {
    const double score_elements = tokens * d(shape.seq) * d(m.heads) / t;
    b.scores = score_elements * (6 * e + 1);
    b.scores_backward = score_elements * (9 * e + 1);
  }
  if (shape.linear_biases) {
    const double fc1 = d(m.ffn) * (m.gated_mlp ? 2 : 1);
    b.bias_grads_attention = (tokens * (q + 2 * kv) / t + tokens * h / replicated) * e;
    b.bias_grads_mlp = (tokens * fc1 / t + tokens * h / replicated) * e;
  }
  if (shape.fp8_gemm_inputs) {
    constexpr double kCastBytes = 2 + 1 + 1;
    const double ffn = d(m.ffn) * m.top_k / t;  // columns of the MLP's second GEMM input
    b.casts_attention = kCastBytes * tokens * q / t;
    b.casts_mlp = kCastBytes * tokens * ffn;
    b.casts_attention_backward = kCastBytes * tokens * ((q + 2 * kv) / t + h);
    b.casts_mlp_backward = kCastBytes * tokens * (ffn * (m.gated_mlp ? 2 : 1) + h);
  }
  return b;
}

}  // namespace weft
