// Transformer model configurations (the published ones with their sources, and user-defined ones),
// their parameter counts, and the FLOPs and activation bytes of one layer, per rank, for a
// tensor-parallel degree t and a context-parallel degree c. Formulas: ../shared/reference/workloads.md
// §3.1 (Narayanan et al. 2021, arXiv:2104.04473; Megatron-LM num_floating_point_operations).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace weft {

// A decoder-only transformer. Norm weights and biases are not modelled (under 0.1 % of the
// parameters of every catalogue model, and negligible FLOPs).
struct ModelConfig {
  std::string name;
  uint32_t layers = 0;
  uint32_t hidden = 0;             // h, the residual-stream width
  uint32_t heads = 0;              // a, query heads
  uint32_t kv_heads = 0;           // a_kv: = heads for MHA, fewer for GQA, 1 for MQA
  uint32_t head_dim = 0;           // d; 0 means hidden / heads
  uint32_t ffn = 0;                // f, MLP inner width (per expert for MoE)
  uint32_t vocab = 0;              // V
  uint32_t experts = 1;            // routed experts per MoE layer; 1 = dense
  uint32_t top_k = 1;              // experts each token visits
  bool gated_mlp = false;          // SwiGLU (gate, up, down: 3 matrices), else GELU (2 matrices)
  bool tied_embeddings = false;    // the output layer reuses the input embedding
  bool learned_positions = false;  // a max_seq x h position table (GPT-2/3, Megatron GPT), not RoPE
  uint32_t max_seq = 0;            // context length the model was trained for, tokens
  std::string source;              // where the numbers come from
};

// The catalogue (names are lower case, e.g. "llama-3-8b"; lookup ignores case).
std::span<const ModelConfig> models();
// Throws ConfigError listing the known names and the closest one.
const ModelConfig& model(std::string_view name);
// Throws ConfigError naming the model, the field and what was expected: zero sizes, hidden not
// divisible by heads (when head_dim is 0), heads not divisible by kv_heads, top_k above experts.
void check(const ModelConfig& m);

uint32_t head_dim(const ModelConfig& m);

// --- Parameters (elements, not bytes) ---
uint64_t attention_params(const ModelConfig& m);       // Q, K, V, O projections
uint64_t mlp_params_per_expert(const ModelConfig& m);  // (2 or 3) h f
uint64_t router_params(const ModelConfig& m);          // h x experts; 0 when dense
uint64_t layer_params(const ModelConfig& m);           // attention + experts x MLP + router
uint64_t layer_active_params(const ModelConfig& m);    // attention + top_k x MLP + router
uint64_t embedding_params(const ModelConfig& m);       // V h (+ max_seq h learned positions)
uint64_t output_layer_params(const ModelConfig& m);    // V h, or 0 when tied
uint64_t total_params(const ModelConfig& m);
uint64_t active_params(const ModelConfig& m);  // parameters one token passes through

// --- FLOPs (2 per multiply-accumulate) ---

// What one rank computes of one layer for one micro-batch.
struct LayerShape {
  uint64_t micro_batch = 1;  // b, sequences
  uint64_t seq = 2048;       // s, tokens per sequence before the context-parallel split
  uint32_t tp = 1;           // t: heads, FFN columns and vocabulary split t ways
  uint32_t cp = 1;           // c: each rank holds s/c tokens and attends to all s keys
  // Causal attention kernels (flash-attention with a causal mask) skip the masked half of the
  // score and AV products. Default off: Narayanan et al.'s formula, Megatron's FLOP counter and
  // published TFLOP/s and MFU figures count all s^2 products, so MFU stays comparable. Turn it on to
  // time a causal kernel (flash-attention's published throughputs count only the work it does).
  bool causal_skip = false;
  // Sequence parallelism (Korthikanti et al. 2022, arXiv:2205.05198): norms and residual adds are
  // split t ways along the sequence; without it every tensor-parallel rank repeats them.
  bool sequence_parallel = false;
  uint32_t element_bytes = 2;  // activation dtype: 2 for bf16/fp16, 4 for fp32, 1 for fp8
  // Fused attention (flash-attention) keeps the b a s^2 scores on chip. Without it (Megatron-LM
  // before FlashAttention, 2022) the scores, softmax and dropout go through HBM: LayerBytes::scores.
  bool flash_attention = true;
  // fp8 GEMMs (Transformer Engine) cast their bf16 inputs and output gradients to fp8, each with a
  // transposed copy for the other GEMM of the backward pass: LayerBytes::casts.
  bool fp8_gemm_inputs = false;
  // The linear layers carry biases (GPT-2-style models, Megatron-LM's default, MPT before no_bias):
  // backward sums each one's output gradient over the tokens, LayerBytes::bias_grads.
  bool linear_biases = false;
};

