// weft ep: MoE expert-parallel dispatch and combine as DeepEP runs them (collectives/ep_exchange.h), on
// a catalogue system, with the time and the bandwidth DeepEP's benchmark would print.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cli/commands.h"
#include "cli/system_options.h"
#include "collectives/ep_exchange.h"
#include "collectives/simulate.h"
#include "scenarios/report.h"
#include "sim/core/errors.h"
#include "sim/core/names.h"
#include "sim/fabric_registry.h"
#include "topologies/builders.h"

namespace weft::cli {
namespace {

struct EpArgs {
  SystemArgs system;
  std::string kernel = "normal";
  std::string phase = "both";
  EpRouting routing;
  std::string fabric = "flow";
  uint64_t seed = 1;
  std::string format = "table";
};

struct PhaseRow {
  const char* phase;
  Time time;
  EpExchange exchange;
  double nvlink_bytes = 0;   // rank 0's sends to GPUs of its node
  double network_bytes = 0;  // rank 0's sends to other nodes
};

PhaseRow run_phase(EpPhase phase, const EpArgs& a, const ClusterSpec& spec, const Topology& topology) {
  const auto ranks = static_cast<uint32_t>(topology.gpus().size());
  const EpKernel kernel = a.kernel == "normal" ? EpKernel::normal : EpKernel::low_latency;
  PhaseRow row{phase == EpPhase::dispatch ? "dispatch" : "combine", Time(),
               ep_exchange(kernel, phase, a.routing, ranks, static_cast<uint32_t>(spec.node.gpus))};
  for (const Stream& s : row.exchange.schedule.streams) {
    if (s.rank != 0) continue;
    const uint32_t peer = s.runs.front().peer;
    (peer < static_cast<uint32_t>(spec.node.gpus) ? row.nvlink_bytes : row.network_bytes) +=
        static_cast<double>(s.runs.front().bytes.count());
  }
  row.time = simulate(row.exchange.schedule, topology, {{a.fabric, a.seed}}).time;
  return row;
}

double bandwidth_GBps(const PhaseRow& r) { return r.exchange.counted_bytes / r.time.seconds() / 1e9; }

std::string format_rows(const EpArgs& a, const ClusterSpec& spec, const std::vector<PhaseRow>& rows,
                        OutputFormat format) {
  if (format == OutputFormat::json) {
    nlohmann::json j = {{"system", a.system.system},
                        {"nodes", spec.nodes},
                        {"kernel", a.kernel},
                        {"fabric", a.fabric},
                        {"tokens", a.routing.tokens},
                        {"hidden", a.routing.hidden},
                        {"experts", a.routing.experts},
                        {"topk", a.routing.topk},
                        {"topk_groups", a.routing.topk_groups},
                        {"phases", nlohmann::json::array()}};
    for (const PhaseRow& r : rows) {
      j["phases"].push_back({{"phase", r.phase},
                             {"time_us", r.time.microseconds()},
                             {"bandwidth_GBps", bandwidth_GBps(r)},
                             {"counted_as", r.exchange.counted_as},
                             {"nvlink_bytes_per_rank", r.nvlink_bytes},
                             {"network_bytes_per_rank", r.network_bytes}});
    }
    return j.dump(2) + "\n";
  }
  const bool csv = format == OutputFormat::csv;
  std::string out = csv ? "phase,time_us,bandwidth_GBps,counted_as,nvlink_MB_per_rank,network_MB_per_rank\n"
                        : fmt::format("{:<9} {:>12} {:>16} {:>10} {:>15} {:>16}\n", "phase", "time(us)",
                                      "bandwidth(GB/s)", "counted", "NVLink MB/rank", "network MB/rank");
  for (const PhaseRow& r : rows) {
    const auto values = std::make_tuple(r.phase, r.time.microseconds(), bandwidth_GBps(r), r.exchange.counted_as,
                                        r.nvlink_bytes / 1e6, r.network_bytes / 1e6);
    out += std::apply(
        [csv](const auto&... v) {
          return csv ? fmt::format("{},{:.2f},{:.2f},{},{:.3f},{:.3f}\n", v...)
                     : fmt::format("{:<9} {:>12.2f} {:>16.2f} {:>10} {:>15.3f} {:>16.3f}\n", v...);
        },
        values);
  }
  return out;
}

void run(const EpArgs& a) {
  const OutputFormat format = parse_output_format(a.format);
  if (a.system.system.empty()) throw ConfigError("weft ep needs --system: the GPUs, NVLink and NICs it runs on");
  find_fabric(a.fabric);
  const ClusterSpec spec = resolve_system(a.system);
  const Topology topology = build_cluster(spec);
  std::vector<EpPhase> phases;
  if (a.phase != "combine") phases.push_back(EpPhase::dispatch);
  if (a.phase != "dispatch") phases.push_back(EpPhase::combine);
  require_simulations(a.fabric, phases.size(), "phases", "give --phase dispatch or --phase combine");
  std::vector<PhaseRow> rows;
  for (EpPhase p : phases) rows.push_back(run_phase(p, a, spec, topology));
  if (format == OutputFormat::table) {
    const auto ranks = static_cast<uint32_t>(topology.gpus().size());
    fmt::print(
        "# weft ep: DeepEP {} kernels on {} x{} nodes, {} ranks ({} fabric): {} tokens per rank, hidden {}, "
        "top-{} of {} experts{}\n",
        a.kernel, a.system.system, spec.nodes, ranks, a.fabric, a.routing.tokens, a.routing.hidden, a.routing.topk,
        a.routing.experts, a.routing.topk_groups ? fmt::format(" in {} node groups", a.routing.topk_groups) : "");
    fmt::print("# a token picks a given node with p = {:.4f}, a given rank with p = {:.4f}\n",
               ep_node_probability(a.routing, static_cast<uint32_t>(spec.nodes)),
               ep_rank_probability(a.routing, ranks, static_cast<uint32_t>(spec.nodes)));
  }
  fmt::print("{}", format_rows(a, spec, rows, format));
}

}  // namespace

Action add_ep_command(CLI::App& app) {
  auto args = std::make_shared<EpArgs>();
  EpRouting& r = args->routing;
  CLI::App* cmd = app.add_subcommand(
      "ep", "MoE expert-parallel dispatch and combine as DeepEP's kernels run them, with DeepEP's bandwidth");
  add_system_options(cmd, args->system);
  cmd->add_option("--kernel", args->kernel, "normal (throughput, NVLink forwarding) | low-latency (per expert)")
      ->capture_default_str()
      ->check(CLI::IsMember({"normal", "low-latency"}));
  cmd->add_option("--phase", args->phase, "dispatch | combine | both")
      ->capture_default_str()
      ->check(CLI::IsMember({"dispatch", "combine", "both"}));
  cmd->add_option("--tokens", r.tokens, "Tokens per rank")->capture_default_str()->check(CLI::Range(1u, 1u << 24));
  cmd->add_option("--hidden", r.hidden, "Elements per token")->capture_default_str()->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--experts", r.experts, "Routed experts over all ranks")->capture_default_str();
  cmd->add_option("--topk", r.topk, "Experts per token")->capture_default_str()->check(CLI::Range(1u, 1024u));
  cmd->add_option("--topk-groups", r.topk_groups, "Nodes a token may use (node-limited routing); 0 = any")
      ->capture_default_str();
  cmd->add_option("--fabric", args->fabric, "Network model: " + fabric_names())->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed for every random choice (ECMP hashing)")->capture_default_str();
  cmd->add_option("--format", args->format, "table | csv | json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "csv", "json"}));
  return [args] { run(*args); };
}

}  // namespace weft::cli
