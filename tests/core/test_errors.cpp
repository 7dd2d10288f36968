// ConfigError as fields: where (file, line, column), key and message, and what() as printed.
#include <catch2/catch.hpp>

#include "sim/core/errors.h"

using weft::ConfigError;
using weft::SourceLocation;

TEST_CASE("errors: a located error prints file:line:column, the key, the message") {
  const ConfigError e(SourceLocation{"f.yaml", 3, 5}, "nodes", "expected 1 to 65536");
  CHECK(std::string(e.what()) == "f.yaml:3:5: nodes: expected 1 to 65536");
  CHECK(e.where().file == "f.yaml");
  CHECK(e.where().line == 3);
  CHECK(e.where().column == 5);
  CHECK(e.key() == "nodes");
  CHECK(e.message() == "expected 1 to 65536");
  // A message that names its key itself keeps the key as a field only.
  const ConfigError unknown(SourceLocation{"f.yaml", 2, 1}, "system.sed", "unknown key 'sed'",
                            ConfigError::KeyShown::in_message);
  CHECK(std::string(unknown.what()) == "f.yaml:2:1: unknown key 'sed'");
  CHECK(unknown.key() == "system.sed");
}

TEST_CASE("errors: without a place, what() is the message; a file alone has no line") {
  const ConfigError plain("precision: unknown 'fp7'");
  CHECK(std::string(plain.what()) == "precision: unknown 'fp7'");
  CHECK_FALSE(plain.where().known());
  CHECK(plain.key().empty());
  const ConfigError keyed(SourceLocation{}, "rate", "cannot read 'fast'");
  CHECK(std::string(keyed.what()) == "rate: cannot read 'fast'");
  CHECK(std::string(ConfigError(SourceLocation{"m.json"}, "", "cannot open").what()) == "m.json: cannot open");
}

TEST_CASE("errors: within() prefixes the enclosing place; the fields keep the innermost one") {
  // An error that knew no place takes the enclosing one (and its key, when it had none).
  const ConfigError keyed = ConfigError(SourceLocation{}, "rate", "cannot read 'fast'").within({"s.yaml", 5, 9});
  CHECK(std::string(keyed.what()) == "s.yaml:5:9: rate: cannot read 'fast'");
  CHECK(keyed.where().line == 5);
  CHECK(keyed.key() == "rate");
  const ConfigError lookup = ConfigError("unknown GPU 'h1000'").within({"s.yaml", 2, 9}, "gpus");
  CHECK(std::string(lookup.what()) == "s.yaml:2:9: gpus: unknown GPU 'h1000'");
  CHECK(lookup.key() == "gpus");
  CHECK(lookup.message() == "unknown GPU 'h1000'");
  // A located error (a profile file's) keeps its place: that is the line to change.
  const ConfigError inner(SourceLocation{"p.yaml", 2, 3}, "gem", "unknown key 'gem'",
                          ConfigError::KeyShown::in_message);
  const ConfigError outer = inner.within({"s.yaml", 4, 12});
  CHECK(std::string(outer.what()) == "s.yaml:4:12: p.yaml:2:3: unknown key 'gem'");
  CHECK(outer.where().file == "p.yaml");
  CHECK(outer.where().line == 2);
  CHECK(outer.key() == "gem");
  // An unknown enclosing place adds only its key.
  CHECK(std::string(ConfigError("no such NIC").within({}, "node").what()) == "node: no such NIC");
}

TEST_CASE("errors: at() rethrows a read's error as seen from its place, and passes values through") {
  CHECK(weft::at(SourceLocation{"s.yaml", 1, 1}, [] { return 7; }) == 7);
  // A reference stays one (catalogue lookups return references to static entries).
  static const int kEntry = 3;
  const int& same = weft::at(SourceLocation{}, "node", [&]() -> const int& { return kEntry; });
  CHECK(&same == &kEntry);
  try {
    weft::at(SourceLocation{"s.yaml", 7, 3}, "routing", [] { throw ConfigError("unknown policy 'x'"); });
    FAIL("no throw");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "s.yaml:7:3: routing: unknown policy 'x'");
    CHECK(e.where().line == 7);
  }
}
