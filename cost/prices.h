// The price book: what each item of a bill of materials costs to buy (USD) or rent (USD per hour),
// and what it draws (W), each figure with its source and date. Items are named by dotted keys,
// "category.name" (gpu.rtx-3090, nic.cx7, switch.ib-400g-64p, cable.dac-400g, ...), the same path a
// scenario's `cost: prices:` section uses to override them (scenarios/cost_section.h). The data is in prices.cpp.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace weft::cost {

struct PriceEntry {
  double usd = 0;           // purchase price of one item
  double usd_per_hour = 0;  // rent of one item (cloud instances); 0 when bought
  double watts = 0;         // nameplate draw of one item (TDP, or a system's maximum)
  std::string source;       // where the price comes from, with its date; "estimate" when it is one
  std::string power_source;
};

struct PriceBook {
  std::map<std::string, PriceEntry, std::less<>> entries;  // by item key
};

// The bundled prices (prices.cpp), every entry with its source.
PriceBook default_prices();

// The categories an item key may start with, and what each prices (for messages and `--bom`).
struct Category {
  std::string_view name;         // "gpu"
  std::string_view description;  // "one GPU card or module (catalogue name)"
};
std::span<const Category> categories();

// Throws ConfigError (without a location; callers add theirs) when `key` names no item a bill of
// materials can contain: an unknown category, an unknown catalogue GPU / NIC / system, or a
// switch / cable key that does not follow its pattern. The message says what was expected.
void check_item_key(std::string_view key);

// The entry for an item, or nothing. A switch without an entry of its own takes its per-port price
// times its ports (switch.ib-400g-64p -> 64 x switch-port.ib-400g), the source saying so.
std::optional<PriceEntry> find_price(const PriceBook& book, std::string_view key);

}  // namespace weft::cost
