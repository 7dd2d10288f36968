// weft ep: MoE expert-parallel dispatch and combine as DeepEP runs them (scenarios/ep_request.h), on a
// catalogue system, with the time and the bandwidth DeepEP's benchmark would print.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/system_options.h"
#include "scenarios/ep_request.h"
#include "scenarios/report.h"
#include "sim/fabric_registry.h"

namespace weft::cli {
namespace {

struct EpArgs {
  SystemArgs system;
  EpRequest request;
  std::string format = "table";
};

std::string format_json(const EpRequest& r, const EpReport& report) {
  nlohmann::json j = {{"system", r.system},
                      {"nodes", report.spec.nodes},
                      {"kernel", r.kernel},
                      {"fabric", r.fabric},
                      {"tokens", r.routing.tokens},
                      {"hidden", r.routing.hidden},
                      {"experts", r.routing.experts},
                      {"topk", r.routing.topk},
                      {"topk_groups", r.routing.topk_groups},
                      {"phases", nlohmann::json::array()}};
  for (const EpPhaseResult& p : report.phases) {
    j["phases"].push_back({{"phase", p.phase},
                           {"time_us", p.time.microseconds()},
                           {"bandwidth_GBps", p.bandwidth_GBps},
                           {"counted_as", p.counted_as},
                           {"nvlink_bytes_per_rank", p.nvlink_bytes},
                           {"network_bytes_per_rank", p.network_bytes}});
  }
  return j.dump(2) + "\n";
}

std::string format_table(const EpRequest& r, const EpReport& report, bool csv) {
  std::string out;
  if (!csv) {
    out += fmt::format(
        "# weft ep: DeepEP {} kernels on {} x{} nodes, {} ranks ({} fabric): {} tokens per rank, hidden {}, top-{} of "
        "{} experts{}\n",
        r.kernel, r.system, report.spec.nodes, report.ranks, r.fabric, r.routing.tokens, r.routing.hidden,
        r.routing.topk, r.routing.experts,
        r.routing.topk_groups ? fmt::format(" in {} node groups", r.routing.topk_groups) : "");
    out += fmt::format("# a token picks a given node with p = {:.4f}, a given rank with p = {:.4f}\n",
                       report.node_probability, report.rank_probability);
    out += fmt::format("{:<9} {:>12} {:>16} {:>10} {:>15} {:>16}\n", "phase", "time(us)", "bandwidth(GB/s)", "counted",
                       "NVLink MB/rank", "network MB/rank");
  } else {
    out += "phase,time_us,bandwidth_GBps,counted_as,nvlink_MB_per_rank,network_MB_per_rank\n";
  }
  for (const EpPhaseResult& p : report.phases) {
    const double us = p.time.microseconds(), nvl = p.nvlink_bytes / 1e6, net = p.network_bytes / 1e6;
    out +=
        csv ? fmt::format("{},{:.2f},{:.2f},{},{:.3f},{:.3f}\n", p.phase, us, p.bandwidth_GBps, p.counted_as, nvl, net)
            : fmt::format("{:<9} {:>12.2f} {:>16.2f} {:>10} {:>15.3f} {:>16.3f}\n", p.phase, us, p.bandwidth_GBps,
                          p.counted_as, nvl, net);
  }
  return out;
}

void run(EpArgs a) {
  const OutputFormat format = parse_output_format(a.format);
  EpRequest& r = a.request;
  r.system = a.system.system, r.nodes = a.system.nodes, r.sets = a.system.sets;
  const EpReport report = run_ep(r);
  fmt::print("{}", format == OutputFormat::json ? format_json(r, report)
                                                : format_table(r, report, format == OutputFormat::csv));
}

}  // namespace

Action add_ep_command(CLI::App& app) {
  auto args = std::make_shared<EpArgs>();
  EpRequest& q = args->request;
  EpRouting& r = q.routing;
  CLI::App* cmd = app.add_subcommand(
      "ep", "MoE expert-parallel dispatch and combine as DeepEP's kernels run them, with DeepEP's bandwidth");
  add_system_options(cmd, args->system);
  cmd->add_option("--kernel", q.kernel, "normal (throughput, NVLink forwarding) | low-latency (per expert)")
      ->capture_default_str()
      ->check(CLI::IsMember({"normal", "low-latency"}));
  cmd->add_option("--phase", q.phase, "dispatch | combine | both")
      ->capture_default_str()
      ->check(CLI::IsMember({"dispatch", "combine", "both"}));
  cmd->add_option("--tokens", r.tokens, "Tokens per rank")->capture_default_str()->check(CLI::Range(1u, 1u << 24));
  cmd->add_option("--hidden", r.hidden, "Elements per token")->capture_default_str()->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--experts", r.experts, "Routed experts over all ranks")->capture_default_str();
  cmd->add_option("--topk", r.topk, "Experts per token")->capture_default_str()->check(CLI::Range(1u, 1024u));
  cmd->add_option("--topk-groups", r.topk_groups, "Nodes a token may use (node-limited routing); 0 = any")
      ->capture_default_str();
  cmd->add_option("--fabric", q.fabric, "Network model: " + fabric_names())->capture_default_str();
  cmd->add_option("--seed", q.seed, "Seed for every random choice (ECMP hashing)")->capture_default_str();
  cmd->add_option("--format", args->format, "table | csv | json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "csv", "json"}));
  return [args] { run(*args); };
}

}  // namespace weft::cli
