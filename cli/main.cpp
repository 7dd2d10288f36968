// weft: the command line. The only place (with the Python bindings) that catches and prints, and the
// one file that sees both the CLI and the executor layers (cli/CMakeLists.txt).
#include <fmt/format.h>
#include <cstdio>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "executor/commands.h"
#include "sim/core/engine.h"
#include "sim/core/errors.h"

namespace {

struct Command {
  std::string_view name;  // as the add function names its subcommand
  weft::cli::Action (*add)(CLI::App&);
};

constexpr Command kCommands[] = {
    {"collective", weft::cli::add_collective_command},
    {"run", weft::cli::add_run_command},
    {"systems", weft::cli::add_systems_command},
    {"fields", weft::cli::add_fields_command},
    {"topo", weft::cli::add_topo_command},
    {"trace", weft::cli::add_trace_command},
    {"plan", weft::cli::add_plan_command},
    {"lower", weft::cli::add_lower_command},
    {"calibrate", weft::cli::add_calibrate_command},
    {"compare-real", weft::cli::add_compare_real_command},
    {"validate", weft::cli::add_validate_command},
    {"ep", weft::cli::add_ep_command},
};

// The subcommands this command line needs. Building one's options and validators costs more CPU
// than the whole parse (callgrind of `weft --version`: 1.8 M of its 4.8 M instructions went to
// building all twelve; issue 19, item 5), so a line that names a command builds that one alone.
// Help asked before any command lists them all, and so does a word that names none (CLI11 then
// reports it); `weft --version` and a bare `weft` need none. The program's only own options are
// flags, so the first word that is not an option is the command.
std::vector<const Command*> commands_needed(int argc, char** argv) {
  std::vector<const Command*> all;
  for (const Command& c : kCommands) all.push_back(&c);
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "-h" || word == "--help") return all;
    if (word.starts_with('-')) continue;
    for (const Command* c : all) {
      if (c->name == word) return {c};
    }
    return all;
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft: simulate GPU-cluster fabrics and collectives"};
  app.set_version_flag("--version", std::string("weft ") + WEFT_VERSION);
  app.require_subcommand(1);
  std::vector<std::pair<std::string_view, weft::cli::Action>> actions;
  for (const Command* c : commands_needed(argc, argv)) actions.emplace_back(c->name, c->add(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  // `weft validate` answers "invalid" with 1, like a linter; other commands keep 2 (bad input) and
  // 3 (the model cannot do it) apart. (By the parsed command's name: CLI11's got_subcommand throws
  // for a command this line did not build.)
  const CLI::App* chosen = app.get_subcommands().front();
  const bool checking = chosen->get_name() == "validate";
  try {
    for (const auto& [name, action] : actions) {
      if (name == chosen->get_name()) action();
    }
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
