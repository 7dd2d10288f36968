// The executor layer's weft subcommands (the Action type is the CLI layer's, cli/commands.h).
#pragma once

#include "cli/commands.h"

namespace weft::cli {

Action add_lower_command(CLI::App& app);
Action add_calibrate_command(CLI::App& app);
Action add_compare_real_command(CLI::App& app);

}  // namespace weft::cli
