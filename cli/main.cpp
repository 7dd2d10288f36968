// weft: the command line. The only place (with the Python bindings) that catches and prints.
#include <cstdio>
#include <fmt/format.h>

#include "cli/commands.h"
#include "sim/core/errors.h"

int main(int argc, char** argv) {
  CLI::App app{"weft: simulate GPU-cluster fabrics and collectives"};
  app.set_version_flag("--version", std::string("weft ") + WEFT_VERSION);
  app.require_subcommand(1);
  weft::cli::Action collective = weft::cli::add_collective_command(app);
  weft::cli::Action run = weft::cli::add_run_command(app);
  weft::cli::Action systems = weft::cli::add_systems_command(app);
  weft::cli::Action topo = weft::cli::add_topo_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (app.got_subcommand("collective")) collective();
    if (app.got_subcommand("run")) run();
    if (app.got_subcommand("systems")) systems();
    if (app.got_subcommand("topo")) topo();
  } catch (const weft::ConfigError& e) {
    fmt::print(stderr, "weft: error: {}\n", e.what());
    return 2;
  } catch (const weft::ModelError& e) {
    fmt::print(stderr, "weft: model error: {}\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft: internal error (please report): {}\n", e.what());
    return 4;
  }
  return 0;
}
