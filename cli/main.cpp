// weft: the command line. The only place (with the Python bindings) that catches and prints, and the
// one file that sees both the CLI and the executor layers (cli/CMakeLists.txt).
#include <fmt/format.h>
#include <cstdio>

#include "cli/commands.h"
#include "executor/commands.h"
#include "sim/core/engine.h"
#include "sim/core/errors.h"

int main(int argc, char** argv) {
  CLI::App app{"weft: simulate GPU-cluster fabrics and collectives"};
  app.set_version_flag("--version", std::string("weft ") + WEFT_VERSION);
  app.require_subcommand(1);
  weft::cli::Action collective = weft::cli::add_collective_command(app);
  weft::cli::Action run = weft::cli::add_run_command(app);
  weft::cli::Action systems = weft::cli::add_systems_command(app);
  weft::cli::Action fields = weft::cli::add_fields_command(app);
  weft::cli::Action topo = weft::cli::add_topo_command(app);
  weft::cli::Action trace = weft::cli::add_trace_command(app);
  weft::cli::Action plan = weft::cli::add_plan_command(app);
  weft::cli::Action lower = weft::cli::add_lower_command(app);
  weft::cli::Action calibrate = weft::cli::add_calibrate_command(app);
  weft::cli::Action compare_real = weft::cli::add_compare_real_command(app);
  weft::cli::Action validate = weft::cli::add_validate_command(app);
  weft::cli::Action ep = weft::cli::add_ep_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  // `weft validate` answers "invalid" with 1, like a linter; other commands keep 2 (bad input) and
  // 3 (the model cannot do it) apart.
  const bool checking = app.got_subcommand("validate");
  try {
    if (app.got_subcommand("collective")) collective();
    if (app.got_subcommand("run")) run();
    if (app.got_subcommand("systems")) systems();
    if (app.got_subcommand("fields")) fields();
    if (app.got_subcommand("topo")) topo();
    if (app.got_subcommand("trace")) trace();
    if (app.got_subcommand("plan")) plan();
    if (app.got_subcommand("lower")) lower();
    if (app.got_subcommand("calibrate")) calibrate();
    if (app.got_subcommand("compare-real")) compare_real();
    if (app.got_subcommand("validate")) validate();
    if (app.got_subcommand("ep")) ep();
  } catch (const weft::ConfigError& e) {
    fmt::print(stderr, "weft: error: {}\n", e.what());
    return checking ? 1 : 2;
  } catch (const weft::ModelError& e) {
    fmt::print(stderr, "weft: model error: {}\n", e.what());
    return checking ? 1 : 3;
  } catch (const weft::RunStopped&) {
    fmt::print(stderr, "weft: interrupted\n");
    return 130;  // 128 + SIGINT, as shells report a Ctrl-C
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft: internal error (please report): {}\n", e.what());
    return 4;
  }
  return 0;
}
