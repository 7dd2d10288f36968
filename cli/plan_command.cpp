// weft plan SCENARIO --target-step-time T | --budget USD: runs the scenario, its compare: variants and
// every point of a declared grid (`plan: {grid: ...}` in the file, or --grid KEY=V1,V2), prices each
// configuration, and names the cheapest that meets the target step time or the fastest within the
// budget, with the time-against-cost frontier. A serving scenario: the cheapest configuration meeting
// its SLO at its request rate, or (--max-rate) the highest rate each serves within it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cost/plan.h"
#include "scenarios/plan_search.h"
#include "scenarios/run_scenario.h"
#include "scenarios/scenario.h"
#include "scenarios/serving_layouts.h"
#include "scenarios/serving_plan.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/memory_model.h"
#include "workloads/serving/serving.h"

namespace weft::cli {
namespace {

struct PlanArgs {
  std::string scenario;
  std::string target;  // a time, e.g. 2s
  double budget = -1;  // USD
  std::vector<std::string> grid;
  std::vector<std::string> sets;
  std::string metric = "capital";  // capital | step
  std::string search;              // "parallel": the best parallel plan of each configuration
  size_t top = 0;                  // 0: the scenario's plan: top: (default 5)
  // plans ranked with isolated collectives after the screen (0: all); default: the scenario's plan.isolated
  std::optional<size_t> isolated;
  // cp only while each rank keeps this many tokens (0: every cp); default: the scenario's plan.min_cp_tokens
  std::optional<uint32_t> min_cp_tokens;
  double attainment = 0.9;  // serving: the share of requests that must meet the SLO
  bool max_rate = false;    // serving: the highest rate each configuration serves within it
};

// "system.node.nic=cx6,cx7" -> {key, {cx6, cx7}}.
cost::GridAxis parse_axis(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw ConfigError(fmt::format("--grid '{}': expected KEY=VALUE1,VALUE2,...", text));
  }
  cost::GridAxis axis{text.substr(0, eq), {}};
  size_t from = eq + 1;
  while (from <= text.size()) {
    const size_t comma = std::min(text.find(',', from), text.size());
    if (comma > from) axis.values.push_back(text.substr(from, comma - from));
    from = comma + 1;
  }
  return axis;
}

struct Candidate {
  std::string name;
  std::shared_ptr<const Scenario> scenario;
};

std::vector<Candidate> candidates(const PlanArgs& a, const Scenario& base) {
  std::vector<Candidate> out;
  Scenario alone = base;
  alone.compare.clear();
  out.push_back({base.baseline, std::make_shared<const Scenario>(alone)});
  for (const ScenarioVariant& v : base.compare) out.push_back({v.name, v.scenario});
  std::vector<cost::GridAxis> axes = base.plan_grid;
  for (const std::string& g : a.grid) axes.push_back(parse_axis(g));
  if (axes.empty()) return out;
  for (const cost::GridPoint& point : cost::expand_grid(axes)) {
    std::vector<std::string> sets = a.sets;
    for (const auto& [key, value] : point) sets.push_back(key + "=" + value);
    if (base.training()) sets.emplace_back("workload.allow_oom=true");  // a point that does not fit is left out
    std::optional<Scenario> loaded;
    try {
      loaded = load_scenario_file(a.scenario, sets);
    } catch (const ConfigError& e) {  // a serving point whose model does not fit, say
      if (!base.serving()) throw;
      fmt::print(stderr, "plan: {} left out: {}\n", cost::grid_point_name(point), e.what());
      continue;
    }
    Scenario& s = *loaded;
    s.compare.clear();
    const std::string name = cost::grid_point_name(point);
    if (const TrainingWorkload* t = s.training(); t && !t->trace) {
      const MemoryBreakdown m = training_memory(t->spec, catalogue::gpu(t->gpu));
      if (!m.fits()) {
        fmt::print(stderr, "plan: {} left out: needs {}\n", name, describe(m));
        continue;
      }
    }
    out.push_back({name, std::make_shared<const Scenario>(std::move(s))});
  }
  return out;
}

cost::PlanPoint measure(const Candidate& c, bool per_step) {
  const ScenarioResult r = run_scenario(*c.scenario);
  if (!r.training)
    throw ConfigError(fmt::format("plan: '{}' is not a training step: nothing to price per step", c.name));
  if (!r.cost) throw ConfigError(fmt::format("plan: '{}' runs on a generic topology: nothing to buy", c.name));
  if (!r.cost->cluster) {
    throw ConfigError(fmt::format("plan: '{}': no price for {} (add them under cost: prices:)", c.name,
                                  fmt::join(r.cost->missing, ", ")));
  }
  return {c.name, r.total, per_step ? r.cost->step->usd_per_step : r.cost->cluster->capital_usd};
}

void plan_serving(const PlanArgs& a, const Scenario& base, const std::vector<Candidate>& all);

// A serving workload's --search parallel: every layout (scenarios/serving_layouts.h) of the scenario and
// of each compare: variant, as candidates of one serving plan.
std::vector<Candidate> serving_layout_candidates(const Scenario& base) {
  std::vector<std::pair<std::string, const Scenario*>> configs{{"", &base}};
  for (const ScenarioVariant& v : base.compare) configs.emplace_back(v.name + ": ", v.scenario.get());
  std::vector<Candidate> out;
  for (const auto& [prefix, s] : configs) {
    const ServingWorkload& w = *s->serving();
    const std::vector<ServingLayout> layouts = serving_layouts(
        w.spec, static_cast<uint32_t>(s->system.ranks), static_cast<uint32_t>(s->system.cluster.node.gpus),
        catalogue::gpu(w.gpu), longest_request(w.spec, w.requests));
    for (const ServingLayout& l : layouts) {
      out.push_back({prefix + l.name, std::make_shared<const Scenario>(with_layout(*s, l))});
    }
  }
  return out;
}

// --search parallel: the plan search on the scenario and on each compare: variant (each fabric at
// its own best plan), then the variants' best plans side by side.
void search(const PlanArgs& a, const Scenario& base) {
  if (a.search != "parallel") throw ConfigError(fmt::format("plan: --search '{}': expected parallel", a.search));
  if (base.serving()) return plan_serving(a, base, serving_layout_candidates(base));
  std::vector<std::pair<std::string, std::shared_ptr<const Scenario>>> configs{
      {base.compare.empty() ? base.name : base.baseline, std::make_shared<const Scenario>(base)}};
  for (const ScenarioVariant& v : base.compare) configs.emplace_back(v.name, v.scenario);
  PlanSearchOptions options = plan_search_options(base);
  if (a.top > 0) options.top = a.top;
  if (a.isolated) options.isolated = *a.isolated;
  if (a.min_cp_tokens) options.min_cp_tokens = *a.min_cp_tokens;
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  options.progress = [last](size_t done, size_t total) {  // a line every 5 s at most
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::seconds(5) && done != total) return;
    *last = now;
    fmt::print(stderr, "plan: {}/{} simulations\n", done, total);
  };
  std::vector<std::pair<std::string, RankedPlan>> best;
  for (const auto& [name, scenario] : configs) {
    fmt::print(stderr, "plan: searching {}\n", name);
    const PlanSearchResult r = search_parallel_plans(*scenario, options);
    fmt::print("## {}\n{}", name, format_plan_search(r));
    best.emplace_back(name, r.ranked.front());
  }
  if (best.size() < 2) return;
  fmt::print("# each configuration at its own best plan\n");
  for (const auto& [name, p] : best) {
    fmt::print("{:<24} {:>10.3f} ms  MFU {:>5.1f}%  {}\n", name, p.final_time->seconds() * 1e3, 100 * p.mfu, p.name);
  }
}

