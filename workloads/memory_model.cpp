#include "workloads/memory_model.h"

#include <fmt/format.h>
#include <algorithm>
#include <functional>

#include "sim/core/errors.h"

namespace weft {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
// Mixed-precision Adam (ZeRO paper, Rajbhandari et al. 2020, §3.1): fp32 master weights, momentum and
// variance, K = 12 bytes per parameter; the working weights are 2 bytes (bf16/fp16). Gradients take
// spec.grad_bytes (Megatron's fp32 main gradients: 4; PyTorch DDP on a bf16 model: 2).
constexpr double kOptimizerBytes = 12;
constexpr double kWeightBytes = 2;
// Fixed per GPU. The CUDA context with PyTorch's kernels: 1,343 MiB in nvidia-smi after one small
// tensor reaches the GPU (Hugging Face Transformers docs, "Model training anatomy").
constexpr double kContextBytes = 1343.0 * 1024 * 1024;
// NCCL's buffers for one peer on one channel, all three protocols (NCCL src/init.cc DEFAULT_*_BUFFSIZE,
// src/include/device.h): LL 8 lines x 512 threads x 8 steps x 16 B (512 KiB), LL128 120 x 640 x 8 x 8 B
// (4.69 MiB), Simple 4 MiB: 9.19 MiB. Since NCCL 2.22 (NCCL_RUNTIME_CONNECT=1) a communicator connects
// only what it runs; a ring receives from one peer per channel. Assumed [not measured]: 16 channels,
// NCCL's ring count on 8-GPU NVSwitch nodes.
constexpr double kNcclConnectionBytes = 8.0 * 512 * 8 * 16 + 120.0 * 640 * 8 * 8 + (1 << 22);
constexpr double kNcclChannels = 16;
// PyTorch's caching allocator's fragmentation [unverified, no measurement cited yet]: 5 % of the rest.
constexpr double kFragmentation = 0.05;

// Activation bytes one layer keeps for one micro-batch on one rank (Korthikanti et al. 2022,
// arXiv:2205.05198, Table 2, 2-byte activations): s b h (34 + 5 a s / h) without parallelism;
// tensor parallelism with sequence parallelism divides all of it by t, without SP only 24 of the 34
// (s b h (10 + 24/t + 5as/(ht))); fused (flash) attention keeps no a s^2 scores, which drops the
// 5as/h term as selective recomputation does; full recomputation keeps the layer's input, 2 s b h
// (/t with SP). Context parallelism divides s.
double layer_activation_bytes(const TrainingSpec& spec) {
  const ModelConfig& m = spec.model;
  const double s = static_cast<double>(spec.seq_len) / spec.parallel.cp, b = spec.micro_batch, h = m.hidden;
  const double t = spec.parallel.tp, a = m.heads;
  const double sp = spec.sequence_parallel ? t : 1.0;
  if (spec.recompute) return 2 * s * b * h / sp;
  const double scores = spec.flash_attention ? 0.0 : 5 * a * s / h / t;
  const double linear = spec.sequence_parallel ? 34 / t : 10 + 24 / t;
  return s * b * h * (linear + scores);
}

// Micro-batches whose activations the stage holds at once: GPipe all m; 1F1B min(p - stage, m);
// interleaved 1F1B p (1 + (p - 1) / (p v)) on the first stage (Narayanan et al. 2021, §2.2).
double in_flight(const TrainingSpec& spec, int stage) {
  const double m = micro_batches(spec), p = spec.parallel.pp, v = spec.virtual_stages;
  switch (spec.pipeline) {
    case PipelineKind::gpipe:
      return m;
    case PipelineKind::one_f_one_b:
      return std::min(p - stage, m);
    case PipelineKind::interleaved:
      return std::min(stage == 0 ? p * (1 + (p - 1) / (p * v)) : p - stage, m * v);
  }
  return m;
}

MemoryBreakdown stage_memory(const TrainingSpec& spec, const catalogue::GpuSpec& gpu, int stage) {
  const ModelConfig& m = spec.model;
  const ParallelSizes& par = spec.parallel;
  const double layers = static_cast<double>(m.layers) / par.pp;
  // Dense parts split t ways; routed experts spread over ep ranks (each expert's MLP also over t).
  const double expert_params = static_cast<double>(m.experts) * mlp_params_per_expert(m);
  const double dense_params = static_cast<double>(layer_params(m)) - expert_params;
  double dense = layers * dense_params / par.tp;
  const double experts = layers * expert_params / par.ep / par.tp;
  const bool last = stage == static_cast<int>(par.pp) - 1;
  if (stage == 0 || (last && m.tied_embeddings)) dense += static_cast<double>(embedding_params(m)) / par.tp;
  if (last) dense += static_cast<double>(output_layer_params(m)) / par.tp;
  // ZeRO shards over the ranks that reduce the gradients, the communicators the step's collectives use
  // (rank_layout.cpp): context-parallel ranks join data parallelism (Megatron-core builds its distributed
  // optimizer on get_data_parallel_group(with_context_parallel=True)); expert parameters over the
  // expert-data-parallel ranks, dp / ep of them, times cp.
  const double dense_group = static_cast<double>(par.dp) * par.cp, expert_group = dense_group / par.ep;
  auto bytes = [&](double per_param, bool sharded) {
    return per_param * (sharded ? dense / dense_group + experts / expert_group : dense + experts);
  };
  MemoryBreakdown out;
  out.stage = stage;
  out.weights = bytes(kWeightBytes, spec.sharding == Sharding::zero3);
  out.gradients = bytes(spec.grad_bytes, spec.sharding >= Sharding::zero2);
  out.optimizer = bytes(kOptimizerBytes, spec.sharding >= Sharding::zero1);
  out.activations = layers * layer_activation_bytes(spec) * in_flight(spec, stage);
  // The loss keeps fp32 logits, s b V / t x 4 bytes, for each micro-batch the last stage holds.
  if (last)
    out.activations += 4.0 * spec.seq_len / par.cp * spec.micro_batch * m.vocab / par.tp * in_flight(spec, stage);
  out.fixed = cuda_context_bytes() + nccl_buffer_bytes(par) +
              kFragmentation * (out.weights + out.gradients + out.optimizer + out.activations);
  out.capacity = static_cast<double>(gpu.memory.count());
  return out;
}

}  // namespace

