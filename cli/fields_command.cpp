// weft fields [SECTION]: every key a scenario file takes, with its unit, its value when absent and
// what it is (its range, where it has one), from the field tables that read them.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/commands.h"
#include "scenarios/scenario_keys.h"
#include "sim/core/errors.h"

namespace weft::cli {
namespace {

void print_section(const KeySection& s) {
  fmt::print("# {}: {}\n", s.name, s.what);
  size_t width = 3;
  for (const KeyRow& r : s.rows) width = std::max(width, r.key.size());
  fmt::print("{:<{}} {:<14} {:<9} {}\n", "key", width, "default", "unit", "what it is");
  for (const KeyRow& r : s.rows) {
    fmt::print("{:<{}} {:<14} {:<9} {}\n", r.key, width, r.fallback.empty() ? "-" : r.fallback, r.unit, r.doc);
  }
}

// As docs/scenario-keys.md holds them (keys within their section).
void print_markdown(const KeySection& s) { fmt::print("## `{}`\n\n{}\n\n{}", s.name, s.what, s.markdown); }

void print_keys(const std::string& wanted, bool markdown) {
  const std::vector<KeySection> sections = scenario_keys();
  std::string names;
  bool first = true;
  for (const KeySection& s : sections) {
    names += (names.empty() ? "" : ", ") + s.name;
    if (!wanted.empty() && s.name != wanted) continue;
    if (!first) fmt::print("\n");
    markdown ? print_markdown(s) : print_section(s);
    first = false;
  }
  if (first) throw ConfigError(SourceLocation{}, "SECTION", fmt::format("unknown '{}' (expected {})", wanted, names));
}

struct FieldsArgs {
  std::string section;
  bool markdown = false;
};

}  // namespace

Action add_fields_command(CLI::App& app) {
  auto args = std::make_shared<FieldsArgs>();
  CLI::App* cmd = app.add_subcommand("fields", "List every key a scenario file takes: unit, default, range, meaning");
  cmd->add_option("section", args->section,
                  "Only this section: scenario, system, system.custom, fabric.router, fabric, workload.collectives, "
                  "workload.traffic, workload.flows, "
                  "workload.training, workload.trace or cost");
  cmd->add_flag("--markdown", args->markdown, "As Markdown tables (docs/scenario-keys.md)");
  return [args] { print_keys(args->section, args->markdown); };
}

}  // namespace weft::cli
