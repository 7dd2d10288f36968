// weft run: simulate a scenario file, or the bundled default scenario.
#include <fmt/format.h>
#include <memory>

#include "cli/commands.h"
#include "scenarios/report.h"
#include "scenarios/run_scenario.h"
#include "sim/fabric_registry.h"

namespace weft::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::string fabric;
  std::string format = "table";
};

void run(const RunArgs& a) {
  OutputFormat format = parse_output_format(a.format);
  Scenario scenario = a.scenario.empty() ? default_scenario() : load_scenario_file(a.scenario);
  if (!a.fabric.empty()) {
    find_fabric(a.fabric);
    scenario.fabric = a.fabric;
  }
  fmt::print("{}", format_scenario(run_scenario(scenario), format));
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate a scenario (YAML); without one, the bundled default scenario");
  cmd->add_option("scenario", args->scenario, "Scenario file (YAML)");
  cmd->add_option("--fabric", args->fabric,
                  "Override the scenario's fabric model (its packet settings are kept): " + fabric_names());
  cmd->add_option("--format", args->format, "table | csv | json")->capture_default_str()
      ->check(CLI::IsMember({"table", "csv", "json"}));
  return [args] { run(*args); };
}

}  // namespace weft::cli
