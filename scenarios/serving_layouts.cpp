#include "scenarios/serving_layouts.h"

#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "sim/core/errors.h"
#include "workloads/serving/kv_cache.h"

namespace weft {
namespace {

struct PoolShape {
  uint32_t tp = 1, pp = 1, ep = 1, replicas = 1;
};

std::string shape_name(const PoolShape& p) {
  if (p.ep > 1) return fmt::format("ep {} x {}", p.ep, p.replicas);
  if (p.pp > 1) return fmt::format("tp {} x pp {} x {}", p.tp, p.pp, p.replicas);
  return fmt::format("tp {} x {}", p.tp, p.replicas);
}

ServingSpec laid_out(ServingSpec spec, const PoolShape& p) {
  spec.tp = p.tp, spec.pp = p.pp, spec.ep = p.ep, spec.replicas = p.replicas;
  spec.disaggregated = {};
  return spec;
}

// Whether `spec` passes its checks and every pool holds the longest request.
bool fits(const ServingSpec& spec, uint32_t gpus, const catalogue::GpuSpec& gpu, uint64_t longest) {
  try {
    check(spec, gpus, gpu);
  } catch (const ConfigError&) {
    return false;
  }
  for (const ServingSpec& pool : pool_specs(spec)) {
    const KvCapacity c = kv_capacity(pool, gpu);
    if (c.blocks == 0 || c.tokens() < longest) return false;
  }
  return true;
}

// The pools of `gpus` GPUs (all of them used) whose spec passes: tp x pp (pp only when `pipelined`),
// or, for a mixture of experts, ep GPUs a replica with DeepEP's placement (dividing a node, or whole
// nodes).
std::vector<PoolShape> pool_shapes(const ServingSpec& base, uint32_t gpus, uint32_t per_node, bool pipelined,
                                   const catalogue::GpuSpec& gpu, uint64_t longest) {
  std::vector<PoolShape> out;
  for (uint32_t tp = 1; tp <= gpus; tp *= 2) {
    for (uint32_t pp = 1; tp * pp <= gpus && (pp == 1 || pipelined); pp *= 2) {
      const PoolShape p{tp, pp, 1, gpus / (tp * pp)};
      if (gpus % (tp * pp) == 0 && fits(laid_out(base, p), gpus, gpu, longest)) out.push_back(p);
    }
  }
  for (uint32_t ep = 2; ep <= gpus && base.model.experts > 1; ep *= 2) {
    const PoolShape p{1, 1, ep, gpus / ep};
    const bool placed = per_node % ep == 0 || ep % per_node == 0;
    if (gpus % ep == 0 && placed && fits(laid_out(base, p), gpus, gpu, longest)) out.push_back(p);
  }
  return out;
}

}  // namespace

std::vector<ServingLayout> serving_layouts(const ServingSpec& spec, uint32_t gpus, uint32_t per_node,
                                           const catalogue::GpuSpec& gpu, uint64_t longest_request) {
  std::vector<ServingLayout> out;
  for (const PoolShape& p : pool_shapes(spec, gpus, per_node, true, gpu, longest_request)) {
    out.push_back({shape_name(p), laid_out(spec, p)});
  }
  const std::set<uint32_t> splits{gpus / 4, gpus / 2, gpus - gpus / 4};  // GPUs computing prompts
  for (const uint32_t prefill : splits) {
    if (prefill == 0 || prefill == gpus || (gpus % 4 != 0 && prefill != gpus / 2)) continue;
    const std::vector<PoolShape> decode_shapes =
        pool_shapes(spec, gpus - prefill, per_node, false, gpu, longest_request);
    for (const PoolShape& p : pool_shapes(spec, prefill, per_node, false, gpu, longest_request)) {
      for (const PoolShape& d : decode_shapes) {
        if (d.ep > 1 && prefill % std::min(d.ep, per_node) != 0) continue;  // decode replicas inside a node
        ServingSpec s = laid_out(spec, {});
        s.disaggregated = {.prefill_tp = p.tp,
                           .prefill_replicas = p.replicas,
                           .decode_tp = d.tp,
                           .decode_replicas = d.replicas,
                           .prefill_ep = p.ep,
                           .decode_ep = d.ep,
                           .transfer = spec.disaggregated.transfer};
        if (!fits(s, gpus, gpu, longest_request)) continue;
        out.push_back({fmt::format("P {} + D {}", shape_name(p), shape_name(d)), std::move(s)});
      }
    }
  }
  return out;
}

Scenario with_layout(const Scenario& s, const ServingLayout& layout) {
  Scenario out = s;
  out.compare.clear();
  auto& w = std::get<ServingWorkload>(out.workload);
  w.spec = layout.spec;
  w.kv = kv_capacity(pool_specs(w.spec).back(), catalogue::gpu(w.gpu));  // as the reader reports it
  return out;
}

}  // namespace weft
