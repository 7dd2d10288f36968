#include "scenarios/report_training.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cost/cost_report.h"

namespace weft {
namespace {

using Json = nlohmann::ordered_json;  // insertion order: byte-identical output run to run

constexpr CommGroup kGroups[] = {CommGroup::dp, CommGroup::tp, CommGroup::pp, CommGroup::cp, CommGroup::ep};

std::vector<const ScenarioResult*> columns(const ScenarioResult& r) {
  std::vector<const ScenarioResult*> out{&r};
  for (const ScenarioResult& v : r.variants) out.push_back(&v);
  return out;
}

std::string name_of(const ScenarioResult& base, const ScenarioResult& r) {
  return &base == &r && !base.scenario.compare.empty() ? base.scenario.baseline : r.scenario.name;
}

std::string plan_label(const TrainingSpec& s) {
  std::string out = fmt::format("dp{} tp{} pp{}", s.parallel.dp, s.parallel.tp, s.parallel.pp);
  if (s.parallel.cp > 1) out += fmt::format(" cp{}", s.parallel.cp);
  if (s.parallel.ep > 1) out += fmt::format(" ep{}", s.parallel.ep);
  if (s.sharding != Sharding::none) out += fmt::format(" zero{}", static_cast<int>(s.sharding));
  if (s.sequence_parallel) out += " sp";
  if (s.parallel.pp > 1) out += fmt::format(" {}", to_string(s.pipeline));
  if (s.virtual_stages > 1) out += fmt::format(" v{}", s.virtual_stages);
  if (s.recompute) out += " recompute";
  return out;
}

// A traced step has no plan of weft's: it ran as recorded.
std::string plan_of(const TrainingWorkload& t) { return t.trace ? std::string("as traced") : plan_label(t.spec); }

double ms(Time t) { return t.seconds() * 1e3; }

// RFC 4180: a field with a comma, a quote or a line break goes in quotes, its quotes doubled
// (variant names such as "x8, 25GbE TCP").
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The money line of one variant: what the cluster costs, its step, and training on the token budget.
std::string cost_line(const ScenarioResult& r) {
  if (!r.cost) return "";
  const CostOutcome& c = *r.cost;
  if (!c.cluster) {
    return fmt::format("   cost: n/a, no price for {} (add them under cost: prices:)\n", fmt::join(c.missing, ", "));
  }
  const cost::ClusterCost& k = *c.cluster;
  std::string out =
      fmt::format("   cost: capital {}, {:.1f} kW, {}/h ({}/GPU-h over {:g} years); {} per step",
                  cost::format_usd(k.capital_usd), k.facility_power_w / 1e3, cost::format_usd(k.usd_per_hour),
                  cost::format_usd(k.usd_per_gpu_hour), k.assumptions.years, cost::format_usd(c.step->usd_per_step));
  if (c.step->usd_per_million_tokens)
    out += fmt::format(", {} per M tokens", cost::format_usd(*c.step->usd_per_million_tokens));
  if (c.step->train_seconds) {
    out += fmt::format("; the token budget: {:.1f} days, {}", *c.step->train_seconds / 86400,
                       cost::format_usd(*c.step->train_usd));
  }
  return out + "\n";
}

std::string one_table(const std::string& name, const ScenarioResult& r) {
  const Scenario& s = r.scenario;
  const TrainingSpec& t = s.training()->spec;
  const TrainingOutcome& o = *r.training;
  const StepBreakdown& b = o.step;
  std::string out = fmt::format("## {}: {} on {} x{} GPUs ({}), {} fabric\n", name, t.model.name, s.system.preset,
                                s.system.ranks, s.training()->gpu, s.fabric);
  if (s.training()->trace) {
    out += fmt::format(
        "   replayed from the trace: {} ranks, compute as recorded{}\n", o.workload->ranks(),
        s.training()->trace->recorded_on.empty() ? "" : ", re-costed from " + s.training()->trace->recorded_on);
  } else {
    // The software generation, when not the default, since it changes every compute time.
    const SoftwareStack software = s.training()->profile.software;
    out += fmt::format("   plan {}; batch {} x {} tokens, micro-batch {} ({} per rank); {}{}\n", plan_label(t),
                       t.global_batch, t.seq_len, t.micro_batch, micro_batches(t), precision_name(t.precision),
                       software == SoftwareStack::y2025 ? "" : fmt::format("; software {}", software_name(software)));
  }
  out += fmt::format("   step {:.2f} ms: compute {:.2f}", ms(b.step_time), ms(b.mean.compute));
  for (CommGroup g : kGroups) {
    const Time e = b.mean.exposed[static_cast<size_t>(g)];
    if (e > Time() || b.communication[static_cast<size_t>(g)] > Time()) {
      out += fmt::format(", exposed {} {:.2f} (of {:.2f})", to_string(g), ms(e),
                         ms(b.communication[static_cast<size_t>(g)]));
    }
  }
  out += fmt::format(", idle/bubble {:.2f} (mean per rank)\n", ms(b.mean.idle));
  if (o.tokens > 0) {
    out += fmt::format("   {:.1f} TFLOP/s per GPU, MFU {:.1f}%, {:.0f} tokens/s; ", b.tflops_per_gpu, 100 * b.mfu,
                       o.tokens / b.step_time.seconds());
  } else {
    out += "   ";
  }
  out += fmt::format("{} ops, {} transfers, simulated in {:.2f} s\n", o.ops, o.replay.fabric.transfers_done,
                     o.wall_seconds);
  if (o.memory) {
    out += fmt::format("   memory per GPU: {}{}\n", describe(*o.memory),
                       o.memory->fits() ? "" : " - DOES NOT FIT (allow_oom: true)");
  }
  out += cost_line(r);
  out += fmt::format("   {:<6} {:<15} {:>12} {:>6} {:>8} {:>11} {:>11}  {}\n", "group", "op", "size(B)", "ranks",
                     "count", "mean(us)", "total(ms)", "algorithm");
  for (const CollectiveStat& c : o.replay.collectives) {
    out += fmt::format("   {:<6} {:<15} {:>12} {:>6} {:>8} {:>11.1f} {:>11.2f}  {}\n", to_string(c.group),
                       to_string(c.op), c.bytes.count(), c.ranks, c.count,
                       c.total.microseconds() / static_cast<double>(c.count), ms(c.total), c.algorithm);
  }
  return out;
}

bool priced(const ScenarioResult& r) { return r.cost && r.cost->cluster; }

std::string comparison(const ScenarioResult& base) {
  const double first = base.training->step.step_time.seconds();
  std::string out = fmt::format("\n{:<28} {:>10} {:>8} {:>9}", "variant", "step(ms)", "speedup", "compute");
  for (CommGroup g : kGroups) out += fmt::format(" {:>8}", fmt::format("exp.{}", to_string(g)));
  out +=
      fmt::format(" {:>9} {:>9} {:>6} {:>12} {:>10} {:>7}\n", "idle", "TFLOP/s", "MFU", "capital", "$/step", "perf/$");
  const cost::StepCost* first_cost = priced(base) ? &*base.cost->step : nullptr;
  for (const ScenarioResult* r : columns(base)) {
    const StepBreakdown& b = r->training->step;
    out += fmt::format("{:<28} {:>10.2f} {:>7.2f}x {:>9.2f}", name_of(base, *r), ms(b.step_time),
                       first / b.step_time.seconds(), ms(b.mean.compute));
    for (CommGroup g : kGroups) out += fmt::format(" {:>8.2f}", ms(b.mean.exposed[static_cast<size_t>(g)]));
    out += fmt::format(" {:>9.2f} {:>9.1f} {:>5.1f}%", ms(b.mean.idle), b.tflops_per_gpu, 100 * b.mfu);
    if (priced(*r)) {
      out += fmt::format(
          " {:>12} {:>10} {:>7}", cost::format_usd(r->cost->cluster->capital_usd),
          fmt::format("{:.4g}", r->cost->step->usd_per_step),
          first_cost ? fmt::format("{:.2f}x", cost::relative_performance_per_dollar(*first_cost, *r->cost->step))
                     : std::string("-"));
    } else {
      out += fmt::format(" {:>12} {:>10} {:>7}", "n/a", "n/a", "-");
    }
    out += "\n";
  }
  return out;
}

// Performance per dollar of `r` relative to the first variant, when both are priced.
std::optional<double> perf_per_dollar(const ScenarioResult& base, const ScenarioResult& r) {
  if (!priced(base) || !priced(r)) return std::nullopt;
  return cost::relative_performance_per_dollar(*base.cost->step, *r.cost->step);
}

Json cost_json(const ScenarioResult& base, const ScenarioResult& r) {
  if (!r.cost) return nullptr;
  if (!priced(r)) return Json{{"missing_prices", r.cost->missing}};
  Json j{{"cluster", cost::cost_json(*r.cost->cluster)}, {"step", cost::step_cost_json(*r.cost->step)}};
  if (auto p = perf_per_dollar(base, r)) j["performance_per_dollar_vs_first"] = *p;
  return j;
}

Json variant_json(const std::string& name, const ScenarioResult& base, const ScenarioResult& r, double first_step) {
  const StepBreakdown& b = r.training->step;
  Json exposed, comm;
  for (CommGroup g : kGroups) {
    exposed[std::string(to_string(g))] = ms(b.mean.exposed[static_cast<size_t>(g)]);
    comm[std::string(to_string(g))] = ms(b.communication[static_cast<size_t>(g)]);
  }
  Json j{{"name", name},
         {"system", r.scenario.system.preset},
         {"gpus", r.scenario.system.ranks},
         {"fabric", r.scenario.fabric},
         {"model", r.scenario.training()->spec.model.name},
         {"plan", plan_of(*r.scenario.training())},
         {"step_ms", ms(b.step_time)},
         {"speedup", first_step / b.step_time.seconds()},
         {"compute_ms", ms(b.mean.compute)},
         {"exposed_ms", exposed},
         {"communication_ms", comm},
         {"idle_ms", ms(b.mean.idle)},
         {"tflops_per_gpu", b.tflops_per_gpu},
         {"mfu", b.mfu},
         {"tokens_per_s", r.training->tokens / b.step_time.seconds()},
         {"cost", cost_json(base, r)},
         {"collectives", Json::array()}};
  if (const auto& m = r.training->memory) {
    j["memory"] = Json{
        {"weights_bytes", m->weights},         {"gradients_bytes", m->gradients}, {"optimizer_bytes", m->optimizer},
        {"activations_bytes", m->activations}, {"fixed_bytes", m->fixed},         {"total_bytes", m->total()},
        {"capacity_bytes", m->capacity},       {"pipeline_stage", m->stage},      {"fits", m->fits()}};
  }
  for (const CollectiveStat& c : r.training->replay.collectives) {
    j["collectives"].push_back(Json{{"group", to_string(c.group)},
                                    {"op", to_string(c.op)},
                                    {"bytes", c.bytes.count()},
                                    {"ranks", c.ranks},
                                    {"count", c.count},
                                    {"total_ms", ms(c.total)},
                                    {"algorithm", c.algorithm}});
  }
  return j;
}

}  // namespace

std::string training_table(const ScenarioResult& result) {
  std::string out =
      fmt::format("# {} ({}), seed {}\n", result.scenario.name, result.scenario.source, result.scenario.seed);
  for (const ScenarioResult* r : columns(result)) out += one_table(name_of(result, *r), *r);
  if (!result.variants.empty()) out += comparison(result);
  return out;
}

std::string training_json(const ScenarioResult& result) {
  const double first = result.training->step.step_time.seconds();
  Json j{{"scenario", result.scenario.name},
         {"source", result.scenario.source},
         {"seed", result.scenario.seed},
         {"variants", Json::array()}};
  for (const ScenarioResult* r : columns(result))
    j["variants"].push_back(variant_json(name_of(result, *r), result, *r, first));
  return j.dump(2) + "\n";
}

std::string training_csv(const ScenarioResult& result) {
  const double first = result.training->step.step_time.seconds();
  std::string out = "variant,system,gpus,fabric,model,plan,step_ms,speedup,compute_ms";
  for (CommGroup g : kGroups) out += fmt::format(",exposed_{}_ms", to_string(g));
  out += ",idle_ms,tflops_per_gpu,mfu,capital_usd,usd_per_hour,usd_per_step,usd_per_million_tokens,perf_per_dollar\n";
  for (const ScenarioResult* r : columns(result)) {
    const StepBreakdown& b = r->training->step;
    out += fmt::format("{},{},{},{},{},{},{:.6f},{:.6f},{:.6f}", csv_field(name_of(result, *r)),
                       r->scenario.system.preset, r->scenario.system.ranks, r->scenario.fabric,
                       csv_field(r->scenario.training()->spec.model.name), csv_field(plan_of(*r->scenario.training())),
                       ms(b.step_time), first / b.step_time.seconds(), ms(b.mean.compute));
    for (CommGroup g : kGroups) out += fmt::format(",{:.6f}", ms(b.mean.exposed[static_cast<size_t>(g)]));
    out += fmt::format(",{:.6f},{:.6f},{:.6f}", ms(b.mean.idle), b.tflops_per_gpu, b.mfu);
    if (priced(*r)) {
      const cost::StepCost& c = *r->cost->step;
      out += fmt::format(",{:.2f},{:.4f},{:.6f},{},{}", r->cost->cluster->capital_usd, r->cost->cluster->usd_per_hour,
                         c.usd_per_step,
                         c.usd_per_million_tokens ? fmt::format("{:.6f}", *c.usd_per_million_tokens) : std::string(),
                         fmt::format("{:.6f}", *perf_per_dollar(result, *r)));
    } else {
      out += ",,,,,";
    }
    out += "\n";
  }
  return out;
}

std::string collectives_csv(const ScenarioResult& result) {
  std::string out = "variant,group,op,bytes,ranks,count,total_ms,mean_us,algorithm\n";
  for (const ScenarioResult* r : columns(result)) {
    for (const CollectiveStat& c : r->training->replay.collectives) {
      out += fmt::format("{},{},{},{},{},{},{:.6f},{:.6f},{}\n", csv_field(name_of(result, *r)), to_string(c.group),
                         to_string(c.op), c.bytes.count(), c.ranks, c.count, ms(c.total),
                         c.total.microseconds() / static_cast<double>(c.count), csv_field(c.algorithm));
    }
  }
  return out;
}

}  // namespace weft
