// The YAML door's errors carry where they are as fields (file, line, column, key), the ones the
// Python package hands to weft.ConfigError; the printed text stays as before.
#include <catch2/catch.hpp>
#include <string>

#include "scenarios/scenario.h"
#include "sim/core/errors.h"

using namespace weft;

namespace {

const std::string kScenario = R"(name: fields
system:
  topology: ring
  ranks: 4
  link:
    rate: 100Gbps
    latency: 500ns
workload:
  collectives:
    - op: all_reduce
      size: 1MiB
)";

ConfigError error_of(const std::string& from, const std::string& to) {
  std::string text = kScenario;
  text.replace(text.find(from), from.size(), to);
  try {
    load_scenario_text(text, "f.yaml");
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("the scenario loaded");
  return ConfigError("");
}

}  // namespace

TEST_CASE("config errors: an unknown key has its line, column and dotted key", "[scenario]") {
  const ConfigError e = error_of("    latency: 500ns\n", "    latency: 500ns\n    colour: blue\n");
  CHECK(std::string(e.what()) == "f.yaml:8:5: unknown key 'colour'");
  CHECK(e.where().file == "f.yaml");
  CHECK(e.where().line == 8);
  CHECK(e.where().column == 5);
  CHECK(e.key() == "system.link.colour");
}

TEST_CASE("config errors: a unit the parser cannot read is at its value, with its key", "[scenario]") {
  // Line 6 `    rate: fast`: the value starts at column 11.
  const ConfigError e = error_of("rate: 100Gbps", "rate: fast");
  CHECK(e.where().line == 6);
  CHECK(e.where().column == 11);
  CHECK(e.key() == "rate");
  CHECK(std::string(e.what()).starts_with("f.yaml:6:11: rate: cannot read 'fast'"));
}

TEST_CASE("config errors: a catalogue lookup fails at its YAML line", "[scenario]") {
  // Line 10, `    - op: all_ruduce`: the value at column 11.
  const ConfigError e = error_of("op: all_reduce", "op: all_ruduce");
  CHECK(e.where().line == 10);
  CHECK(e.where().column == 11);
  CHECK(e.key() == "op");
  CHECK(std::string(e.what()).starts_with("f.yaml:10:11: op: unknown collective 'all_ruduce'"));
}
