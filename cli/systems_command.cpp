// weft systems: the catalogue of named systems, one line each.
#include <fmt/format.h>

#include "cli/commands.h"
#include "topologies/systems.h"

namespace weft::cli {

Action add_systems_command(CLI::App& app) {
  app.add_subcommand("systems", "List the catalogue's systems (use with --system NAME)");
  return [] {
    for (const SystemPreset& p : system_presets()) fmt::print("{:<20} {}\n", p.name, p.description);
  };
}

}  // namespace weft::cli
