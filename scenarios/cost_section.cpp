#include "scenarios/cost_section.h"

#include <fmt/format.h>
#include <algorithm>

#include "cost/assumption_fields.h"
#include "sim/core/errors.h"

namespace weft::cost {
namespace {

void set_real(const YamlMap& m, const std::string& key, double& field) {
  if (m.has(key)) field = m.real(key);
}

// One item's override: a number (USD) or a map of usd / usd_per_hour / watts / source.
PriceEntry read_entry(const YamlMap& items, const std::string& name, const std::string& key, PriceEntry entry) {
  const std::string quoted = fmt::format("scenario cost: section, {}", items.where(name));
  if (!items.is_map(name)) {
    entry.usd = items.real(name);
    entry.usd_per_hour = 0;
    entry.source = quoted;
  } else {
    YamlMap m = items.map(name);
    set_real(m, "usd", entry.usd);
    set_real(m, "usd_per_hour", entry.usd_per_hour);
    if (m.has("watts")) {
      entry.watts = m.real("watts");
      entry.power_source = quoted;
    }
    entry.source = m.string_or("source", quoted);
    m.reject_unknown_keys();
  }
  if (entry.usd < 0 || entry.usd_per_hour < 0 || entry.watts < 0) {
    throw ConfigError(items.location(name), key, "expected prices and watts of 0 or more");
  }
  return entry;
}

}  // namespace

PriceBook with_overrides(PriceBook book, const YamlMap& cost_section) {
  if (!cost_section.has("prices")) return book;
  YamlMap prices = cost_section.map("prices");
  for (const std::string& category : prices.keys()) {
    const auto known = categories();
    if (std::none_of(known.begin(), known.end(), [&](const Category& c) { return c.name == category; })) {
      at(prices.location(category), "cost.prices." + category, [&] { check_item_key(category + "."); });
    }
    YamlMap items = prices.map(category);
    for (const std::string& name : items.keys()) {
      const std::string key = category + "." + name;
      at(items.location(name), "cost.prices." + key, [&] { check_item_key(key); });
      auto it = book.entries.find(key);
      PriceEntry base = it != book.entries.end() ? it->second : PriceEntry{};
      book.entries.insert_or_assign(key, read_entry(items, name, key, std::move(base)));
    }
    items.reject_unknown_keys();
  }
  prices.reject_unknown_keys();
  return book;
}

CostSettings read_cost_section(const YamlMap& cost_section, PriceBook defaults) {
  CostSettings s;
  // Each field is checked alone against the defaults of the others, so the error points at it.
  for (const Field<CostAssumptions>& f : assumption_fields()) {
    const std::string key(f.key);
    if (!cost_section.has(key)) continue;
    const std::string text = cost_section.string(key);
    at(cost_section.location(key), [&] {
      CostAssumptions one;
      f.set(one, key, text);
      validate(one);
      f.set(s.assumptions, key, text);
    });
  }
  s.prices = with_overrides(std::move(defaults), cost_section);
  cost_section.reject_unknown_keys();
  return s;
}

}  // namespace weft::cost