// A serving workload: each configuration serves the scenario's requests; the cheapest meeting the SLO
// (scenarios/serving_plan.h), or with --max-rate the highest rate each serves within it.
void plan_serving(const PlanArgs& a, const Scenario& base, const std::vector<Candidate>& all) {
  const ServingSlo& slo = base.serving()->spec.slo;
  if (slo.ttft == Time() && slo.tpot == Time() && slo.e2e == Time()) {
    throw ConfigError("plan: a serving plan needs objectives: slo: {ttft: ..., tpot: ..., e2e: ...}");
  }
  if (!(a.attainment > 0 && a.attainment <= 1)) throw ConfigError("plan: --attainment: expected a fraction in (0, 1]");
  std::vector<ServingPlanRow> rows;
  std::vector<std::string> unreachable;
  for (size_t i = 0; i < all.size(); ++i) {
    fmt::print(stderr, "plan: {}/{} {}\n", i + 1, all.size(), all[i].name);
    if (!a.max_rate) {
      rows.push_back(serve_for_plan(all[i].name, *all[i].scenario, a.attainment));
    } else if (auto row = highest_rate(all[i].name, *all[i].scenario, a.attainment)) {
      rows.push_back(std::move(*row));
    } else {
      unreachable.push_back(all[i].name);
    }
  }
  std::optional<size_t> chosen = a.max_rate ? std::nullopt : cheapest_serving(rows);
  for (size_t i = 0; a.max_rate && i < rows.size(); ++i) {
    if (!chosen || rows[i].rate > rows[*chosen].rate) chosen = i;
  }
  fmt::print("# {} ({}): {} configurations; {} with {:g}% of requests meeting the SLO\n", base.name, a.scenario,
             all.size(), a.max_rate ? "the highest request rate of each" : "the cheapest", 100 * a.attainment);
  fmt::print("{}", format_serving_plan(rows, chosen));
  for (const std::string& name : unreachable) {
    fmt::print("unreachable: {}: even 0.01 requests/s miss the SLO\n", name);
  }
  if (chosen) {
    fmt::print("answer: {} ({:.3g} requests/s)\n", rows[*chosen].name, rows[*chosen].rate);
  } else {
    fmt::print("answer: no configuration meets the SLO at this load\n");
  }
}

