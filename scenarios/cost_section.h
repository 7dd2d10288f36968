// A scenario's `cost:` section, read through the one YAML door:
//
//   cost:
//     years: 4              # amortisation; also pue, usd_per_kwh, load, utilisation
//     prices:               # a user's quote always wins over the bundled price book
//       nic:
//         cx7: 1900         # USD per item
//       switch:
//         ib-400g-64p: {usd: 30000, watts: 700, source: "vendor quote 2025-05"}
//
// Every key is checked: an unknown field, category or item is a ConfigError at its file:line:column.
#pragma once

#include "cost/cluster_cost.h"
#include "cost/prices.h"
#include "scenarios/yaml_reader.h"

namespace weft::cost {

struct CostSettings {
  PriceBook prices;
  CostAssumptions assumptions;
};

// The `prices:` map of a cost section applied over `book`: each item replaced by the user's entry
// (a number is its USD price, keeping the book's power; a map sets usd, usd_per_hour, watts,
// source). Entries the book lacks are added. Throws ConfigError with file:line:column.
PriceBook with_overrides(PriceBook book, const YamlMap& cost_section);

// The whole section: assumptions (defaults for what it leaves out) and prices over `defaults`.
CostSettings read_cost_section(const YamlMap& cost_section, PriceBook defaults = default_prices());

}  // namespace weft::cost
