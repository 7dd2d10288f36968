// The weft subcommands. Each adds itself to the app and returns the action to run once parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace weft::cli {

using Action = std::function<void()>;

Action add_collective_command(CLI::App& app);
Action add_run_command(CLI::App& app);
Action add_systems_command(CLI::App& app);
Action add_fields_command(CLI::App& app);
Action add_topo_command(CLI::App& app);
Action add_trace_command(CLI::App& app);
Action add_plan_command(CLI::App& app);
Action add_validate_command(CLI::App& app);
Action add_ep_command(CLI::App& app);
// The executor layer's subcommands (lower, calibrate, compare-real) are in executor/commands.h.

}  // namespace weft::cli
