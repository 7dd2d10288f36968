// Every key a scenario file takes, section by section, from the field tables that read them: what
// `weft fields` prints and README's tables show (a test proves the README holds them).
#pragma once

#include <string>
#include <vector>

namespace weft {

struct KeyRow {
  std::string key;       // in full, e.g. "workload.parallel.tp", "workload.collectives[].op"
  std::string unit;      // "" when none
  std::string fallback;  // the value when the key is absent; "" when it depends on other keys
  std::string doc;       // ends with the range, where the key has one
};

struct KeySection {
  std::string name;  // "workload.collectives", "cost", ...
  std::string what;  // one line
  std::vector<KeyRow> rows;
  std::string markdown;  // the section's table as README shows it (keys within the section)
};

// scenario (the top level), system (a catalogue system), system.custom, fabric.router (every
// model's), fabric (the packet model's keys), the workload forms (collectives, traffic, flows,
// training, trace) and cost, in that order.
std::vector<KeySection> scenario_keys();

}  // namespace weft
