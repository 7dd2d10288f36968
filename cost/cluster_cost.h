// What a cluster costs to own and run, and what one training step costs on it.
//
//   capital per hour = capital / (years x 8,760 h x utilisation)
//   energy per hour  = IT power (kW) x load x PUE x price per kWh
//   cost per hour    = capital per hour + energy per hour + rent per hour
//   cost per GPU-hour = cost per hour / GPUs;   cost per step = cost per hour / 3,600 s x step time
//
// The defaults and their sources are beside CostAssumptions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cost/bill_of_materials.h"
#include "cost/prices.h"
#include "sim/core/units.h"

namespace weft::cost {

struct CostAssumptions {
  // Amortisation period of the capital: 4 years, the upper end of the 3-4 years GPU buyers plan for
  // (issue 10) and shorter than the 5-6 years hyperscalers' filings use for general servers, since
  // accelerators are outpaced sooner [estimate].
  double years = 4;
  // Facility power over IT power. Uptime Institute's 2023 survey average is 1.58 over all (mostly
  // older) sites; hyperscale operators report 1.1-1.2. 1.3 is a new-build colocation figure between
  // them [estimate]: use your facility's.
  double pue = 1.3;
  // US average retail price to industrial customers in 2023: 8.06 cents/kWh (EIA, Electric Power
  // Monthly, as charted by Statista 2024-03-18).
  double usd_per_kwh = 0.0806;
  // Average draw over nameplate (TDP / system maximum). 1 = nameplate, an upper bound.
  double load = 1.0;
  // Fraction of the amortisation period the cluster does billed work; capital is spread over those
  // hours only. 1 = always busy.
  double utilisation = 1.0;
};

// Throws ConfigError naming the field for a value out of range (years, PUE or utilisation <= 0, ...).
void validate(const CostAssumptions& a);

struct CostLine {
  std::string item;
  std::string what;
  uint64_t count = 0;
  bool included = false;  // in an integrated system's price: no cost of its own
  double unit_usd = 0;    // 0 when included
  double unit_usd_per_hour = 0;
  double unit_watts = 0;
  double usd = 0;           // count x unit
  double usd_per_hour = 0;  // rent
  double watts = 0;
  std::string source;  // price source (with the switch per-port fallback spelled out)
  std::string power_source;
};

struct ClusterCost {
  std::string name;
  uint64_t gpus = 0;
  std::vector<CostLine> lines;
  double capital_usd = 0;
  double it_power_w = 0;        // nameplate, summed over lines
  double facility_power_w = 0;  // IT power x load x PUE
  double capital_usd_per_hour = 0;
  double energy_usd_per_hour = 0;
  double rent_usd_per_hour = 0;
  double usd_per_hour = 0;  // all three
  double usd_per_gpu_hour = 0;
  CostAssumptions assumptions;
};

// Items of `bom` that `prices` cannot price (no entry, and no per-port entry for a switch), in
// order, each once. Included lines need no price.
std::vector<std::string> missing_prices(const BillOfMaterials& bom, const PriceBook& prices);

// Prices every line. Throws ConfigError naming each missing item and how to add it (a missing
// price is never taken as zero).
ClusterCost cluster_cost(const BillOfMaterials& bom, const PriceBook& prices, const CostAssumptions& assumptions);

struct StepCost {
  double step_seconds = 0;
  double usd_per_step = 0;
  double facility_kwh_per_step = 0;
  double tokens_per_step = 0;
  std::optional<double> usd_per_million_tokens;  // when tokens_per_step > 0
  std::optional<double> train_steps;             // ceil(token budget / tokens per step)
  std::optional<double> train_seconds;           // train_steps x step time
  std::optional<double> train_usd;               // train_steps x usd_per_step
};

// Throws ConfigError for a negative token count or a token budget without tokens per step.
StepCost step_cost(const ClusterCost& cluster, Time step_time, double tokens_per_step,
                   std::optional<double> token_budget = std::nullopt);

// Work per dollar of `variant` over that of `base` (tokens per USD when both count tokens, else
// steps per USD): 2 = twice the training per dollar.
double relative_performance_per_dollar(const StepCost& base, const StepCost& variant);

}  // namespace weft::cost
