#include "scenarios/plan_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <span>
#include <vector>

#include "scenarios/run_cost.h"
#include "scenarios/run_training.h"
#include "sim/core/errors.h"
#include "sim/core/parallel_for.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/isolated_prefetch.h"
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

// A candidate's step for ranking: collectives timed in isolation or by NCCL's model, and only one
// replica's ranks simulated (RankSample::one_replica; the tensor-, expert- and data-parallel copies
// run the same program on other GPUs). The same step as a full isolated run where those copies are
// images of each other under the topology's symmetry (rails, NVSwitch and bridged pairs; tests/
// scenarios/test_plan_search.cpp), a proxy otherwise, as isolated timing itself is for the shared
// fabric.
struct Ranking {
  Time step;
  double mfu = 0;
};
// How a candidate's replay runs; prefetch_isolated plans with the same options, so it keys the same.
ReplayOptions candidate_options(const Scenario& scenario, CollectiveTiming timing,
                                const std::shared_ptr<IsolatedTimeCache>& cache) {
  ReplayOptions options;
  options.simulation() = scenario.simulation();
  options.collectives = timing;
  options.calibration = scenario.training()->network;
  options.isolated_cache = cache;  // candidates repeat communicators: each distinct collective runs once
  options.isolated_threads = 1;    // the passes run candidates on every core (and prefetch_isolated)
  return options;
}

Ranking rank_candidate(const Scenario& scenario, const TrainingSpec& spec, const Topology& topology,
                       CollectiveTiming timing, const std::shared_ptr<IsolatedTimeCache>& cache) {
  const TrainingWorkload& t = *scenario.training();
  const catalogue::GpuSpec& gpu = catalogue::gpu(t.gpu);
  const Workload w = generate_training(spec, gpu, t.profile, RankSample::one_replica);
  const ReplayOptions options = candidate_options(scenario, timing, cache);
  const Time step = replay(w, topology, scenario.system.cluster, options).step_time;
  const double peak = peak_flops(gpu, spec.precision) * static_cast<double>(w.ranks());
  return {step, step > Time() ? w.model_flops / step.seconds() / peak : 0.0};
}

// The screen's step: with many micro-batches, a pipeline's step grows by a fixed amount per micro-
// batch once every stage is in its steady state (warm-up, drain and the step's last collectives
// stay), though not always the same for each: stages that take turns can alternate two periods. So
// the step runs with pp + 2 and pp + 4 micro-batches (2·pp and 3·pp interleaved: Megatron wants a
// multiple of pp there) and is extended along that line to the plan's count. With collectives at
// fixed times that is the whole step's time to within a few parts in 10^4
// (tests/scenarios/test_plan_search.cpp); with fewer micro-batches the whole step runs.
Ranking screen_candidate(const Scenario& scenario, const TrainingSpec& spec, const Topology& topology,
                         const std::shared_ptr<IsolatedTimeCache>& cache) {
  const uint32_t m = micro_batches(spec);
  const uint32_t pp = spec.parallel.pp;
  const uint32_t first = spec.virtual_stages > 1 ? 2 * pp : pp + 2;
  const uint32_t second = spec.virtual_stages > 1 ? 3 * pp : pp + 4;
  if (m <= second) return rank_candidate(scenario, spec, topology, CollectiveTiming::model, cache);
  auto with_micro_batches = [&](uint32_t count) {
    TrainingSpec s = spec;
    s.global_batch = count * spec.micro_batch * spec.parallel.dp;
    return rank_candidate(scenario, s, topology, CollectiveTiming::model, cache);
  };
  const Ranking a = with_micro_batches(first), b = with_micro_batches(second);
  const double per_micro_batch = static_cast<double>(b.step.ps() - a.step.ps()) / (second - first);
  const Time step = a.step + Time::ps(std::llround(per_micro_batch * (m - first)));
  // MFU is useful FLOPs over time; the FLOPs grow with the micro-batches.
  const double mfu = b.mfu * b.step.seconds() * (static_cast<double>(m) / second) / step.seconds();
  return {step, mfu};
}

// Milliseconds with three decimals, or "-".
std::string ms(const std::optional<Time>& t) { return t ? fmt::format("{:.3f}", t->seconds() * 1e3) : "-"; }

// The time a plan is ranked by: its truest run so far.
Time ranking_time(const RankedPlan& p) {
  return p.final_time.value_or(p.isolated.value_or(p.screened.value_or(Time())));
}

