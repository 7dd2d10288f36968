#include "scenarios/serving_plan.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "scenarios/report_serving.h"
#include "scenarios/run_scenario.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

// The scenario with its stream at `rate` requests/s for as long as its own arrivals last (a count scales
// with the rate: a fixed count at a high rate would be a short burst, not a load the replicas sustain),
// drawn again with the scenario's seed.
Scenario at_rate(const Scenario& s, double rate) {
  Scenario out = s;
  out.compare.clear();
  auto& w = std::get<ServingWorkload>(out.workload);
  if (w.stream.count > 0) {
    w.stream.count = static_cast<uint32_t>(std::max(1.0, std::round(w.stream.count * rate / w.stream.arrivals.rate)));
  }
  w.stream.arrivals.rate = rate;
  w.requests = generate_requests(w.stream, s.seed);
  return out;
}

}  // namespace

ServingPlanRow serve_for_plan(const std::string& name, const Scenario& s, double attainment) {
  if (!s.serving()) throw ConfigError(fmt::format("plan: '{}' is not a serving workload", name));
  Scenario alone = s;
  alone.compare.clear();
  const ScenarioResult r = run_scenario(alone);
  const ServingMetrics& m = r.serving->metrics;
  ServingPlanRow row;
  row.name = name;
  const ServingWorkload& w = *s.serving();
  row.rate = w.trace_file.empty() && w.stream.arrivals.kind != ArrivalKind::all_at_once ? w.stream.arrivals.rate : 0;
  row.attainment = m.requests > 0 ? static_cast<double>(m.good_requests) / static_cast<double>(m.requests) : 0;
  row.output_tokens_per_s = m.output_tokens_per_s;
  row.total_tokens_per_s = m.total_tokens_per_s;
  row.ttft_p50 = m.ttft.p50;
  row.tpot_p50 = m.tpot.p50;
  if (r.cost && r.cost->cluster) row.usd_per_hour = r.cost->cluster->usd_per_hour;
  if (const auto c = token_cost(r)) row.usd_per_m_output = c->output;
  row.meets = row.attainment >= attainment;
  return row;
}

std::optional<ServingPlanRow> highest_rate(const std::string& name, const Scenario& s, double attainment,
                                           double least) {
  const ServingWorkload* w = s.serving();
  if (w == nullptr) throw ConfigError(fmt::format("plan: '{}' is not a serving workload", name));
  if (!w->trace_file.empty() || w->stream.arrivals.kind == ArrivalKind::all_at_once) {
    throw ConfigError(fmt::format("plan: '{}': --max-rate needs poisson or gamma arrivals (a rate to vary)", name));
  }
  std::optional<ServingPlanRow> best;
  double low = 0, high = 0, rate = std::max(least, w->stream.arrivals.rate);
  // Down by halves to a rate that meets the objectives (none: out of reach).
  for (;;) {
    ServingPlanRow row = serve_for_plan(name, at_rate(s, rate), attainment);
    if (row.meets) {
      best = std::move(row);
      low = rate;
      break;
    }
    if (rate <= least) return std::nullopt;
    high = rate;
    rate = std::max(least, rate / 2);
  }
  // Up by doubling to one that misses them, when the first met them.
  for (int i = 0; i < 40 && high == 0; ++i) {
    ServingPlanRow row = serve_for_plan(name, at_rate(s, 2 * low), attainment);
    if (!row.meets) {
      high = 2 * low;
    } else {
      best = std::move(row);
      low *= 2;
    }
  }
  while (high > 0 && high - low > 0.02 * low) {
    const double mid = (low + high) / 2;
    ServingPlanRow row = serve_for_plan(name, at_rate(s, mid), attainment);
    if (row.meets) {
      best = std::move(row);
      low = mid;
    } else {
      high = mid;
    }
  }
  return best;
}

std::optional<size_t> cheapest_serving(const std::vector<ServingPlanRow>& rows) {
  std::optional<size_t> best;
  // Per hour, then per token served (input and output alike: how the prompts' share splits the cost
  // between them is no reason to prefer one configuration), then the share meeting the objectives.
  auto key = [](const ServingPlanRow& r) {
    const double usd = r.usd_per_hour.value_or(INFINITY);
    const double per_token = r.total_tokens_per_s > 0 ? usd / r.total_tokens_per_s : INFINITY;
    return std::make_tuple(usd, per_token, -r.attainment);
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].meets && (!best || key(rows[i]) < key(rows[*best]))) best = i;
  }
  return best;
}

std::string format_serving_plan(const std::vector<ServingPlanRow>& rows, std::optional<size_t> chosen) {
  size_t width = 32;  // the names' column: as wide as the longest
  for (const ServingPlanRow& r : rows) width = std::max(width, r.name.size());
  std::string out = fmt::format("  {:<{}} {:>9} {:>9} {:>11} {:>9} {:>9} {:>10} {:>10}\n", "configuration", width,
                                "req/s", "meet SLO", "out tok/s", "ttft p50", "tpot p50", "USD/h", "$/M out");
  for (size_t i = 0; i < rows.size(); ++i) {
    const ServingPlanRow& r = rows[i];
    out +=
        fmt::format("{} {:<{}} {:>9.3g} {:>8.1f}% {:>11.1f} {:>9.2f} {:>9.2f} {:>10} {:>10}\n", chosen == i ? '*' : ' ',
                    r.name, width, r.rate, 100 * r.attainment, r.output_tokens_per_s, r.ttft_p50.seconds() * 1e3,
                    r.tpot_p50.seconds() * 1e3, r.usd_per_hour ? fmt::format("{:.2f}", *r.usd_per_hour) : "n/a",
                    r.usd_per_m_output ? fmt::format("{:.3g}", *r.usd_per_m_output) : "n/a");
  }
  return out;
}

}  // namespace weft