double cuda_context_bytes() { return kContextBytes; }

double nccl_buffer_bytes(const ParallelSizes& p) {
  int communicators = 0;
  for (uint32_t size : {p.tp, p.cp, p.ep, p.dp, p.pp}) communicators += size > 1 ? 1 : 0;
  return communicators * kNcclChannels * kNcclConnectionBytes;
}

MemoryBreakdown training_memory(const TrainingSpec& spec, const catalogue::GpuSpec& gpu) {
  MemoryBreakdown worst = stage_memory(spec, gpu, 0);
  if (spec.parallel.pp > 1) {
    MemoryBreakdown last = stage_memory(spec, gpu, static_cast<int>(spec.parallel.pp) - 1);
    if (last.total() > worst.total()) worst = last;
  }
  return worst;
}

std::string describe(const MemoryBreakdown& m) {
  return fmt::format(
      "{:.1f} GiB (weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, activations {:.1f}, fixed {:.1f}; pipeline "
      "stage {}) of {:.1f} GiB",
      m.total() / kGiB, m.weights / kGiB, m.gradients / kGiB, m.optimizer / kGiB, m.activations / kGiB, m.fixed / kGiB,
      m.stage, m.capacity / kGiB);
}

namespace {

using Change = std::pair<std::string, std::function<void(TrainingSpec&)>>;

// Each change of one knob that needs no more GPUs: a higher ZeRO stage, recomputation, micro-batch 1,
// or tensor or pipeline parallelism taken from data parallelism.
std::vector<Change> single_changes(const TrainingSpec& spec) {
  std::vector<Change> changes;
  for (Sharding z : {Sharding::zero1, Sharding::zero2, Sharding::zero3}) {
    if (z > spec.sharding) {
      const int stage = z == Sharding::zero1 ? 1 : z == Sharding::zero2 ? 2 : 3;
      changes.emplace_back(fmt::format("zero: {}", stage), [z](TrainingSpec& s) { s.sharding = z; });
    }
  }
  if (!spec.recompute) changes.emplace_back("recompute: true", [](TrainingSpec& s) { s.recompute = true; });
  if (spec.micro_batch > 1) changes.emplace_back("micro_batch: 1", [](TrainingSpec& s) { s.micro_batch = 1; });
  for (uint32_t k : {2u, 4u, 8u, 16u, 32u, 64u}) {
    changes.emplace_back(fmt::format("tp: {} (dp / {})", spec.parallel.tp * k, k), [k](TrainingSpec& s) {
      s.parallel.tp *= k;
      s.parallel.dp /= k;
    });
    changes.emplace_back(fmt::format("pp: {} (dp / {})", spec.parallel.pp * k, k), [k](TrainingSpec& s) {
      s.parallel.pp *= k;
      s.parallel.dp /= k;
    });
  }
  return changes;
}

bool runs_and_fits(const TrainingSpec& s, uint32_t gpus, const catalogue::GpuSpec& gpu) {
  if (s.parallel.dp == 0 || s.parallel.world() != gpus) return false;
  try {
    check(s, gpus, gpu);
  } catch (const ConfigError&) {
    return false;  // the change makes an impossible plan (heads, layers or batch not divisible)
  }
  return training_memory(s, gpu).fits();
}

}  // namespace

std::vector<std::string> changes_that_fit(const TrainingSpec& spec, const catalogue::GpuSpec& gpu) {
  const std::vector<Change> changes = single_changes(spec);
  const uint32_t gpus = spec.parallel.world();
  std::vector<std::string> fit;
  for (const auto& [name, apply] : changes) {
    TrainingSpec s = spec;
    apply(s);
    if (runs_and_fits(s, gpus, gpu)) fit.push_back(name);
    if (fit.size() == 3) return fit;
  }
  if (!fit.empty()) return fit;
  // No single change fits: two together, in the same order (the smaller changes first).
  for (size_t i = 0; i < changes.size(); ++i) {
    for (size_t j = i + 1; j < changes.size(); ++j) {
      TrainingSpec s = spec;
      changes[i].second(s);
      changes[j].second(s);
      if (runs_and_fits(s, gpus, gpu)) fit.push_back(changes[i].first + " with " + changes[j].first);
      if (fit.size() == 3) return fit;
    }
  }
  return fit;
}

}  // namespace weft
