#include "bench/training_rows.h"

#include <algorithm>
#include <regex>

#include "sim/core/errors.h"
#include "topologies/systems.h"

namespace weft::bench {
namespace {

uint32_t field_or(const Row& r, const char* key, uint32_t fallback) {
  auto it = r.find(key);
  return it == r.end() || it->second.empty() ? fallback : static_cast<uint32_t>(std::stoul(it->second));
}

// What the file leaves out of the SC21 rows, from the scripts that produced Table 1
// (github.com/NVIDIA/Megatron-LM examples/sc21/run_table_1.sh and CONFIG.sh): the micro-batch
// (MBS), --num-layers-per-virtual-pipeline-stage (0: not given, plain 1F1B) and --DDP-impl
// (torch: PyTorch DDP, 25 MB buckets overlapping backward; local: Megatron's own, one all-reduce of
// the whole gradient buffer after backward). All ran --fp16 with uniform full recomputation.
struct Sc21Script {
  const char* size;
  uint32_t micro_batch;
  uint32_t layers_per_virtual_stage;
  bool local_ddp;
};
constexpr Sc21Script kSc21[] = {
    {"1.7b", 16, 0, false}, {"3.6b", 16, 0, false}, {"7.5b", 16, 0, false}, {"18.4b", 8, 0, false},
    {"39.1b", 4, 0, true},  {"76.1b", 2, 5, true},  {"145.6b", 2, 5, true}, {"310.1b", 1, 3, true},
    {"529.6b", 1, 1, true}, {"1008b", 1, 0, true},
};

void set_system(Case& c, const std::string& preset) {
  c.system = preset;
  c.cluster = system_spec(preset);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Megatron SC21 row: "GPT (Megatron-LM) 1.7B, 24 layers, hidden 2304, 24 heads".
void describe_sc21(const Row& r, const RowOptions& opt, Case& c) {
  std::smatch m;
  const std::string& name = r.at("model");
  std::regex_search(name, m, std::regex(R"(\) ([0-9.]+B), (\d+) layers, hidden (\d+), (\d+) heads)"));
  const std::string size = lower(m[1]);
  c.spec.model = model("megatron-gpt-" + size);
  const ModelConfig& mc = c.spec.model;
  if (mc.layers != std::stoul(m[2]) || mc.hidden != std::stoul(m[3]) || mc.heads != std::stoul(m[4])) {
    throw ConfigError("catalogue's megatron-gpt-" + size + " differs from the row: " + name);
  }
  const Sc21Script* s = std::find_if(std::begin(kSc21), std::end(kSc21), [&](auto& x) { return size == x.size; });
  if (s == std::end(kSc21)) throw ConfigError("no SC21 script entry for " + name);
  c.name = "GPT " + std::string(m[1]);
  set_system(c, "dgx-a100");
  c.family = "Megatron SC21 fp16";
  c.spec.precision = Precision::fp16;
  c.spec.recompute = true;
  // Megatron-LM in 2021 had no flash-attention (FlashAttention: Dao et al., May 2022): scaled
  // masked softmax and dropout on the materialised scores, the full s x s products computed.
  c.spec.flash_attention = false;
  c.spec.causal_skip = false;
  // Megatron-LM's GPT linear layers carry biases, whose gradients it sums in backward
  // (grad_output.sum(dim=0) in its tensor-parallel linear layers).
  c.spec.linear_biases = true;
  // Megatron-LM of April 2021 normalised with apex's affine LayerNorm kernels of 2020 (its
  // fused_kernels copy): the 2021 stack (compute_model.cpp).
  c.software = SoftwareStack::y2021;
  c.spec.grad_bytes = 2;  // fp16 gradients: no --accumulate-allreduce-grads-in-fp32 in the scripts
  c.spec.micro_batch = s->micro_batch;
  if (s->local_ddp) c.spec.bucket = Bytes(uint64_t{1} << 62);  // one bucket, reduced after backward
  if (c.spec.parallel.pp > 1) {
    const uint32_t per_stage = mc.layers / c.spec.parallel.pp;
    const uint32_t v = s->layers_per_virtual_stage ? per_stage / s->layers_per_virtual_stage : 1;
    c.spec.pipeline = v > 1 ? PipelineKind::interleaved : PipelineKind::one_f_one_b;
    c.spec.virtual_stages = v;
  }
  c.flops_with_recompute = true;
  c.choices = "sc21 script: mbs " + std::to_string(s->micro_batch) + ", " +
              (s->layers_per_virtual_stage ? std::to_string(s->layers_per_virtual_stage) + " layers/virtual stage"
                                           : std::string("no interleaving")) +
              ", " + (s->local_ddp ? "local DDP (one all-reduce after backward)" : "torch DDP 25 MB buckets") +
              ", fp16 grads, linear biases, apex's 2020 LayerNorm (software: 2021)";
  if (opt.sc21_sp_zero1) {
    c.spec.sequence_parallel = c.spec.parallel.tp > 1;
    c.spec.sharding = Sharding::zero1;
    c.choices += "; --sc21-sp-zero1";
  }
}

// NeMo row: "Llama 3.1 70B (NeMo 24.09) (BF16)"; VP and GA only in the notes.
void describe_nemo(const Row& r, Case& c) {
  const std::string& name = r.at("model");
  const bool big = name.find("70B") != std::string::npos;
  c.spec.model = model(big ? "llama-3-70b" : "llama-3-8b");  // 3.1 has 3's architecture
  const bool fp8 = name.find("FP8") != std::string::npos;
  c.name = std::string(big ? "Llama3.1 70B" : "Llama3.1 8B") + (fp8 ? " fp8" : " bf16");
  set_system(c, "dgx-h100");
  c.family = std::string("NeMo 24.09 ") + (fp8 ? "fp8" : "bf16");
  c.spec.precision = fp8 ? Precision::fp8 : Precision::bf16;
  c.spec.sequence_parallel = c.spec.parallel.tp > 1;
  c.spec.sharding = Sharding::zero1;
  std::smatch m;
  const std::string& notes = r.at("notes");
  const uint32_t vp = std::regex_search(notes, m, std::regex(R"(VP=(\d+))")) ? std::stoul(m[1]) : 1;
  if (c.spec.parallel.pp > 1) {
    c.spec.pipeline = vp > 1 ? PipelineKind::interleaved : PipelineKind::one_f_one_b;
    c.spec.virtual_stages = vp;
  }
  if (std::regex_search(notes, m, std::regex(R"(GA=(\d+))")) && std::stoul(m[1]) != micro_batches(c.spec)) {
    throw ConfigError("GA in the notes disagrees with global / (micro x dp): " + name);
  }
  c.choices = "NeMo defaults: sp if tp>1, distributed optimizer (zero1), fp32 grad reduce, no recompute";
}

// The first integer after `key` in the notes, or 0.
uint32_t note_number(const std::string& notes, const std::string& key) {
  std::smatch m;
  return std::regex_search(notes, m, std::regex(key + R"((\d+))")) ? std::stoul(m[1]) : 0;
}

// MosaicML llm-foundry row: "MPT-7b (amp_bf16)" on a100_40gb / a100_80gb, 8 x 200 Gb/s RoCE per node;
// sharding, activation checkpointing, FSDP mixed-precision mode and grad_accum in the notes.
void describe_foundry(const Row& r, Case& c) {
  const std::string& name = r.at("model");
  std::smatch m;
  if (!std::regex_search(name, m, std::regex(R"(MPT-(\w+) \((\w+)\))"))) throw ConfigError("MPT row: " + name);
  c.spec.model = model("mpt-" + lower(m[1]));
  c.name = "MPT-" + std::string(m[1]) + " " + std::string(m[2]);
  c.family = "llm-foundry " + std::string(m[2]);
  const std::string& gpu = r.at("gpu_type");
  set_system(c, "dgx-a100");
  c.cluster.network.technology = NetworkTechnology::roce;
  c.system = "dgx-a100, RoCE";
  if (gpu == "a100_40gb") {
    c.cluster.node.gpu = "a100-40gb";
    c.system += ", A100 40GB";
  } else if (gpu != "a100_80gb") {
    throw ConfigError("MPT row on " + gpu + ": only a100_40gb and a100_80gb are described");
  }
  const std::string& notes = r.at("notes");
  if (notes.find("sharding=FULL_SHARD") == std::string::npos) throw ConfigError("MPT row without FULL_SHARD");
  c.spec.sharding = Sharding::zero3;  // PyTorch FSDP FULL_SHARD
  c.spec.recompute = notes.find("act.ckpt=True") != std::string::npos;
  // Composer's FSDP mixed precision: DEFAULT reduces gradients in fp32, PURE in bf16.
  const bool pure = notes.find("MP mode=PURE") != std::string::npos;
  c.spec.grad_bytes = pure ? 2 : 4;
  c.spec.precision = Precision::bf16;
  c.spec.causal_skip = true;  // flash-attention skips the blocks above the causal diagonal
  // MPT's linear layers had biases then: MPTConfig's no_bias defaulted to False and neither the
  // model yamls nor submit_benchmarks.py set it (llm-foundry@1ef7b4d2, May 2023).
  c.spec.linear_biases = true;
  // Composer (>= 0.14.1, < 0.15 then) evaluates the model's training metrics on every micro-batch's
  // logits after its backward, under autocast (composer@v0.14.1 trainer.py, _eval_train_metrics);
  // MPT's are LanguageCrossEntropy and LanguagePerplexity, a cross-entropy each.
  c.spec.metric_passes = 2;
  // The tables date from May 2023, before FlashAttention-2 (July 2023): the 2023 stack's efficiencies.
  c.software = SoftwareStack::y2023;
  // Composer lets the micro-batch leave a remainder (e.g. 11, 11, 11, 11, 4); weft splits each
  // rank's batch evenly over the same number of micro-batches.
  const uint32_t accum = note_number(notes, "grad_accum=");
  const uint32_t per_rank = c.spec.global_batch / c.spec.parallel.dp;
  std::string split;
  if (accum > 0 && per_rank % accum == 0 && per_rank / accum != c.spec.micro_batch) {
    split = "; micro-batch " + std::to_string(c.spec.micro_batch) + " x " + std::to_string(accum) +
            " accumulations as " + std::to_string(per_rank / accum) + " each";
    c.spec.micro_batch = per_rank / accum;
  }
  c.choices = std::string("llm-foundry: FSDP FULL_SHARD (zero3), ") + (pure ? "bf16" : "fp32") +
              " gradient reduce (MP mode " + (pure ? "PURE" : "DEFAULT") +
              "), FlashAttention 1 (software: 2023, the tables' date), linear biases, 2 metric passes over the logits, "
              "8x 200G RoCE" +
              split;
}

}  // namespace

// The row as a simulation, or the reason it cannot be one.
std::optional<Case> describe(const Row& r, const RowOptions& opt, std::string& why_not) {
  const std::string& name = r.at("model");
  const bool sc21 = name.rfind("GPT (Megatron-LM)", 0) == 0, nemo = name.rfind("Llama 3.1", 0) == 0;
  const bool foundry = name.rfind("MPT-", 0) == 0;
  if (!sc21 && !nemo && !foundry) {
    why_not = "model or system not in the catalogue";
    return std::nullopt;
  }
  Case c;
  c.gpus = field_or(r, "gpus", 0);
  c.spec.parallel = {.tp = field_or(r, "tp", 1),
                     .cp = field_or(r, "cp", 1),
                     .ep = field_or(r, "ep", 1),
                     .dp = field_or(r, "dp", 1),
                     .pp = field_or(r, "pp", 1)};
  c.spec.seq_len = field_or(r, "seq_len", 0);
  c.spec.global_batch = field_or(r, "global_batch", 0);
  c.spec.micro_batch = field_or(r, "micro_batch", 1);
  c.measured_s = std::stod(r.at("iteration_time_s"));
  c.measured_tflops = std::stod(r.at("tflops_per_gpu"));
  if (sc21) describe_sc21(r, opt, c);
  if (nemo) describe_nemo(r, c);
  if (foundry) describe_foundry(r, c);
  if (c.gpus > opt.max_gpus) {
    why_not = std::to_string(c.gpus) + " GPUs > --max-gpus " + std::to_string(opt.max_gpus);
    return std::nullopt;
  }
  return c;
}

Scenario scenario_of(const Case& c) {
  Scenario s;
  s.name = c.name + " x" + std::to_string(c.gpus);
  s.fabric = "flow";
  s.system.preset = c.system;
  s.system.cluster = c.cluster;
  s.system.cluster.nodes = static_cast<int>((c.gpus + c.cluster.node.gpus - 1) / c.cluster.node.gpus);
  s.system.ranks = c.gpus;
  TrainingWorkload t;
  t.spec = c.spec;
  t.profile = default_compute_profile(c.software);
  t.timing = CollectiveTiming::isolated;
  t.gpu = c.cluster.node.gpu;
  s.workload = std::move(t);
  return s;
}

}  // namespace weft::bench
