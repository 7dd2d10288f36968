// weft collective: an nccl-tests-style sweep of one collective.
#include <fmt/format.h>
#include <algorithm>
#include <memory>

#include "cli/commands.h"
#include "cli/system_options.h"
#include "collectives/plan.h"
#include "collectives/sweep.h"
#include "scenarios/collective_request.h"
#include "scenarios/report.h"
#include "sim/core/errors.h"
#include "sim/core/names.h"
#include "sim/fabric_registry.h"
#include "topologies/builders.h"
#include "topologies/clusters.h"
#include "topologies/metrics.h"

namespace weft::cli {
namespace {

struct CollectiveArgs {
  std::string topology = "single-switch";
  uint32_t ranks = 8;
  std::string link_rate = "400Gbps";
  std::string latency = "1us";
  std::string op = "all_reduce";
  std::string min_bytes = "8";
  std::string max_bytes = "128M";
  uint64_t factor = 2;
  std::string fabric = "flow";
  uint32_t channels = 1;
  std::string chunk = "0";
  uint64_t seed = 1;
  std::string format = "table";
  bool pxn = false;
  std::string routing = "ecmp";
  SystemArgs system;
  std::string algo;          // NCCL_ALGO
  std::string proto;         // NCCL_PROTO
  std::string nccl_version;  // the tuner's constants
  bool channels_given = false;
  bool explain = false;
  std::string calibration;  // PROFILE.network.yaml from weft calibrate
};

// --explain: what NCCL's model predicts for every (algorithm, protocol) at the largest size, and why
// the pick won.
std::string explain(const SweepSpec& spec, const Topology& topology, const ClusterSpec& cluster) {
  CollectivePlan plan = plan_collective(spec.op, spec.max_bytes, topology, cluster, spec.plan);
  const TunerInput& in = plan.input;
  std::string out = fmt::format(
      "# NCCL model ({}): {} node(s) x {} GPUs, {} {}, bw_intra {:.1f} GB/s, bw_inter {:.1f} GB/s per GPU, {} "
      "channels, "
      "NVLS {}, CollNet (SHARP) {}\n",
      nccl_version(spec.plan.version).name, in.nodes, in.gpus_per_node, to_string(in.arch),
      in.intra == IntraLink::nvlink ? "NVLink" : "PCIe", in.bw_intra_GBps, in.bw_inter_GBps, in.channels,
      in.nvls ? "yes" : "no", in.collnet ? "yes" : "no");
  out += fmt::format("# at {} bytes:\n#   {:<14} {:<7} {:>12} {:>12} {:>14}  {}\n", spec.max_bytes.count(), "algorithm",
                     "proto", "predicted_us", "latency_us", "algbw_GBps", "");
  for (const Choice& c : candidates(in, spec.plan.overrides)) {
    out += fmt::format("#   {:<14} {:<7} {:>12.1f} {:>12.1f} {:>14.1f}  {}\n", to_string(c.algorithm),
                       to_string(c.protocol), c.predicted_us, c.latency_us, c.bandwidth_GBps, c.enabled ? "" : c.why);
  }
  out += fmt::format("# chosen: {}/{} with {} channels ({})\n", to_string(plan.choice.algorithm),
                     to_string(plan.choice.protocol), plan.choice.channels, plan.choice.why);
  if (!plan.note.empty()) out += "# " + plan.note + "\n";
  return out;
}

// --explain, after the sweep: the link the largest size kept busiest, as the share of the collective's
// time its wire bytes (headers included) needed at the link's rate.
std::string bottleneck(const Topology& t, const SweepRow& row, std::string_view fabric) {
  if (row.links.empty() || row.time <= Time()) {
    return fmt::format("# bottleneck: the {} fabric keeps no per-link statistics (flow and packet do)\n", fabric);
  }
  const LinkStats* busiest = nullptr;
  double busiest_share = -1;
  for (const LinkStats& l : row.links) {
    double share =
        static_cast<double>(l.wire.bits()) / (static_cast<double>(t.link(l.link).rate.bps()) * row.time.seconds());
    if (share > busiest_share) {
      busiest = &l;
      busiest_share = share;
    }
  }
  const LinkProps& link = t.link(busiest->link);
  return fmt::format(
      "# bottleneck at {} bytes: {} -> {} ({}, {:.1f} Gb/s): {:.1f}% utilised over {:.1f} us, {} bytes "
      "on the wire\n",
      row.size.count(), t.node(t.link_source(busiest->link)).name, t.node(t.link_target(busiest->link)).name,
      to_string(link.kind), link.rate.bps() / 1e9, 100 * busiest_share, row.time.microseconds(), busiest->wire.count());
}

CollectiveRequest request_of(const CollectiveArgs& a) {
  CollectiveRequest r;
  r.op = a.op, r.min_bytes = a.min_bytes, r.max_bytes = a.max_bytes, r.factor = a.factor;
  r.fabric = a.fabric, r.seed = a.seed, r.pxn = a.pxn, r.routing = a.routing;
  r.system = a.system.system, r.nodes = a.system.nodes, r.sets = a.system.sets;
  r.topology = a.topology, r.ranks = a.ranks, r.link_rate = a.link_rate, r.latency = a.latency;
  r.channels = a.channels_given ? a.channels : 0, r.chunk = a.chunk;
  r.algo = a.algo, r.proto = a.proto, r.nccl_version = a.nccl_version;
  r.link_stats = a.explain, r.calibration = a.calibration;
  return r;
}

void run(const CollectiveArgs& a) {
  const OutputFormat format = parse_output_format(a.format);
  const bool catalogue = !a.system.system.empty();
  if (a.explain && !catalogue) throw ConfigError("--explain needs a catalogue system (--system NAME)");
  const CollectiveRequest request = request_of(a);
  const PreparedCollective prepared = prepare_collective(request);
  const Topology& topology = prepared.topology;
  const SweepSpec spec = prepared.sweep_spec();
  if (a.explain) fmt::print("{}", explain(spec, topology, *prepared.system));
  std::vector<SweepRow> rows = run_collective(request, prepared);
  auto ranks = static_cast<uint32_t>(topology.gpus().size());
  std::string where = catalogue ? fmt::format("{} x{} nodes", a.system.system, prepared.system->nodes) : a.topology;
  std::string rate = catalogue ? "" : a.link_rate;
  std::string latency = catalogue ? "" : a.latency;
  uint32_t channels = catalogue && !a.channels_given ? 0 : a.channels;
  SweepHeader header{std::string(to_string(spec.op)), where, ranks, a.fabric, rate, latency, channels};
  fmt::print("{}", format_sweep(header, rows, format));
  if (a.explain && !rows.empty()) fmt::print("{}", bottleneck(topology, rows.back(), a.fabric));
  if (!a.calibration.empty() && format == OutputFormat::table) {
    const auto fitted =
        std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return r.note.ends_with("calibrated"); });
    fmt::print("# {} of {} sizes timed by the measured fits of {}\n", fitted, rows.size(), a.calibration);
  }
}

}  // namespace

