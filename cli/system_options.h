// The options that name a catalogue system on the command line: --system NAME --nodes N
// --set key=value (repeatable), shared by `weft topo` and `weft collective`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "topologies/clusters.h"

namespace weft::cli {

struct SystemArgs {
  std::string system;             // preset name; empty = not given
  int nodes = 0;                  // 0 = the preset's
  std::vector<std::string> sets;  // "node.pcie_lanes=8"
};

void add_system_options(CLI::App* cmd, SystemArgs& args);

// The preset with --nodes and every --set applied (ConfigError naming the bad one).
ClusterSpec resolve_system(const SystemArgs& args);

}  // namespace weft::cli
