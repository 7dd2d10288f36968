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

std::string_view to_string(KvTransferMode m) { return m == KvTransferMode::layerwise ? "layerwise" : "after_prefill"; }

KvTransferMode parse_kv_transfer(std::string_view text) {
  for (KvTransferMode m : {KvTransferMode::after_prefill, KvTransferMode::layerwise}) {
    if (text == to_string(m)) return m;
  }
  throw ConfigError(fmt::format("kv_transfer '{}': expected after_prefill or layerwise", text));
}

std::vector<ServingSpec> pool_specs(const ServingSpec& spec) {
  if (!spec.disaggregated.enabled()) return {spec};
  const Disaggregation& d = spec.disaggregated;
  std::vector<ServingSpec> pools(2, spec);
  for (ServingSpec& p : pools) p.disaggregated = {};
  pools[0].tp = d.prefill_tp;
  pools[0].replicas = d.prefill_replicas;
  pools[0].ep = d.prefill_ep;
  pools[0].pp = d.prefill_pp;
  pools[1].tp = d.decode_tp;
  pools[1].replicas = d.decode_replicas;
  pools[1].ep = d.decode_ep;
  pools[1].pp = d.decode_pp;
  return pools;
}

uint64_t serving_gpus(const ServingSpec& spec) {
  uint64_t gpus = 0;
  for (const ServingSpec& p : pool_specs(spec)) gpus += static_cast<uint64_t>(p.tp) * p.pp * p.ep * p.replicas;
  return gpus;
}

std::vector<uint32_t> stage_layers(uint32_t layers, uint32_t pp) {
  WEFT_ASSERT(pp > 0 && pp <= layers);
  std::vector<uint32_t> out(pp, layers / pp);
  for (uint32_t i = 0; i < layers % pp; ++i) ++out[pp - 2 - i];
  return out;
}

namespace {

// `where`: the keys that set this tp, for the message.
void check_tp(const ModelConfig& m, uint32_t tp, uint32_t replicas, std::string_view where) {
  if (tp == 0 || replicas == 0) throw ConfigError(fmt::format("{}: tp and replicas must be at least 1", where));
  if (m.heads % tp != 0) throw ConfigError(fmt::format("{}: {} heads do not divide by tp {}", where, m.heads, tp));
  if (m.kv_heads % tp != 0 && tp % m.kv_heads != 0) {
    throw ConfigError(fmt::format("{}: {} KV heads neither divide by tp {} nor divide it", where, m.kv_heads, tp));
  }
}

// One pool's expert parallelism; `key` sets its ep, `tp_key` its tp.
void check_ep(const ServingSpec& s, std::string_view key, std::string_view tp_key) {
  const ModelConfig& m = s.model;
  if (s.ep == 0) throw ConfigError(fmt::format("{}: expected at least 1", key));
  if (s.ep == 1) return;
  if (m.experts <= 1) {
    throw ConfigError(fmt::format("{}: {} is dense: expert parallelism needs a mixture of experts", key, m.name));
  }
  if (m.experts % s.ep != 0) {
    throw ConfigError(fmt::format("{}: {}'s {} experts do not divide over {} GPUs", key, m.name, m.experts, s.ep));
  }
  if (s.tp != 1 || s.pp != 1) {
    // vLLM and SGLang's DeepSeek recipes run attention data-parallel (tp 1) beside expert parallelism.
    throw ConfigError(
        fmt::format("{}: each of the ep GPUs runs attention on its own (DP attention); tensor or pipeline "
                    "parallelism inside it is not modelled with ep: set {} 1 and pp 1",
                    key, tp_key));
  }
}

// Each pool's tp, pp and ep against the model, and the combinations not modelled.
void check_parallel(const ServingSpec& s) {
  const ModelConfig& m = s.model;
  if (s.disaggregated.enabled()) {
    const Disaggregation& d = s.disaggregated;
    check_tp(m, d.prefill_tp, d.prefill_replicas, "disaggregated.prefill_tp");
    check_tp(m, d.decode_tp, d.decode_replicas, "disaggregated.decode_tp");
  } else {
    check_tp(m, s.tp, s.replicas, "parallel.tp");
  }
  if (s.pp == 0 || s.pp > m.layers) {
    throw ConfigError(
        fmt::format("parallel.pp: {} stages for {}'s {} layers (expected 1 to {})", s.pp, m.name, m.layers, m.layers));
  }
  if (s.pp > 1 && s.disaggregated.enabled()) {
    throw ConfigError("parallel.pp: disaggregated pools take their stages from disaggregated.prefill_pp and decode_pp");
  }
  if (s.disaggregated.enabled()) {
    const std::vector<ServingSpec> pools = pool_specs(s);
    for (const auto& [pool, key] : {std::pair{pools[0], "prefill_pp"}, std::pair{pools[1], "decode_pp"}}) {
      if (pool.pp == 0 || pool.pp > m.layers) {
        throw ConfigError(fmt::format("disaggregated.{}: {} stages for {}'s {} layers (expected 1 to {})", key, pool.pp,
                                      m.name, m.layers, m.layers));
      }
    }
    if (pools[0].pp > 1 && s.disaggregated.transfer == KvTransferMode::layerwise) {
      throw ConfigError(
          "disaggregated.prefill_pp: a layer-by-layer push from a pipelined prefill pool is not modelled: set "
          "kv_transfer: after_prefill");
    }
    check_ep(pools[0], "disaggregated.prefill_ep", "prefill_tp");
    check_ep(pools[1], "disaggregated.decode_ep", "decode_tp");
  } else {
    check_ep(s, "parallel.ep", "tp");
  }
}

}  // namespace

void check(const ServingSpec& s, uint32_t gpus, const catalogue::GpuSpec& gpu) {
  const ModelConfig& m = s.model;
  check_parallel(s);
  if (serving_gpus(s) > gpus) {
    const std::string pools =
        s.disaggregated.enabled()
            ? fmt::format("prefill {} x {} + decode {} x {}",
                          s.disaggregated.prefill_tp * s.disaggregated.prefill_ep * s.disaggregated.prefill_pp,
                          s.disaggregated.prefill_replicas,
                          s.disaggregated.decode_tp * s.disaggregated.decode_ep * s.disaggregated.decode_pp,
                          s.disaggregated.decode_replicas)
            : fmt::format("tp {}{}{} x replicas {}", s.tp, s.pp > 1 ? fmt::format(" x pp {}", s.pp) : "",
                          s.ep > 1 ? fmt::format(" x ep {}", s.ep) : "", s.replicas);
    throw ConfigError(fmt::format("parallel: {} = {} GPUs, but the system has {}", pools, serving_gpus(s), gpus));
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
