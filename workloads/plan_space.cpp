#include "workloads/plan_space.h"

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {
namespace {

std::vector<uint32_t> divisors(uint32_t n) {
  std::vector<uint32_t> out;
  for (uint32_t d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

// Powers of two up to `most`: the sizes frameworks use for tp, cp and micro-batches.
std::vector<uint32_t> powers_of_two(uint32_t most) {
  std::vector<uint32_t> out;
  for (uint32_t v = 1; v <= most; v *= 2) out.push_back(v);
  return out;
}

int sharding_stage(Sharding s) { return static_cast<int>(s); }

// The same plan: what the enumeration varies is equal (the rest is the base's in both).
bool same_plan(const TrainingSpec& a, const TrainingSpec& b) {
  const ParallelSizes &p = a.parallel, &q = b.parallel;
  return p.tp == q.tp && p.cp == q.cp && p.ep == q.ep && p.dp == q.dp && p.pp == q.pp &&
         a.micro_batch == b.micro_batch && a.virtual_stages == b.virtual_stages && a.sharding == b.sharding &&
         a.recompute == b.recompute && a.sequence_parallel == b.sequence_parallel;
}

// The choices that do not change the rank grid: ZeRO stage, recomputation, micro-batch, virtual stages.
struct Knobs {
  std::vector<Sharding> sharding;
  std::vector<bool> recompute;
};

Knobs knobs(const TrainingSpec& base, const PlanSpaceLimits& limits) {
  Knobs k;
  if (limits.vary_sharding) {
    k.sharding = {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3};
  } else {
    k.sharding = {base.sharding};
  }
  k.recompute = limits.vary_recompute ? std::vector<bool>{false, true} : std::vector<bool>{base.recompute};
  return k;
}

class Enumerator {
 public:
  Enumerator(const TrainingSpec& base, const catalogue::GpuSpec& gpu, const PlanSpaceLimits& limits)
      : base_(base), gpu_(gpu), limits_(limits), knobs_(knobs(base, limits)) {}

  PlanSpace run() {
    const uint32_t g = limits_.gpus;
    for (uint32_t tp : powers_of_two(std::min(limits_.nvlink_domain, g))) {
      for (uint32_t cp : powers_of_two(g / tp)) {
        const uint32_t seq = base_.seq_len != 0 ? base_.seq_len : base_.model.max_seq;
        if (cp > 1 && seq / cp < limits_.min_cp_tokens) break;
        for (uint32_t pp : divisors(g / (tp * cp))) {
          const uint32_t dp = g / (tp * cp * pp);
          for (uint32_t ep : base_.model.experts > 1 ? divisors(dp) : std::vector<uint32_t>{1}) {
            grid({tp, cp, ep, dp, pp});
          }
        }
      }
    }
    // The scenario's own plan is always a candidate, though the grid may not hold it (a micro-batch
    // that is no power of two, more virtual stages, sequence parallelism off): the search then says
    // whether it can be beaten.
    if (!base_seen_) consider(base_);
    return std::move(out_);
  }

 private:
  void grid(const ParallelSizes& sizes) {
    if (sizes.ep > 1 && base_.model.experts % sizes.ep != 0) return;
    const uint32_t per_replica = sizes.dp == 0 ? 0 : base_.global_batch / sizes.dp;
    for (uint32_t mb : powers_of_two(std::max(1u, per_replica))) {
      for (uint32_t vs : sizes.pp > 1 ? std::vector<uint32_t>{1, 2} : std::vector<uint32_t>{1}) {
        for (Sharding z : knobs_.sharding) {
          for (bool recompute : knobs_.recompute) {
            TrainingSpec s = base_;
            s.parallel = sizes;
            s.micro_batch = mb;
            s.virtual_stages = vs;
            if (vs > 1) s.pipeline = PipelineKind::interleaved;
            if (vs == 1 && s.pipeline == PipelineKind::interleaved) s.pipeline = PipelineKind::one_f_one_b;
            s.sharding = z;
            s.recompute = recompute;
            s.sequence_parallel = sizes.tp > 1;
            consider(s);
          }
        }
      }
    }
  }

  void consider(const TrainingSpec& s) {
    base_seen_ = base_seen_ || same_plan(s, base_);
    ++out_.considered;
    try {
      check(s, limits_.gpus, gpu_);
    } catch (const ConfigError&) {
      ++out_.impossible;
      return;
    }
    const MemoryBreakdown m = training_memory(s, gpu_);
    if (m.fits()) {
      out_.plans.push_back(s);
      return;
    }
    ++out_.too_big;
    if (!out_.closest_memory || m.total() < out_.closest_memory->total()) {
      out_.closest = s;
      out_.closest_memory = m;
    }
  }

  const TrainingSpec& base_;
  const catalogue::GpuSpec& gpu_;
  const PlanSpaceLimits& limits_;
  Knobs knobs_;
  PlanSpace out_;
  bool base_seen_ = false;
};

}  // namespace

PlanSpace parallel_plans(const TrainingSpec& base, const catalogue::GpuSpec& gpu, const PlanSpaceLimits& limits) {
  if (limits.gpus == 0) throw ConfigError("plan search: the cluster has no GPUs");
  if (base.global_batch == 0) throw ConfigError("plan search: the workload needs a global batch");
  return Enumerator(base, gpu, limits).run();
}

std::string plan_name(const TrainingSpec& s) {
  const ParallelSizes& p = s.parallel;
  return fmt::format("tp {} pp {} dp {} cp {} ep {} zero {} recompute {} mb {} vs {} sp {}", p.tp, p.pp, p.dp, p.cp,
                     p.ep, sharding_stage(s.sharding), s.recompute ? "on" : "off", s.micro_batch, s.virtual_stages,
                     s.sequence_parallel ? "on" : "off");
}

}  // namespace weft
