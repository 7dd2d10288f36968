// weft validate FILE: loads a scenario and every compare: variant and checks them without
// simulating. Loading already checks keys, units and plans (ConfigError with file:line:column);
// this adds what a run would find before its first event: each system builds, and the fabric can
// run as many simulations as the workload asks for in one process. --resolved prints the scenario
// as read instead, every key written out.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_yaml.h"
#include "sim/fabric_registry.h"

namespace weft::cli {
namespace {

// The same checks run_scenario and replay make before simulating.
void check_runnable(const Scenario& s) {
  build_system(s.system);
  if (s.serving() && s.serving()->spec.tp > 1) {
    require_simulations(s.fabric, 2, "fabrics", "serve with tp 1, or another fabric");
  }
  if (!s.training() && !s.traffic() && !s.serving()) {
    require_simulations(s.fabric, s.collectives().size(), "collectives", "keep one collective in the scenario");
  }
  if (s.training() && s.training()->timing != CollectiveTiming::shared) {
    require_simulations(s.fabric, 2, "fabrics", "use collective timing 'shared' with this fabric");
  }
}

struct ValidateArgs {
  std::string file;
  bool resolved = false;
};

void validate(const ValidateArgs& args) {
  const Scenario scenario = load_scenario_file(args.file);
  if (args.resolved) {
    check_runnable(scenario);
    fmt::print("{}", scenario_yaml(scenario));
    return;
  }
  const std::string& file = args.file;
  std::vector<std::string> names{fmt::format("'{}'", scenario.baseline)};  // quoted: names may hold commas
  check_runnable(scenario);
  for (const ScenarioVariant& v : scenario.compare) {
    check_runnable(*v.scenario);
    names.push_back(fmt::format("'{}'", v.name));
  }
  fmt::print("{}: ok ({} variant{}: {})\n", file, names.size(), names.size() == 1 ? "" : "s", fmt::join(names, ", "));
}

}  // namespace

Action add_validate_command(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd =
      app.add_subcommand("validate", "Check a scenario file and its compare: variants without running them");
  cmd->add_option("file", args->file, "Scenario file (YAML)")->required();
  cmd->add_flag("--resolved", args->resolved,
                "Print the scenario as read, every key written out (defaults included); it reads back the same");
  return [args] { validate(*args); };
}

}  // namespace weft::cli
