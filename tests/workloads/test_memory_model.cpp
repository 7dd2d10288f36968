// Memory per GPU of a training plan (workloads/memory_model.h), against hand derivations.
#include <catch2/catch.hpp>

#include "topologies/catalogue/gpus.h"
#include "workloads/memory_model.h"
#include "workloads/model.h"

using namespace weft;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// A small dense model: 4 layers, h 1024, 16 heads, GELU MLP of 4h, vocab 32000, untied.
TrainingSpec small(uint32_t dp) {
  TrainingSpec s;
  s.model = {.name = "small",
             .layers = 4,
             .hidden = 1024,
             .heads = 16,
             .kv_heads = 16,
             .ffn = 4096,
             .vocab = 32000,
             .max_seq = 2048};
  s.parallel.dp = dp;
  s.global_batch = dp;
  s.micro_batch = 1;
  s.seq_len = 2048;
  s.grad_bytes = 2;
  return s;
}

}  // namespace

TEST_CASE("memory: mixed-precision Adam is 16 bytes a parameter, sharded by each ZeRO stage", "[unit][memory]") {
  // ZeRO (Rajbhandari et al. 2020, §3.1): 2 B bf16 weights + 2 B gradients + 12 B fp32 master, momentum
  // and variance; stage 1 shards the 12 over dp, stage 2 the gradients too, stage 3 the weights too.
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  TrainingSpec s = small(8);
  const double params = static_cast<double>(total_params(s.model));
  MemoryBreakdown m = training_memory(s, h100);
  CHECK(m.weights == Approx(2 * params));
  CHECK(m.gradients == Approx(2 * params));
  CHECK(m.optimizer == Approx(12 * params));
  s.sharding = Sharding::zero1;
  CHECK(training_memory(s, h100).optimizer == Approx(12 * params / 8));
  CHECK(training_memory(s, h100).gradients == Approx(2 * params));
  s.sharding = Sharding::zero2;
  CHECK(training_memory(s, h100).gradients == Approx(2 * params / 8));
  CHECK(training_memory(s, h100).weights == Approx(2 * params));
  s.sharding = Sharding::zero3;
  CHECK(training_memory(s, h100).weights == Approx(2 * params / 8));
  // Megatron's fp32 main gradients: 4 bytes each.
  s = small(8);
  s.grad_bytes = 4;
  CHECK(training_memory(s, h100).gradients == Approx(4 * params));
}

TEST_CASE("memory: ZeRO shards over the gradient communicators: cp joins dp, experts over dp / ep", "[unit][memory]") {
  // The step's data-parallel collectives run over dp x cp ranks (rank_layout.cpp), and Megatron-core
  // builds its distributed optimizer on that group; expert parameters reduce over dp / ep x cp ranks.
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  TrainingSpec s = small(4);
  s.parallel.cp = 2;
  s.sharding = Sharding::zero1;
  const double params = static_cast<double>(total_params(s.model));
  CHECK(training_memory(s, h100).optimizer == Approx(12 * params / 8));
  TrainingSpec moe = small(8);
  moe.model.experts = 8;
  moe.model.top_k = 2;
  moe.parallel.ep = 4;
  moe.sharding = Sharding::zero1;
  const double expert = 8.0 * moe.model.layers * mlp_params_per_expert(moe.model);
  const double dense = static_cast<double>(total_params(moe.model)) - expert;
  // 2 of the 8 experts live on each rank; their states shard over the 8 / 4 = 2 expert-data-parallel ranks.
  CHECK(training_memory(moe, h100).optimizer == Approx(12 * (dense / 8 + expert / 4 / 2)));
}

TEST_CASE("memory: activations follow Korthikanti et al. 2022, Table 2", "[unit][memory]") {
  // s 2048, b 1, h 1024, a 16, one GPU, scores through HBM: s b h (34 + 5 a s / h) = 2048 x 1024 x
  // (34 + 160) bytes per layer, 4 layers, one micro-batch in flight; plus the last stage's fp32 logits
  // s b V x 4.
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  TrainingSpec s = small(1);
  s.flash_attention = false;
  const double logits = 2048.0 * 32000 * 4;
  CHECK(training_memory(s, h100).activations == Approx(4 * 2048.0 * 1024 * 194 + logits));
  // Fused attention keeps no a s^2 scores: 34 s b h.
  s.flash_attention = true;
  CHECK(training_memory(s, h100).activations == Approx(4 * 2048.0 * 1024 * 34 + logits));
  // Tensor parallelism 4: without sequence parallelism s b h (10 + 24/4); with it s b h 34/4; logits / 4.
  s.parallel = {.tp = 4, .dp = 1};
  CHECK(training_memory(s, h100).activations == Approx(4 * 2048.0 * 1024 * 16 + logits / 4));
  s.sequence_parallel = true;
  CHECK(training_memory(s, h100).activations == Approx(4 * 2048.0 * 1024 * 8.5 + logits / 4));
  // Full recomputation keeps each layer's input: 2 s b h / t.
  s.recompute = true;
  CHECK(training_memory(s, h100).activations == Approx(4 * 2048.0 * 1024 * 2 / 4 + logits / 4));
}