// Sorts ranked[from, to) by ranking_time; equal times (ZeRO 1 and 2 move the same bytes) go to the plan
// that needs less memory.
void sort_by(std::vector<RankedPlan>& ranked, size_t from, size_t to) {
  std::stable_sort(ranked.begin() + static_cast<std::ptrdiff_t>(from), ranked.begin() + static_cast<std::ptrdiff_t>(to),
                   [](const RankedPlan& a, const RankedPlan& b) {
                     const Time ta = ranking_time(a), tb = ranking_time(b);
                     return ta != tb ? ta < tb : a.memory.total() < b.memory.total();
                   });
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

namespace {

// One search's inputs and progress, shared by its passes.
struct Search {
  const Scenario& scenario;
  const PlanSearchOptions& options;
  const Topology& topology;
  std::shared_ptr<IsolatedTimeCache> cache = std::make_shared<IsolatedTimeCache>();
  size_t done = 0, total = 0;
  std::mutex progress_mutex;  // the passes' threads report one at a time

  void step_done() {
    const std::scoped_lock lock(progress_mutex);
    if (options.progress) options.progress(++done, total);
  }
};

// Simulates ahead, on every core, the distinct isolated collectives the ranking of `specs` will time
// (workloads/isolated_prefetch.h): one candidate's replay would otherwise run each on one core,
// and two candidates that reach the same one at once would both run it.
void prefetch_isolated(Search& search, std::span<const TrainingSpec* const> specs) {
  const TrainingWorkload& t = *search.scenario.training();
  const catalogue::GpuSpec& gpu = catalogue::gpu(t.gpu);
  const ReplayOptions options = candidate_options(search.scenario, CollectiveTiming::isolated, search.cache);
  IsolatedPrefetch ahead(search.topology, options, search.cache);
  for (const TrainingSpec* spec : specs) {
    ahead.add(generate_training(*spec, gpu, t.profile, RankSample::one_replica), search.scenario.system.cluster,
              options);
  }
  ahead.run(search.options.threads);
}

// Pass 1: every plan, screened by NCCL's model or (a small search) ranked in isolation at once.
void first_pass(Search& search, const PlanSpace& space, size_t n, PlanSearchResult& out) {
  const bool screen = out.screened > 0;
  const catalogue::GpuSpec& gpu = catalogue::gpu(search.scenario.training()->gpu);
  out.ranked.resize(n);
  if (!screen) {
    std::vector<const TrainingSpec*> specs;
    for (size_t i = 0; i < n; ++i) specs.push_back(&space.plans[i]);
    prefetch_isolated(search, specs);
  }
  parallel_for(n, search.options.threads, [&](size_t i) {
    const TrainingSpec& spec = space.plans[i];
    const Ranking r =
        screen ? screen_candidate(search.scenario, spec, search.topology, search.cache)
               : rank_candidate(search.scenario, spec, search.topology, CollectiveTiming::isolated, search.cache);
    RankedPlan& p = out.ranked[i];  // each thread writes its own rows
    p = {spec,        plan_name(spec), std::nullopt, std::nullopt, std::nullopt, r.mfu, training_memory(spec, gpu),
         std::nullopt};
    (screen ? p.screened : p.isolated) = r.step;
    search.step_done();
  });
  sort_by(out.ranked, 0, n);
}

// Pass 2: the best of the screen with collectives simulated in isolation.
void isolated_pass(Search& search, PlanSearchResult& out) {
  if (out.screened == 0) return;
  std::vector<const TrainingSpec*> specs;
  for (size_t i = 0; i < out.isolated; ++i) specs.push_back(&out.ranked[i].spec);
  prefetch_isolated(search, specs);
  parallel_for(out.isolated, search.options.threads, [&](size_t i) {
    RankedPlan& p = out.ranked[i];
    const Ranking r =
        rank_candidate(search.scenario, p.spec, search.topology, CollectiveTiming::isolated, search.cache);
    p.isolated = r.step;
    p.mfu = r.mfu;
    search.step_done();
  });
  sort_by(out.ranked, 0, out.isolated);
}

// Pass 3: the fastest as the scenario asks, one at a time (a scenario's fabric may be SimGrid, one per
// process). A scenario that times its collectives in isolation finds most of them in the ranking's
// cache: the same topology and setup, so the same isolated runs.
void final_pass(Search& search, PlanSearchResult& out) {
  for (size_t i = 0; i < out.finals; ++i) {
    RankedPlan& p = out.ranked[i];
    const Scenario s = with_plan(search.scenario, p.spec, std::nullopt);
    const TrainingOutcome r = run_training(s, search.topology, {}, 0, search.cache);
    p.final_time = r.step.step_time;
    p.mfu = r.step.mfu;
    const std::optional<CostOutcome> cost = cost_of(s, search.topology, r.step.step_time, r.tokens);
    if (cost && cost->step) p.usd_per_step = cost->step->usd_per_step;
    search.step_done();
  }
  sort_by(out.ranked, 0, out.finals);
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
  out.space = parallel_plans(
      training->spec, gpu,
      {out.gpus, out.nvlink_domain, options.vary_sharding, options.vary_recompute, options.min_cp_tokens});
  if (out.space.plans.empty()) throw ConfigError(no_plan_fits(scenario, out.space, out.gpus));
  size_t n = out.space.plans.size();
  if (options.max_candidates > 0) n = std::min(n, options.max_candidates);
  const bool screen = options.isolated > 0 && n > options.isolated;
  out.screened = screen ? n : 0;
  out.isolated = screen ? options.isolated : n;
  out.finals = std::min(options.top, out.isolated);
  Search search{scenario, options, topology};
  search.total = out.screened + out.isolated + out.finals;
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  auto pass_start = std::chrono::steady_clock::now();
  first_pass(search, out.space, n, out);
  out.pass_seconds[0] = since(pass_start);
  pass_start = std::chrono::steady_clock::now();
  isolated_pass(search, out);
  out.pass_seconds[1] = since(pass_start);
  pass_start = std::chrono::steady_clock::now();
  final_pass(search, out);
  out.pass_seconds[2] = since(pass_start);
  out.wall_seconds = since(wall_start);
  return out;
}

PlanSearchOptions plan_search_options(const Scenario& scenario) {
  PlanSearchOptions options;
  options.top = scenario.plan_top;
  options.isolated = scenario.plan_isolated;
  options.min_cp_tokens = scenario.plan_min_cp_tokens;
  return options;
}

Time screened_step(const Scenario& scenario, const TrainingSpec& plan) {
  const Topology topology = build_system(scenario.system);
  return screen_candidate(scenario, plan, topology, std::make_shared<IsolatedTimeCache>()).step;
}

Time replica_step(const Scenario& scenario, const TrainingSpec& plan, CollectiveTiming timing) {
  const Topology topology = build_system(scenario.system);
  return rank_candidate(scenario, plan, topology, timing, std::make_shared<IsolatedTimeCache>()).step;
}

std::string format_plan_search(const PlanSearchResult& r, size_t rows) {
  std::string out = fmt::format(
      "# plan search: {} on {} GPUs (NVLink domain {}): {} plans run and fit, of {} tried "
      "({} cannot run, {} over memory); the top {} simulated again as the scenario asks\n",
      r.scenario, r.gpus, r.nvlink_domain, r.space.plans.size(), r.space.considered, r.space.impossible,
      r.space.too_big, r.finals);
  if (r.screened > 0) {
    out += fmt::format(
        "# {} plans screened with NCCL's estimate of each collective (model_ms), the best {} ranked with "
        "collectives simulated alone (isolated_ms)\n",
        r.screened, r.isolated);
  }
  out += fmt::format("{:>4}  {:<72} {:>12} {:>12} {:>10} {:>6} {:>9} {:>12}\n", "rank", "plan", "step_ms",
                     "isolated_ms", "model_ms", "mfu", "mem_GiB", "usd_per_step");
  for (size_t i = 0; i < std::min(rows, r.ranked.size()); ++i) {
    const RankedPlan& p = r.ranked[i];
    out += fmt::format("{:>4}  {:<72} {:>12} {:>12} {:>10} {:>5.1f}% {:>9.1f} {:>12}\n", i + 1, p.name,
                       ms(p.final_time), ms(p.isolated), ms(p.screened), 100 * p.mfu, p.memory.total() / kGiB,
                       p.usd_per_step ? fmt::format("{:.4g}", *p.usd_per_step) : "-");
  }
  out += fmt::format(
      "# mfu: of the run on the scenario's fabric for the top {}, else of the truest run it had; searched "
      "in {:.1f} s ({:.1f} s {}, {:.1f} s isolated, {:.1f} s final)\n",
      r.finals, r.wall_seconds, r.pass_seconds[0], r.screened > 0 ? "screen" : "isolated", r.pass_seconds[1],
      r.pass_seconds[2]);
  return out;
}

}  // namespace weft
