// weft trace info FILES...: what a trace holds (ranks, ops, collectives by type and size, process
// groups, the profiler step). weft trace export SCENARIO --out DIR: the scenario's training step
// (generated or traced) as Chakra ETs, one file per rank, for ASTRA-sim or any Chakra consumer.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "scenarios/scenario.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/traces/trace.h"
#include "workloads/training.h"

namespace weft::cli {
namespace {

struct InfoArgs {
  std::vector<std::string> files;
  std::string format = "auto";
  uint32_t ranks = 0;
  int64_t step = -1;
  bool whole_trace = false;
  std::string comm_groups;
  bool fill_missing_ranks = false;
};

TraceSource source_of(const InfoArgs& a) {
  TraceSource s;
  s.format = parse_trace_format(a.format);
  if (a.files.size() == 1 && a.files[0].find("{rank}") != std::string::npos) {
    s.pattern = a.files[0];
  } else {
    s.files = a.files;
  }
  if (a.ranks > 0) s.ranks = a.ranks;
  if (a.step >= 0) s.step = static_cast<uint32_t>(a.step);
  s.whole_trace = a.whole_trace;
  s.comm_group_file = a.comm_groups;
  s.fill_missing_ranks = a.fill_missing_ranks;
  return s;
}

void info(const InfoArgs& a) {
  TraceMetadata meta;
  const Workload w = read_trace(source_of(a), &meta);
  TraceInfo i = trace_info(w);
  i.step = meta.step;
  i.step_duration = meta.step_duration;
  fmt::print("# {} trace, {} file{}, {} records", to_string(meta.format), meta.files.size(),
             meta.files.size() == 1 ? "" : "s", meta.records);
  if (!meta.schema.empty()) fmt::print(", schema {}", meta.schema);
  if (!meta.backend.empty()) fmt::print(", backend {}", meta.backend);
  if (meta.world_size > 0) fmt::print(", world size {}", meta.world_size);
  fmt::print("\n");
  if (meta.dropped_cpu_collectives > 0) {
    fmt::print("# {} CPU-side collective nodes (is_cpu_op, no comm_type) are not network operations: left out\n",
               meta.dropped_cpu_collectives);
  }
  fmt::print("{}", format_trace_info(i));
}

struct ExportArgs {
  std::string scenario;
  std::string out;
  std::string variant;
  std::vector<std::string> sets;
};

// The scenario (or its compare: variant `name`) whose training step to export.
const Scenario& pick(const Scenario& s, const std::string& name) {
  if (name.empty() || name == s.baseline) return s;
  std::vector<std::string> names{s.baseline};
  for (const ScenarioVariant& v : s.compare) {
    if (v.name == name) return *v.scenario;
    names.push_back(v.name);
  }
  throw weft::ConfigError(fmt::format("--variant '{}': the scenario has '{}'", name, fmt::join(names, "', '")));
}

void export_trace(const ExportArgs& a) {
  const Scenario all = load_scenario_file(a.scenario, a.sets);
  const Scenario& s = pick(all, a.variant);
  if (!s.training()) {
    throw ConfigError(
        fmt::format("{}: only a training step (workload: model: or trace:) exports as Chakra ETs", a.scenario));
  }
  const TrainingWorkload& t = *s.training();
  const Workload w = t.trace ? load_trace_workload(*t.trace, t.gpu, s.system.ranks)
                             : generate_training(t.spec, catalogue::gpu(t.gpu), t.profile);
  std::filesystem::create_directories(a.out);
  const std::string stem = std::filesystem::path(a.scenario).stem().string();
  const std::vector<std::string> files = write_chakra_trace(w, (std::filesystem::path(a.out) / stem).string());
  fmt::print(
      "wrote {} files ({} ranks, {} ops) to {}: {}.{{0..{}}}.et and the process groups\n", files.size(), w.ranks(),
      [&] {
        size_t n = 0;
        for (const Program& p : w.programs) n += p.ops.size();
        return n;
      }(),
      a.out, stem, w.ranks() - 1);
}

}  // namespace

Action add_trace_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("trace", "Inspect Chakra / PyTorch-profiler traces, export steps as Chakra ETs");
  cmd->require_subcommand(1);
  auto i = std::make_shared<InfoArgs>();
  CLI::App* info_cmd =
      cmd->add_subcommand("info", "Summarise a trace: ranks, ops, collectives by type and size, groups");
  info_cmd->add_option("files", i->files, "Trace files, one per rank, or one path with {rank}")->required();
  info_cmd->add_option("--format", i->format, "auto | chakra | chakra_json | kineto")->capture_default_str();
  info_cmd->add_option("--ranks", i->ranks, "Ranks of a {rank} pattern (default: the files that exist)");
  info_cmd->add_option("--step", i->step, "Kineto: the ProfilerStep#N to read (default: the first)");
  info_cmd->add_flag("--whole-trace", i->whole_trace, "Kineto: ignore ProfilerStep windows");
  info_cmd->add_option("--comm-groups", i->comm_groups, "ASTRA-sim comm_group.json for the process groups");
  info_cmd->add_flag("--fill-missing-ranks", i->fill_missing_ranks,
                     "A trace of some ranks only: the others copy the nearest lower rank (data parallel)");
  auto e = std::make_shared<ExportArgs>();
  CLI::App* export_cmd = cmd->add_subcommand("export", "Write a scenario's training step as Chakra ETs");
  export_cmd->add_option("scenario", e->scenario, "Scenario file (YAML) with a training workload")->required();
  export_cmd->add_option("--out", e->out, "Folder for the .et files (created)")->required();
  export_cmd->add_option("--variant", e->variant, "A compare: variant's name (default: the baseline)");
  export_cmd->add_option("--set", e->sets, "KEY=VALUE changes, as for weft run");
  return [info_cmd, i, e] {
    if (info_cmd->parsed()) {
      info(*i);
    } else {
      export_trace(*e);
    }
  };
}

}  // namespace weft::cli