// Forward FLOPs of one layer on one rank for one micro-batch, by piece.
struct LayerFlops {
  double qkv = 0;        // 2 b (s/c) h (a d + 2 a_kv d) / t
  double attention = 0;  // scores QK^T + AV: 4 b (s/c) s a d / t, halved with causal_skip
  double out_proj = 0;   // 2 b (s/c) (a d) h / t
  double mlp = 0;        // 2 b (s/c) h f (2 or 3) top_k / t
  double router = 0;     // 2 b (s/c) h experts, repeated on every tensor-parallel rank
  double total() const { return qkv + attention + out_proj + mlp + router; }
};

LayerFlops layer_forward_flops(const ModelConfig& m, const LayerShape& shape);
// The vocabulary projection on the last pipeline stage: 2 b (s/c) h V / t.
double logits_forward_flops(const ModelConfig& m, const LayerShape& shape);

// Backward computes the input and the weight gradients: two GEMMs for each forward GEMM.
constexpr double backward_flops(double forward) { return 2 * forward; }
// Per layer and pass: forward + backward, plus one more forward when activations are recomputed.
constexpr double layer_pass_flops(double forward, bool recompute) {
  return forward + backward_flops(forward) + (recompute ? forward : 0);
}

// FLOPs of one training step of the whole model over `global_batch` sequences of `seq` tokens
// (no parallelism; the logits are never recomputed). For GPT this is Narayanan et al.'s
// 72 G s L h^2 (1 + s/(6h) + V/(12 L h)), or 96 G s L h^2 (1 + s/(6h) + V/(16 L h)) with recompute.
double training_step_flops(const ModelConfig& m, uint64_t global_batch, uint64_t seq, bool recompute,
                           bool causal_skip = false);

// --- Activation bytes of the memory-bound ops (read + written to HBM), forward, one rank ---
// Flash-attention keeps scores and softmax on chip, so attention moves only Q, K, V and O.
// Backward of an elementwise op reads the saved input and the incoming gradient and writes one
// gradient; we charge 2x the forward bytes (the generator may use backward_bytes()).
struct LayerBytes {
  double norms = 0;         // two norms per layer: read x, write y (b (s/c) h each)
  double residual = 0;      // two residual adds: read two, write one
  double activation = 0;    // GELU: read f, write f; SwiGLU: read 2f, write f (x top_k)
  double attention_io = 0;  // read Q (s/c rows), K and V (all s rows with CP), write O
  // Without flash_attention, per score element (e bytes each, 1-byte dropout mask): forward writes
  // the scores, softmax reads them and writes P, dropout reads P and writes P' and the mask, AV
  // reads P': 6e + 1. Backward: dP' written and read by dropout's backward with the mask, which
  // writes dP; softmax's backward reads dP and P and writes dS; dV reads P'; dQ and dK read dS:
  // 9e + 1 (so not backward_bytes()).
  double scores = 0;
  double scores_backward = 0;
  // With fp8_gemm_inputs, per element cast: read bf16 (2), write fp8 and its transpose (1 + 1).
  // Forward: the inputs of the out-projection and of the second MLP GEMM (the norms before QKV
  // and the first MLP GEMM write fp8 directly: Transformer Engine's LayerNormLinear fuses the cast).
  // Backward: the output gradient of each of the four GEMMs.
  double casts_attention = 0, casts_mlp = 0;
  double casts_attention_backward = 0, casts_mlp_backward = 0;
  // Backward only, with linear_biases: a bias's gradient is its output gradient summed over the
  // tokens (PyTorch's AddmmBackward and Megatron-LM's linear layers: grad_output.sum(0)), a kernel
  // of its own that reads that gradient once. QKV and out-projection; the MLP's two GEMMs (dense).
  double bias_grads_attention = 0, bias_grads_mlp = 0;
  double total() const { return norms + residual + activation + attention_io + scores + casts_attention + casts_mlp; }
};

LayerBytes layer_forward_bytes(const ModelConfig& m, const LayerShape& shape);
constexpr double backward_bytes(double forward) { return 2 * forward; }

}  // namespace weft