TEST_CASE("memory: 1F1B's first stage holds p micro-batches, GPipe all of them", "[unit][memory]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  TrainingSpec s = small(1);
  s.parallel = {.dp = 1, .pp = 4};
  s.global_batch = 16;  // 16 micro-batches
  const double per_layer = 2048.0 * 1024 * 34;
  MemoryBreakdown one_f_one_b = training_memory(s, h100);
  s.pipeline = PipelineKind::gpipe;
  MemoryBreakdown gpipe = training_memory(s, h100);
  // GPipe: every stage holds all 16 (one layer each); the last one also their logits and so decides.
  const double logits = 2048.0 * 32000 * 4;
  CHECK(gpipe.stage == 3);
  CHECK(gpipe.activations == Approx(16 * (per_layer + logits)));
  // 1F1B: the first stage holds 4 (one layer each: 4 x per_layer); the last stage 1 plus its logits.
  CHECK(one_f_one_b.activations == Approx(std::max(4 * per_layer, per_layer + logits)));
}

TEST_CASE("memory: Llama 3.1 405B data-parallel on 16 H100 does not fit; the changes offered do", "[unit][memory]") {
  // The case: 17.8 s per step at 58.6 % MFU was simulated for a plan that needs terabytes.
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  TrainingSpec s;
  s.model = model("llama-3.1-405b");
  s.parallel.dp = 16;
  s.global_batch = 16;
  s.seq_len = 8192;
  MemoryBreakdown m = training_memory(s, h100);
  CHECK_FALSE(m.fits());
  CHECK(m.total() > 16 * 405e9);  // 16 bytes a parameter alone
  CHECK(m.capacity == Approx(80 * kGiB));
  // 405B over 16 GPUs leaves 25 B parameters each, 50 GB of bf16 weights even fully sharded: no single
  // change fits, so none is offered.
  CHECK(changes_that_fit(s, h100).empty());
  TrainingSpec small_model = s;
  small_model.model = model("llama-3-8b");
  small_model.seq_len = 8192;
  // Llama 3 8B on 16 GPUs, DDP: 8 B x (2 + 4 + 12) = 150 GB of state alone; ZeRO-1 still holds 2 + 4
  // bytes a parameter plus 36 GiB of activations (32 layers x 34 s h); ZeRO-2 fits.
  REQUIRE_FALSE(training_memory(small_model, h100).fits());
  const std::vector<std::string> fixes = changes_that_fit(small_model, h100);
  REQUIRE_FALSE(fixes.empty());
  CHECK(fixes.size() <= 3);
  CHECK(fixes.front() == "zero: 2");
  small_model.sharding = Sharding::zero2;
  CHECK(training_memory(small_model, h100).fits());
}

TEST_CASE("memory: fixed costs are the CUDA context, NCCL's ring buffers per communicator and 5 %", "[unit][memory]") {
  // CUDA context 1,343 MiB (Hugging Face's measurement); NCCL: 16 channels x (512 KiB LL + 4.6875 MiB
  // LL128 + 4 MiB Simple) per communicator of more than one rank; fragmentation 5 % of the rest.
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  const double mib = 1024.0 * 1024;
  const double connection = 0.5 * mib + 4.6875 * mib + 4 * mib;
  TrainingSpec s = small(8);  // data parallelism only: one communicator
  MemoryBreakdown m = training_memory(s, h100);
  const double rest = m.weights + m.gradients + m.optimizer + m.activations;
  CHECK(m.fixed == Approx(1343 * mib + 16 * connection + 0.05 * rest));
  s.parallel = {.tp = 2, .dp = 2, .pp = 2};  // three communicators
  m = training_memory(s, h100);
  CHECK(m.fixed ==
        Approx(1343 * mib + 3 * 16 * connection + 0.05 * (m.weights + m.gradients + m.optimizer + m.activations)));
  s.parallel = {};  // one GPU: no communicator, no NCCL buffers
  s.global_batch = 1;
  m = training_memory(s, h100);
  CHECK(m.fixed == Approx(1343 * mib + 0.05 * (m.weights + m.gradients + m.optimizer + m.activations)));
}

TEST_CASE("memory: when no single change fits, two together are offered", "[unit][memory]") {
  // Llama 3 70B, DDP on 32 H100, 8,192 tokens: ZeRO-3 alone leaves 70 B x 18 B / 32 = 37 GiB of state
  // plus 80 layers x 34 s h = 170 GiB of activations; recomputation alone keeps 18 B a parameter
  // (1.2 TB); together they fit.
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  TrainingSpec s;
  s.model = model("llama-3-70b");
  s.parallel.dp = 32;
  s.global_batch = 32;
  s.seq_len = 8192;
  REQUIRE_FALSE(training_memory(s, h100).fits());
  const std::vector<std::string> fixes = changes_that_fit(s, h100);
  REQUIRE_FALSE(fixes.empty());
  CHECK(fixes.front() == "zero: 3 with recompute: true");
  s.sharding = Sharding::zero3;
  CHECK_FALSE(training_memory(s, h100).fits());
  s.recompute = true;
  CHECK(training_memory(s, h100).fits());
}
