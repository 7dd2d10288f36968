// weft calibrate MEASURED... --out PROFILE.yaml and weft compare-real --predicted P --measured M.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "executor/calibrate.h"
#include "executor/commands.h"
#include "executor/compare.h"
#include "executor/nccl_tests_measured.h"
#include "sim/core/errors.h"

namespace weft::cli {
namespace {

struct CalibrateArgs {
  std::vector<std::string> measured;
  std::string out;
  bool holdout = false;
  CollectiveRequest logs;  // for nccl-tests logs: --system, --nodes, --set, --op
};

// PROFILE.yaml -> PROFILE.network.yaml
std::string network_path(const std::string& out) {
  std::filesystem::path p(out);
  return (p.parent_path() / (p.stem().string() + ".network.yaml")).string();
}

void calibrate_files(const CalibrateArgs& a) {
  std::vector<Measured> ms;
  for (const std::string& f : a.measured) {
    if (looks_like_json(f)) {
      ms.push_back(load_measured(f));
    } else if (a.logs.system.empty()) {
      throw ConfigError(
          fmt::format("{} is not a measured.json; as an nccl-tests log it needs --system (the machine "
                      "it ran on, whose tuner names each size's series)",
                      f));
    } else {
      ms.push_back(measured_from_nccl_tests(f, a.logs));
    }
  }
  const Calibration c = calibrate(ms, CalibrationOptions{a.holdout});
  fmt::print("{}", format_calibration(c));
  const std::filesystem::path parent = std::filesystem::path(a.out).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  write_file_atomically(a.out, compute_profile_yaml(c.profile));
  write_file_atomically(network_path(a.out), network_profile_yaml(c.profile));
  fmt::print("wrote {} (compute efficiencies) and {} (latency/bandwidth fits)\n", a.out, network_path(a.out));
}

struct CompareArgs {
  std::string predicted;
  std::string measured;
  size_t rows = 40;
};

void compare(const CompareArgs& a) {
  const Predicted p = predicted_from_json(read_json_file(a.predicted), a.predicted);
  const Measured m = load_measured(a.measured);
  fmt::print("# predicted: {} ({})\n# measured: {} ({} {}, {} repeats)\n", a.predicted, p.model, a.measured, m.executor,
             m.mode, m.repeats);
  fmt::print("{}", format_comparison(compare_real(p, m), a.rows));
}

}  // namespace

Action add_calibrate_command(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Fit latency/bandwidth/efficiency parameters to measured.json files or nccl-tests logs");
  cmd->add_option("measured", a->measured, "measured.json files from weft-exec or weft-exec-mpi, or nccl-tests logs")
      ->required();
  cmd->add_option("--system", a->logs.system, "For nccl-tests logs: the catalogue system they ran on");
  cmd->add_option("--nodes", a->logs.nodes, "For nccl-tests logs: nodes (default: the log's hosts)");
  cmd->add_option("--set", a->logs.sets, "For nccl-tests logs: KEY=VALUE changes of the system");
  cmd->add_option("--op", a->logs.op, "For nccl-tests logs that do not name their test: the collective")
      ->capture_default_str();
  cmd->add_option("--out", a->out, "profile.yaml (compute; a .network.yaml is written beside it)")->required();
  cmd->add_flag("--holdout", a->holdout, "Fit each series on every other size and report the error on the rest");
  return [a] { calibrate_files(*a); };
}

Action add_compare_real_command(CLI::App& app) {
  auto a = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand("compare-real", "weft's predicted time per op against a real measurement");
  cmd->add_option("--predicted", a->predicted, "predicted.json from weft lower")->required();
  cmd->add_option("--measured", a->measured, "measured.json from weft-exec or weft-exec-mpi")->required();
  cmd->add_option("--rows", a->rows, "Per-op rows to print")->capture_default_str();
  return [a] { compare(*a); };
}

}  // namespace weft::cli