void plan(const PlanArgs& a) {
  if (!a.search.empty()) return search(a, load_scenario_file(a.scenario, a.sets));
  if (const Scenario base = load_scenario_file(a.scenario, a.sets); base.serving()) {
    if (base.plan_search.empty()) return plan_serving(a, base, candidates(a, base));
    PlanArgs with = a;
    with.search = base.plan_search;
    return search(with, base);
  }
  if (a.target.empty() && a.budget < 0) {
    const Scenario base = load_scenario_file(a.scenario, a.sets);
    if (!base.plan_search.empty()) {
      PlanArgs with = a;
      with.search = base.plan_search;
      return search(with, base);
    }
  }
  if (a.target.empty() == (a.budget < 0)) {
    throw ConfigError(
        "plan: give exactly one of --target-step-time T (the cheapest that is fast enough) or --budget "
        "USD (the fastest that is cheap enough)");
  }
  if (a.metric != "capital" && a.metric != "step") throw ConfigError("plan: --cost: expected capital or step");
  const bool per_step = a.metric == "step";
  const Scenario base = load_scenario_file(a.scenario, a.sets);
  const std::vector<Candidate> all = candidates(a, base);
  std::vector<cost::PlanPoint> points;
  for (size_t i = 0; i < all.size(); ++i) {
    fmt::print(stderr, "plan: {}/{} {}\n", i + 1, all.size(), all[i].name);
    points.push_back(measure(all[i], per_step));
  }
  std::optional<size_t> chosen;
  std::string question;
  if (!a.target.empty()) {
    const Time target = parse_time(a.target, "--target-step-time");
    chosen = cost::cheapest_meeting(points, target);
    question = fmt::format("the cheapest with a step of at most {:.3f} ms", target.seconds() * 1e3);
  } else {
    chosen = cost::fastest_within(points, a.budget);
    question = fmt::format("the fastest costing at most {:.2f} USD", a.budget);
  }
  const char* label = per_step ? "USD per step" : "capital (USD)";
  fmt::print("# {} ({}): {} configurations; {}\n", base.name, a.scenario, points.size(), question);
  fmt::print("{}", cost::format_plan(points, chosen, label));
  if (chosen) {
    fmt::print("answer: {} ({:.3f} ms per step, {:.2f} {})\n", points[*chosen].name,
               points[*chosen].step_time.seconds() * 1e3, points[*chosen].usd, label);
  } else {
    fmt::print("answer: none of the {} configurations qualifies\n", points.size());
  }
}

}  // namespace

Action add_plan_command(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "The cheapest configuration meeting a step time, or the fastest within a budget, with the frontier; "
      "for a serving workload, the cheapest meeting its SLO or (--max-rate) the highest rate each serves");
  cmd->add_option("scenario", a->scenario, "Scenario file (YAML) with a training or serving workload")->required();
  cmd->add_option("--target-step-time", a->target, "Step time to meet, e.g. 2.5s or 800ms");
  cmd->add_option("--budget", a->budget, "Most to spend (USD; capital by default, see --cost)");
  cmd->add_option("--grid", a->grid,
                  "KEY=V1,V2,...: one more axis of configurations (repeatable), besides plan: grid:");
  cmd->add_option("--cost", a->metric, "What to minimise or cap: capital (default) or step (USD per step)")
      ->capture_default_str();
  cmd->add_option("--set", a->sets, "KEY=VALUE changes applied to every configuration");
  cmd->add_option("--search", a->search,
                  "parallel: the best tp/pp/dp/cp/ep, ZeRO, recompute and micro-batch for the cluster (and for "
                  "each compare: variant); serving: every layout of the model over the GPUs (tp x pp or ep "
                  "replicas, disaggregated pools), planned as above");
  cmd->add_option("--top", a->top, "With --search: plans simulated again as the scenario asks (default 5)");
  cmd->add_option("--isolated", a->isolated,
                  "With --search parallel: when more plans fit, all are first screened with NCCL's estimate of "
                  "each collective and only this many best are ranked with collectives simulated alone (0: "
                  "every plan; default: the scenario's plan.isolated, else 16)");
  cmd->add_option("--min-cp-tokens", a->min_cp_tokens,
                  "With --search parallel: context parallelism only while each rank keeps this many tokens of a "
                  "sequence, as NVIDIA's recipes split no finer (0: every cp; default: the scenario's "
                  "plan.min_cp_tokens, else 4096)");
  cmd->add_option("--attainment", a->attainment,
                  "Serving: the share of requests that must meet the scenario's slo: (default 0.9)");
  cmd->add_flag("--max-rate", a->max_rate,
                "Serving: the highest request rate each configuration serves within the SLO, instead of the "
                "cheapest at the scenario's rate");
  return [a] { plan(*a); };
}

}  // namespace weft::cli
