#include "cli/system_options.h"

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "topologies/systems.h"

namespace weft::cli {

void add_system_options(CLI::App* cmd, SystemArgs& args) {
  cmd->add_option("--system", args.system, "A catalogue system (see `weft systems`): dgx-h100, pcie-4090x8, ...");
  cmd->add_option("--nodes", args.nodes, "Nodes of that system (default 1)")->check(CLI::Range(1, 65536));
  cmd->add_option("--set", args.sets,
                  "Change one field of the system: KEY=VALUE, e.g. node.pcie_lanes=8 (repeatable; the keys: weft "
                  "systems --fields)");
}

ClusterSpec resolve_system(const SystemArgs& args) {
  return weft::resolve_system(args.system, args.nodes, args.sets, "--set");
}

}  // namespace weft::cli
