#include "scenarios/plan_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "scenarios/run_scenario.h"
#include "scenarios/run_training.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/memory_model.h"
#include "workloads/replayer.h"
#include "workloads/training.h"

namespace weft {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// GPUs that share the first GPU's NVLink domain (or its host when domains are not marked).
uint32_t nvlink_domain_size(const Topology& t) {
  const NodeProps& first = t.node(t.gpus().front());
  uint32_t n = 0;
  for (NodeIndex g : t.gpus()) {
    const NodeProps& p = t.node(g);
    n += first.domain >= 0 ? p.domain == first.domain : p.host == first.host;
  }
  return std::max(1u, n);
}

Scenario with_plan(const Scenario& base, const TrainingSpec& spec, std::optional<CollectiveTiming> timing) {
  Scenario s = base;
  s.compare.clear();
  auto& t = std::get<TrainingWorkload>(s.workload);
  t.spec = spec;
  if (timing) t.timing = *timing;
  return s;
}

// A candidate's step for ranking: collectives timed in isolation, and only one replica's ranks
// simulated (RankSample::one_replica; the tensor-, expert- and data-parallel copies run the same
// program on other GPUs). The same step as a full isolated run where those copies are images of each
// other under the topology's symmetry (rails, NVSwitch and bridged pairs; tests/scenarios/
// test_plan_search.cpp), a proxy otherwise, as isolated timing itself is for the shared fabric.
struct Ranking {
  Time step;
  double mfu = 0;
};
Ranking rank_candidate(const Scenario& scenario, const TrainingSpec& spec, const Topology& topology,
                       const std::shared_ptr<IsolatedTimeCache>& cache) {
  const TrainingWorkload& t = *scenario.training();
  const catalogue::GpuSpec& gpu = catalogue::gpu(t.gpu);
  const Workload w = generate_training(spec, gpu, t.profile, RankSample::one_replica);
  ReplayOptions options;
  options.simulation() = scenario.simulation();
  options.collectives = CollectiveTiming::isolated;
  options.calibration = t.network;
  options.isolated_cache = cache;  // candidates repeat communicators: each distinct collective runs once
  const Time step = replay(w, topology, scenario.system.cluster, options).step_time;
  const double peak = peak_flops(gpu, spec.precision) * static_cast<double>(w.ranks());
  return {step, step > Time() ? w.model_flops / step.seconds() / peak : 0.0};
}

std::string no_plan_fits(const Scenario& scenario, const PlanSpace& space, uint32_t gpus) {
  std::string msg = fmt::format(
      "plan search: no parallel plan of {} fits on {} GPUs ({} combinations: {} cannot run, {} "
      "do not fit in memory)",
      scenario.name, gpus, space.considered, space.impossible, space.too_big);
  if (space.closest) {
    msg += fmt::format("; the closest, {}, needs {} ({:.1f} GiB over)", plan_name(*space.closest),
                       describe(*space.closest_memory),
                       (space.closest_memory->total() - space.closest_memory->capacity) / kGiB);
  }
  return msg + "; more GPUs, or GPUs with more memory, would be needed";
}

}  // namespace

PlanSearchResult search_parallel_plans(const Scenario& scenario, const PlanSearchOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const TrainingWorkload* training = scenario.training();
  if (training == nullptr || training->trace) {
    throw ConfigError(
        fmt::format("plan search: {} is not a generated training step (a model: workload)", scenario.name));
  }
  const Topology topology = build_system(scenario.system);
  const catalogue::GpuSpec& gpu = catalogue::gpu(training->gpu);
  PlanSearchResult out;
  out.scenario = scenario.name;
  out.gpus = static_cast<uint32_t>(topology.gpus().size());
  out.nvlink_domain = nvlink_domain_size(topology);
  out.space =
      parallel_plans(training->spec, gpu, {out.gpus, out.nvlink_domain, options.vary_sharding, options.vary_recompute});
  if (out.space.plans.empty()) throw ConfigError(no_plan_fits(scenario, out.space, out.gpus));
  size_t n = out.space.plans.size();
  if (options.max_candidates > 0) n = std::min(n, options.max_candidates);
  const auto cache = std::make_shared<IsolatedTimeCache>();
  for (size_t i = 0; i < n; ++i) {
    const TrainingSpec& spec = out.space.plans[i];
    const Ranking r = rank_candidate(scenario, spec, topology, cache);
    out.ranked.push_back(
        {spec, plan_name(spec), r.step, std::nullopt, r.mfu, training_memory(spec, gpu), std::nullopt});
    if (options.progress) options.progress(i + 1, n + std::min(options.top, n));
  }
  // Equal times (ZeRO 1 and 2 move the same bytes) go to the plan that needs less memory.
  std::stable_sort(out.ranked.begin(), out.ranked.end(), [](const RankedPlan& a, const RankedPlan& b) {
    return a.isolated != b.isolated ? a.isolated < b.isolated : a.memory.total() < b.memory.total();
  });
  out.finals = std::min(options.top, out.ranked.size());
  for (size_t i = 0; i < out.finals; ++i) {
    RankedPlan& p = out.ranked[i];
    const ScenarioResult r = run_scenario(with_plan(scenario, p.spec, std::nullopt));
    p.final_time = r.total;
    p.mfu = r.training->step.mfu;
    if (r.cost && r.cost->step) p.usd_per_step = r.cost->step->usd_per_step;
    if (options.progress) options.progress(n + i + 1, n + out.finals);
  }
  std::stable_sort(out.ranked.begin(), out.ranked.begin() + static_cast<std::ptrdiff_t>(out.finals),
                   [](const RankedPlan& a, const RankedPlan& b) { return *a.final_time < *b.final_time; });
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return out;
}

std::string format_plan_search(const PlanSearchResult& r, size_t rows) {
  std::string out = fmt::format(
      "# plan search: {} on {} GPUs (NVLink domain {}): {} plans run and fit, of {} tried "
      "({} cannot run, {} over memory); the top {} simulated again as the scenario asks\n",
      r.scenario, r.gpus, r.nvlink_domain, r.space.plans.size(), r.space.considered, r.space.impossible,
      r.space.too_big, r.finals);
  out += fmt::format("{:>4}  {:<72} {:>12} {:>12} {:>6} {:>9} {:>12}\n", "rank", "plan", "step_ms", "isolated_ms",
                     "mfu", "mem_GiB", "usd_per_step");
  for (size_t i = 0; i < std::min(rows, r.ranked.size()); ++i) {
    const RankedPlan& p = r.ranked[i];
    out += fmt::format("{:>4}  {:<72} {:>12} {:>12.3f} {:>5.1f}% {:>9.1f} {:>12}\n", i + 1, p.name,
                       p.final_time ? fmt::format("{:.3f}", p.final_time->seconds() * 1e3) : "-",
                       p.isolated.seconds() * 1e3, 100 * p.mfu, p.memory.total() / kGiB,
                       p.usd_per_step ? fmt::format("{:.4g}", *p.usd_per_step) : "-");
  }
  out += fmt::format(
      "# mfu: of the run on the scenario's fabric for the top {}, else of the isolated run; searched in "
      "{:.1f} s\n",
      r.finals, r.wall_seconds);
  return out;
}

}  // namespace weft