Action add_collective_command(CLI::App& app) {
  auto args = std::make_shared<CollectiveArgs>();
  CLI::App* cmd = app.add_subcommand("collective", "Sweep one collective over sizes, reported like nccl-tests");
  cmd->add_option("--topology", args->topology, "single-switch | ring")
      ->capture_default_str()
      ->check(CLI::IsMember({"single-switch", "ring"}));
  cmd->add_option("--ranks", args->ranks, "Number of GPUs (ranks)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--link-rate", args->link_rate, "Rate of each link, per direction (400Gbps, 50GB/s, ...)")
      ->capture_default_str();
  cmd->add_option("--latency", args->latency, "Latency of each link/hop (1us, 250ns, ...)")->capture_default_str();
  cmd->add_option("--op", args->op,
                  "all_reduce | all_gather | reduce_scatter | broadcast | reduce | all_to_all | send_recv")
      ->capture_default_str();
  cmd->add_option("--min-bytes,-b", args->min_bytes, "Smallest size (nccl-tests -b; 8, 4KB, 1M, 1G)")
      ->capture_default_str();
  cmd->add_option("--max-bytes,-e", args->max_bytes, "Largest size (nccl-tests -e)")->capture_default_str();
  cmd->add_option("--factor,-f", args->factor, "Multiply the size by this between rows (nccl-tests -f)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{2}, uint64_t{1} << 20));
  cmd->add_option("--fabric", args->fabric, "Network model: " + fabric_names())->capture_default_str();
  add_system_options(cmd, args->system);
  cmd->add_option("--routing", args->routing, "ecmp | spray | adaptive (per packet: needs --fabric packet)")
      ->capture_default_str();
  cmd->add_flag("--pxn", args->pxn,
                "Inter-node sends go over NVLink to the GPU on the destination's rail first (NCCL PXN)");
  cmd->add_option("--channels,-c", args->channels,
                  "Channels (rings) in parallel, each with 1/C of the buffer; with --system, NCCL_MIN/MAX_NCHANNELS")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u))
      ->each([args](const std::string&) { args->channels_given = true; });
  cmd->add_option("--algo", args->algo, "With --system: NCCL_ALGO (Ring, Tree, NVLS, NVLSTree, CollNetDirect, ...)");
  cmd->add_option("--proto", args->proto, "With --system: NCCL_PROTO (LL, LL128, Simple)");
  cmd->add_option("--nccl-version", args->nccl_version, "With --system: the NCCL version of the tuner's constants");
  cmd->add_flag("--explain", args->explain,
                "With --system: every algorithm/protocol's predicted time, the choice and the busiest link");
  cmd->add_option("--calibration", args->calibration,
                  "PROFILE.network.yaml from weft calibrate: sizes whose series was measured take the fitted time");
  cmd->add_option(
         "--chunk", args->chunk,
         "Bytes a rank sends per ring step (without --system); 0 = NCCL Simple default (2 MiB, 512 KiB for broadcast)")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed for every random choice (ECMP hashing)")->capture_default_str();
  cmd->add_option("--format", args->format, "table | csv | json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "csv", "json"}));
  return [args] { run(*args); };
}

}  // namespace weft::cli
