#include "cost/cost_report.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <set>

namespace weft::cost {
namespace {

std::string_view group_name(BomGroup g) {
  switch (g) {
    case BomGroup::compute:
      return "compute";
    case BomGroup::network:
      return "network";
    case BomGroup::cabling:
      return "cabling";
  }
  return "?";
}

std::string header(const BillOfMaterials& bom) {
  return fmt::format("bill of materials: {} ({} GPUs, {} node(s){})\n", bom.name, bom.gpus, bom.nodes,
                     bom.rented       ? ", rented: network and power in the rent"
                     : bom.integrated ? ", integrated systems"
                                      : "");
}

std::string counts_only(const BillOfMaterials& bom, const std::vector<std::string>& missing) {
  std::string out = header(bom);
  out += fmt::format("  {:<24} {:>8}  {}\n", "item", "count", "what");
  for (const BomLine& l : bom.lines) {
    const bool unpriced = std::find(missing.begin(), missing.end(), l.item) != missing.end();
    out += fmt::format("  {:<24} {:>8}  {}{}\n", l.item, l.count, l.what,
                       l.included ? " [included]"
                       : unpriced ? " [no price]"
                                  : "");
  }
  if (!missing.empty()) {
    out += fmt::format("no price for: {} (add under a scenario's cost: prices: section)\n", fmt::join(missing, ", "));
  }
  return out;
}

std::string priced(const BillOfMaterials& bom, const ClusterCost& c) {
  std::string out = header(bom);
  out += fmt::format("  {:<24} {:>8} {:>12} {:>14} {:>10}  {}\n", "item", "count", "unit", "total", "watts", "what");
  for (const CostLine& l : c.lines) {
    if (l.included) {
      out += fmt::format("  {:<24} {:>8} {:>12} {:>14} {:>10}  {}\n", l.item, l.count, "included", "", "", l.what);
      continue;
    }
    const bool rent = l.unit_usd_per_hour > 0;
    out += fmt::format("  {:<24} {:>8} {:>12} {:>14} {:>10.0f}  {}\n", l.item, l.count,
                       rent ? format_usd(l.unit_usd_per_hour) + "/h" : format_usd(l.unit_usd),
                       rent ? format_usd(l.usd_per_hour) + "/h" : format_usd(l.usd), l.watts, l.what);
  }
  const CostAssumptions& a = c.assumptions;
  out += fmt::format("capital {}; IT power {:.1f} kW, facility {:.1f} kW (load {:g}, PUE {:g})\n",
                     format_usd(c.capital_usd), c.it_power_w / 1e3, c.facility_power_w / 1e3, a.load, a.pue);
  const std::string rent = c.rent_usd_per_hour > 0 ? fmt::format(" + rent {}/h", format_usd(c.rent_usd_per_hour)) : "";
  out += fmt::format(
      "cost {}/h = capital {}/h ({:g} years at {:g} utilisation) + energy {}/h (${:g}/kWh){}; "
      "{}/GPU-hour\n",
      format_usd(c.usd_per_hour), format_usd(c.capital_usd_per_hour), a.years, a.utilisation,
      format_usd(c.energy_usd_per_hour), a.usd_per_kwh, rent, format_usd(c.usd_per_gpu_hour));
  out += "sources:\n";
  std::set<std::string> seen;
  for (const CostLine& l : c.lines) {
    if (l.included || !seen.insert(l.item).second) continue;
    out +=
        fmt::format("  {}: {}; power: {}\n", l.item, l.source, l.power_source.empty() ? "not given" : l.power_source);
  }
  return out;
}

}  // namespace

std::string format_usd(double usd) {
  if (std::fabs(usd) < 100) return fmt::format("${:.2f}", usd);
  std::string digits = fmt::format("{:.0f}", std::fabs(usd));
  std::string grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return (usd < 0 ? "-$" : "$") + grouped;
}

std::string format_bom(const BillOfMaterials& bom, const PriceBook* prices, const CostAssumptions& assumptions) {
  if (prices == nullptr) return counts_only(bom, {});
  std::vector<std::string> missing = missing_prices(bom, *prices);
  if (!missing.empty()) return counts_only(bom, missing);
  return priced(bom, cluster_cost(bom, *prices, assumptions));
}

nlohmann::ordered_json bom_json(const BillOfMaterials& bom) {
  nlohmann::ordered_json j{{"name", bom.name},
                           {"gpus", bom.gpus},
                           {"nodes", bom.nodes},
                           {"integrated", bom.integrated},
                           {"rented", bom.rented}};
  auto& lines = j["lines"] = nlohmann::ordered_json::array();
  for (const BomLine& l : bom.lines) {
    lines.push_back({{"item", l.item},
                     {"what", l.what},
                     {"count", l.count},
                     {"included", l.included},
                     {"group", group_name(l.group)}});
  }
  return j;
}

nlohmann::ordered_json cost_json(const ClusterCost& c) {
  const CostAssumptions& a = c.assumptions;
  nlohmann::ordered_json j{{"capital_usd", c.capital_usd},
                           {"rent_usd_per_hour", c.rent_usd_per_hour},
                           {"it_power_w", c.it_power_w},
                           {"facility_power_w", c.facility_power_w},
                           {"capital_usd_per_hour", c.capital_usd_per_hour},
                           {"energy_usd_per_hour", c.energy_usd_per_hour},
                           {"usd_per_hour", c.usd_per_hour},
                           {"usd_per_gpu_hour", c.usd_per_gpu_hour},
                           {"assumptions",
                            {{"years", a.years},
                             {"pue", a.pue},
                             {"usd_per_kwh", a.usd_per_kwh},
                             {"load", a.load},
                             {"utilisation", a.utilisation}}}};
  auto& lines = j["lines"] = nlohmann::ordered_json::array();
  for (const CostLine& l : c.lines) {
    lines.push_back({{"item", l.item},
                     {"count", l.count},
                     {"included", l.included},
                     {"usd", l.usd},
                     {"usd_per_hour", l.usd_per_hour},
                     {"watts", l.watts},
                     {"source", l.source},
                     {"power_source", l.power_source}});
  }
  return j;
}

nlohmann::ordered_json step_cost_json(const StepCost& s) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
  return {{"step_seconds", s.step_seconds},
          {"usd_per_step", s.usd_per_step},
          {"facility_kwh_per_step", s.facility_kwh_per_step},
          {"tokens_per_step", s.tokens_per_step},
          {"usd_per_million_tokens", opt(s.usd_per_million_tokens)},
          {"train_steps", opt(s.train_steps)},
          {"train_seconds", opt(s.train_seconds)},
          {"train_usd", opt(s.train_usd)}};
}

}  // namespace weft::cost
