#include "cost/cluster_cost.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "sim/core/errors.h"

namespace weft::cost {
namespace {

constexpr double kHoursPerYear = 8'760;  // 365 days
constexpr double kSecondsPerHour = 3'600;

void require(bool ok, const char* field, double value, const char* expected) {
  if (!ok) throw ConfigError(fmt::format("cost: {} = {}; expected {}", field, value, expected));
}

CostLine price_line(const BomLine& b, const PriceEntry* p) {
  CostLine l{b.item, b.what, b.count, b.included};
  if (b.included || p == nullptr) return l;
  const auto n = static_cast<double>(b.count);
  l.unit_usd = p->usd;
  l.unit_usd_per_hour = p->usd_per_hour;
  l.unit_watts = p->watts;
  l.usd = n * p->usd;
  l.usd_per_hour = n * p->usd_per_hour;
  l.watts = n * p->watts;
  l.source = p->source;
  l.power_source = p->power_source;
  return l;
}

}  // namespace

void validate(const CostAssumptions& a) {
  require(a.years > 0, "years", a.years, "a period above 0 years");
  require(a.pue >= 1, "pue", a.pue, "1 or more (facility power over IT power)");
  require(a.usd_per_kwh >= 0, "usd_per_kwh", a.usd_per_kwh, "a price of 0 or more");
  require(a.load >= 0 && a.load <= 1, "load", a.load, "a fraction of nameplate power in [0, 1]");
  require(a.utilisation > 0 && a.utilisation <= 1, "utilisation", a.utilisation, "a fraction in (0, 1]");
}

std::vector<std::string> missing_prices(const BillOfMaterials& bom, const PriceBook& prices) {
  std::vector<std::string> missing;
  for (const BomLine& l : bom.lines) {
    if (l.included || find_price(prices, l.item)) continue;
    if (std::find(missing.begin(), missing.end(), l.item) == missing.end()) missing.push_back(l.item);
  }
  return missing;
}

ClusterCost cluster_cost(const BillOfMaterials& bom, const PriceBook& prices, const CostAssumptions& a) {
  validate(a);
  if (std::vector<std::string> missing = missing_prices(bom, prices); !missing.empty()) {
    const std::string& first = missing.front();
    const size_t dot = first.find('.');
    throw ConfigError(fmt::format(
        "cost: no price for {} in {}; add each under the scenario's cost: prices: section (e.g. prices: {{{}: {{{}: "
        "USD}}}}), or see `weft topo ... --bom` for the bill of materials",
        fmt::join(missing, ", "), bom.name, first.substr(0, dot), first.substr(dot + 1)));
  }
  ClusterCost c;
  c.name = bom.name;
  c.gpus = bom.gpus;
  c.assumptions = a;
  for (const BomLine& b : bom.lines) {
    std::optional<PriceEntry> p = b.included ? std::nullopt : find_price(prices, b.item);
    CostLine l = price_line(b, p ? &*p : nullptr);
    c.capital_usd += l.usd;
    c.rent_usd_per_hour += l.usd_per_hour;
    c.it_power_w += l.watts;
    c.lines.push_back(std::move(l));
  }
  c.facility_power_w = c.it_power_w * a.load * a.pue;
  c.capital_usd_per_hour = c.capital_usd / (a.years * kHoursPerYear * a.utilisation);
  c.energy_usd_per_hour = c.facility_power_w / 1'000 * a.usd_per_kwh;
  c.usd_per_hour = c.capital_usd_per_hour + c.energy_usd_per_hour + c.rent_usd_per_hour;
  c.usd_per_gpu_hour = c.gpus > 0 ? c.usd_per_hour / static_cast<double>(c.gpus) : 0;
  return c;
}

StepCost step_cost(const ClusterCost& cluster, Time step_time, double tokens_per_step,
                   std::optional<double> token_budget) {
  if (!(tokens_per_step >= 0)) {
    throw ConfigError(fmt::format("cost: {} tokens per step; expected 0 or more", tokens_per_step));
  }
  StepCost s;
  s.step_seconds = step_time.seconds();
  s.usd_per_step = cluster.usd_per_hour / kSecondsPerHour * s.step_seconds;
  s.facility_kwh_per_step = cluster.facility_power_w / 1'000 * s.step_seconds / kSecondsPerHour;
  s.tokens_per_step = tokens_per_step;
  if (tokens_per_step > 0) s.usd_per_million_tokens = s.usd_per_step / tokens_per_step * 1e6;
  if (token_budget) {
    if (!(*token_budget >= 0) || tokens_per_step <= 0) {
      throw ConfigError(
          fmt::format("cost: a token budget of {} needs a budget of 0 or more and a step that trains "
                      "tokens (it has {})",
                      *token_budget, tokens_per_step));
    }
    s.train_steps = std::ceil(*token_budget / tokens_per_step);
    s.train_seconds = *s.train_steps * s.step_seconds;
    s.train_usd = *s.train_steps * s.usd_per_step;
  }
  return s;
}

double relative_performance_per_dollar(const StepCost& base, const StepCost& variant) {
  const bool tokens = base.tokens_per_step > 0 && variant.tokens_per_step > 0;
  auto work_per_usd = [&](const StepCost& s) { return (tokens ? s.tokens_per_step : 1.0) / s.usd_per_step; };
  return work_per_usd(variant) / work_per_usd(base);
}

}  // namespace weft::cost
