// weft systems: the catalogue of named systems, one line each; with --fields, every field that
// `--set KEY=VALUE` (and a scenario's `system:` map) changes, with its value in one system; with
// --yaml, that system as a scenario's `system:` section with every field written out.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/commands.h"
#include "scenarios/field_yaml.h"
#include "topologies/systems.h"

namespace weft::cli {
namespace {

struct SystemsArgs {
  bool fields = false;
  bool yaml = false;
  std::string system = "dgx-h100";
};

void print_fields(const std::string& name) {
  const ClusterSpec spec = system_spec(name);
  fmt::print("# the fields of {} that --set KEY=VALUE changes\n", name);
  fmt::print("{:<28} {:<16} {:<6} {}\n", "key", "value", "unit", "what it is");
  for (const Field<ClusterSpec>& f : system_fields()) {
    const std::string value = f.show(spec);
    fmt::print("{:<28} {:<16} {:<6} {}\n", f.key, value.empty() ? "\"\"" : value, f.unit, f.doc);
  }
}

}  // namespace

Action add_systems_command(CLI::App& app) {
  auto args = std::make_shared<SystemsArgs>();
  CLI::App* cmd = app.add_subcommand("systems", "List the catalogue's systems (use with --system NAME)");
  cmd->add_flag("--fields", args->fields, "List the fields --set KEY=VALUE changes, with their values in --system");
  cmd->add_flag("--yaml", args->yaml, "Print --system as a scenario's system: section, every field written out");
  cmd->add_option("--system", args->system, "The system whose values --fields and --yaml show")->capture_default_str();
  return [args] {
    if (args->yaml) {
      fmt::print("{}", system_yaml(args->system, system_spec(args->system)));
      return;
    }
    if (args->fields) {
      print_fields(args->system);
      return;
    }
    for (const SystemPreset& p : system_presets()) fmt::print("{:<20} {}\n", p.name, p.description);
  };
}

}  // namespace weft::cli
