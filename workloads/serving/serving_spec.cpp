#include "workloads/serving/serving_spec.h"

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {

std::string_view to_string(WeightFormat f) {
  constexpr std::string_view kNames[] = {"bf16", "fp16", "fp8", "int8", "int4"};
  return kNames[static_cast<size_t>(f)];
}

WeightFormat parse_weight_format(std::string_view text) {
  for (WeightFormat f :
       {WeightFormat::bf16, WeightFormat::fp16, WeightFormat::fp8, WeightFormat::int8, WeightFormat::int4}) {
    if (text == to_string(f)) return f;
  }
  throw ConfigError(fmt::format("weights '{}': expected bf16, fp16, fp8, int8 or int4", text));
}

double bytes_per_weight(WeightFormat f) {
  switch (f) {
    case WeightFormat::bf16:
    case WeightFormat::fp16:
      return 2;
    case WeightFormat::fp8:
    case WeightFormat::int8:
      return 1;
    case WeightFormat::int4:
      return 0.5;
  }
  return 2;
}

Precision gemm_precision(WeightFormat f) { return f == WeightFormat::fp8 ? Precision::fp8 : Precision::bf16; }

void check(const ServingSpec& s, uint32_t gpus, const catalogue::GpuSpec& gpu) {
  const ModelConfig& m = s.model;
  if (s.tp == 0 || s.replicas == 0) throw ConfigError("parallel: tp and replicas must be at least 1");
  if (m.heads % s.tp != 0)
    throw ConfigError(fmt::format("parallel.tp: {} heads do not divide by tp {}", m.heads, s.tp));
  if (m.kv_heads % s.tp != 0 && s.tp % m.kv_heads != 0) {
    throw ConfigError(fmt::format("parallel.tp: {} KV heads neither divide by tp {} nor divide it", m.kv_heads, s.tp));
  }
  if (static_cast<uint64_t>(s.tp) * s.replicas > gpus) {
    throw ConfigError(fmt::format("parallel: tp {} x replicas {} = {} GPUs, but the system has {}", s.tp, s.replicas,
                                  static_cast<uint64_t>(s.tp) * s.replicas, gpus));
  }
  if (s.kv != Precision::bf16 && s.kv != Precision::fp16 && s.kv != Precision::fp8) {
    throw ConfigError(fmt::format("kv_cache: '{}' (expected bf16, fp16 or fp8)", precision_name(s.kv)));
  }
  if (s.weights == WeightFormat::fp8 && gpu.fp8_flops == 0) {
    throw ConfigError(
        fmt::format("weights: fp8 needs fp8 tensor cores, which {} lacks (use int8: weight-only)", gpu.name));
  }
  const SchedulerLimits& l = s.limits;
  if (l.max_batched_tokens == 0 || l.max_seqs == 0 || l.block_tokens == 0) {
    throw ConfigError("scheduler: max_batched_tokens, max_seqs and block_tokens must be at least 1");
  }
  if (!(l.gpu_memory_utilization > 0 && l.gpu_memory_utilization <= 1)) {
    throw ConfigError("scheduler.gpu_memory_utilization: expected a fraction in (0, 1]");
  }
  if (!l.chunked_prefill && l.max_batched_tokens < m.max_seq) {
    // vLLM refuses this too: without chunking a prompt of max_seq tokens could never be scheduled.
    throw ConfigError(
        fmt::format("scheduler.max_batched_tokens: {} is below the model's context {} without "
                    "chunked prefill",
                    l.max_batched_tokens, m.max_seq));
  }
}

}  // namespace weft
