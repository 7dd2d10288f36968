// weft lower SCENARIO --out DIR: a scenario's step as schedule.json + predicted.json for the real
// executors (docs/schedule-json.md); --gpu-sweep GPU: the single-GPU calibration schedule instead.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "executor/calibrate.h"
#include "executor/commands.h"
#include "executor/lower.h"
#include "scenarios/scenario.h"
#include "sim/core/errors.h"
#include "sim/core/units.h"

namespace weft::cli {
namespace {

struct LowerArgs {
  std::string scenario;
  std::string out;
  std::string variant;
  std::vector<std::string> sets;
  std::string calibration;
  std::string gpu_sweep;
  uint64_t max_gemm = 8192;
  std::string max_copy = "1GiB";
};

void lower(const LowerArgs& a) {
  if (a.scenario.empty() == a.gpu_sweep.empty()) {
    throw ConfigError("weft lower: give a SCENARIO or --gpu-sweep GPU (one of them)");
  }
  Lowered l;
  if (!a.gpu_sweep.empty()) {
    l = lower_gpu_sweep(a.gpu_sweep, a.max_gemm, parse_bytes(a.max_copy).count());
  } else {
    l = lower_scenario(load_scenario_file(a.scenario, a.sets), a.variant);
    if (!a.sets.empty()) l.schedule.source += fmt::format(" --set {}", fmt::join(a.sets, " --set "));
  }
  std::filesystem::create_directories(a.out);
  const std::filesystem::path dir(a.out);
  save_schedule(l.schedule, (dir / "schedule.json").string());
  write_file_atomically((dir / "predicted.json").string(), to_json(l.predicted).dump(1) + "\n");
  size_t ops = 0;
  for (const auto& p : l.schedule.programs) ops += p.size();
  fmt::print(
      "wrote {}/schedule.json ({} ranks, {} communicators, {} ops, fingerprint {}) and predicted.json (step {:.3f} ms, "
      "{})\n",
      a.out, l.schedule.ranks(), l.schedule.comms.size(), ops, fingerprint(l.schedule), l.predicted.step_ps * 1e-9,
      l.predicted.model);
  if (!a.calibration.empty()) {
    const NetworkProfile profile = load_network_profile(a.calibration);
    const Predicted p = recalibrated(l.schedule, l.predicted, profile, "calibrated: " + a.calibration);
    write_file_atomically((dir / "predicted-calibrated.json").string(), to_json(p).dump(1) + "\n");
    fmt::print("wrote {}/predicted-calibrated.json (step {:.3f} ms with {})\n", a.out, p.step_ps * 1e-9, a.calibration);
  }
}

}  // namespace

Action add_lower_command(CLI::App& app) {
  auto a = std::make_shared<LowerArgs>();
  CLI::App* cmd = app.add_subcommand(
      "lower", "Write a scenario's step as schedule.json + predicted.json for weft-exec / weft-exec-mpi");
  cmd->add_option("scenario", a->scenario, "Scenario file (YAML): a training step or workload: collectives:");
  cmd->add_option("--out", a->out, "Folder for schedule.json and predicted.json (created)")->required();
  cmd->add_option("--variant", a->variant, "A compare: variant's name (default: the baseline)");
  cmd->add_option("--set", a->sets, "KEY=VALUE changes, as for weft run");
  cmd->add_option("--calibration", a->calibration,
                  "A PROFILE.network.yaml from weft calibrate: also write predicted-calibrated.json");
  cmd->add_option("--gpu-sweep", a->gpu_sweep,
                  "Instead of a scenario: the single-GPU calibration schedule of this catalogue GPU");
  cmd->add_option("--max-gemm", a->max_gemm, "--gpu-sweep: largest square GEMM side")->capture_default_str();
  cmd->add_option("--max-copy", a->max_copy, "--gpu-sweep: largest copy")->capture_default_str();
  return [a] { lower(*a); };
}

}  // namespace weft::cli
