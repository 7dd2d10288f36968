// weft collective: an nccl-tests-style sweep of one collective.
#include <fmt/format.h>
#include <algorithm>
#include <memory>

#include "cli/commands.h"
#include "cli/system_options.h"
#include "collectives/host_issue.h"
#include "collectives/plan.h"
#include "collectives/sweep.h"
#include "scenarios/collective_request.h"
#include "scenarios/nccl_tests_compare.h"
#include "scenarios/reduction_report.h"
#include "scenarios/report.h"
#include "sim/core/errors.h"
#include "sim/core/names.h"
#include "sim/fabric_registry.h"
#include "topologies/builders.h"
#include "topologies/clusters.h"
#include "topologies/metrics.h"

namespace weft::cli {
namespace {

// The options bind straight into the request Python sends too; what is left is the command line's.
struct CollectiveArgs {
  CollectiveRequest request;
  SystemArgs system;  // --system/--nodes/--set, shared with `weft topo`
  std::string format = "table";
  uint32_t channels = 1;  // -c; with --system only when given (else NCCL's tuner picks)
  bool channels_given = false;
  std::string compare;           // --compare LOG: predict every row of a real nccl-tests log
  bool in_place = false;         // --in-place: compare with its in-place columns
  bool reduction_order = false;  // --reduction-order: how each size's all-reduce sums, and the numbers
  ReductionReportOptions reduction;
};

// --explain: what NCCL's model predicts for every (algorithm, protocol) at the largest size, and why
// the pick won.
std::string explain(const SweepSpec& spec, const Topology& topology, const ClusterSpec& cluster) {
  CollectivePlan plan = plan_collective(spec.op, spec.max_bytes, topology, cluster, spec.plan);
  if (spec.op == CollectiveOp::all_to_all || spec.op == CollectiveOp::send_recv) {
    return fmt::format("# NCCL runs {} as grouped point-to-point sends: no algorithm or protocol to choose ({})\n",
                       to_string(spec.op), plan.label);
  }
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
  CollectiveRequest r = a.request;
  r.system = a.system.system, r.nodes = a.system.nodes, r.sets = a.system.sets;
  r.channels = a.channels_given ? a.channels : 0;
  return r;
}

void run(const CollectiveArgs& a) {
  const OutputFormat format = parse_output_format(a.format);
  if (!a.compare.empty()) {
    fmt::print("{}", format_comparison(compare_nccl_tests(a.compare, request_of(a), a.in_place), format));
    return;
  }
  const bool catalogue = !a.system.system.empty();
  const CollectiveRequest request = request_of(a);
  if (a.reduction_order) {
    ReductionReportOptions options = a.reduction;
    options.seed = request.seed;
    fmt::print("{}", reduction_order_report(prepare_collective(request), options));
    return;
  }
  const bool explaining = request.link_stats;  // --explain keeps the largest size's link statistics
  if (explaining && !catalogue) throw ConfigError("--explain needs a catalogue system (--system NAME)");
  const PreparedCollective prepared = prepare_collective(request);
  const Topology& topology = prepared.topology;
  const SweepSpec spec = prepared.sweep_spec();
  if (explaining) fmt::print("{}", explain(spec, topology, *prepared.system));
  std::vector<SweepRow> rows = run_collective(request, prepared);
  auto ranks = static_cast<uint32_t>(topology.gpus().size());
  std::string where =
      catalogue ? fmt::format("{} x{} nodes", request.system, prepared.system->nodes) : request.topology;
  std::string rate = catalogue ? "" : request.link_rate;
  std::string latency = catalogue ? "" : request.latency;
  uint32_t channels = catalogue && !a.channels_given ? 0 : a.channels;
  SweepHeader header{std::string(to_string(spec.op)), where, ranks, request.fabric, rate, latency, channels};
  fmt::print("{}", format_sweep(header, rows, format));
  if (explaining && !rows.empty()) fmt::print("{}", bottleneck(topology, rows.back(), request.fabric));
  if (!request.calibration.empty() && format == OutputFormat::table) {
    const auto fitted =
        std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return r.note.ends_with("calibrated"); });
    fmt::print("# {} of {} sizes timed by the measured fits of {}\n", fitted, rows.size(), request.calibration);
  }
  if (request.gpus_per_thread > 1 && format == OutputFormat::table) {
    const auto bound = std::count_if(rows.begin(), rows.end(),
                                     [](const SweepRow& r) { return r.note.find("host-bound") != std::string::npos; });
    fmt::print("# {} of {} sizes host-bound: one thread launches {} GPUs' kernels, at least {:.2f} us per size\n",
               bound, rows.size(), request.gpus_per_thread, host_issue_time(request.gpus_per_thread).microseconds());
  }
}

void add_reduction_options(CLI::App* cmd, CollectiveArgs& args) {
  cmd->add_flag("--reduction-order", args.reduction_order,
                "With --system, all_reduce: the order each size sums its elements in (NCCL's ring, tree or NVLS "
                "as the tuner picks), where it changes, and seeded sums in that order in fp32 and bf16 against "
                "the exactly rounded sum");
  cmd->add_option("--reduction-elements", args.reduction.elements,
                  "With --reduction-order: elements summed per size and format")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 24));
  cmd->add_flag("--heavy-tailed", args.reduction.heavy_tailed,
                "With --reduction-order: Student's t inputs (3 degrees of freedom) instead of normal ones");
}

}  // namespace

Action add_collective_command(CLI::App& app) {
  auto args = std::make_shared<CollectiveArgs>();
  CollectiveRequest& r = args->request;
  CLI::App* cmd = app.add_subcommand("collective", "Sweep one collective over sizes, reported like nccl-tests");
  cmd->add_option("--topology", r.topology, "single-switch | ring")
      ->capture_default_str()
      ->check(CLI::IsMember({"single-switch", "ring"}));
  cmd->add_option("--ranks", r.ranks, "Number of GPUs (ranks)")->capture_default_str()->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--link-rate", r.link_rate, "Rate of each link, per direction (400Gbps, 50GB/s, ...)")
      ->capture_default_str();
  cmd->add_option("--latency", r.latency, "Latency of each link/hop (1us, 250ns, ...)")->capture_default_str();
  cmd->add_option("--op", r.op,
                  "all_reduce | all_gather | reduce_scatter | broadcast | reduce | all_to_all | send_recv")
      ->capture_default_str();
  cmd->add_option("--min-bytes,-b", r.min_bytes,
                  "Smallest size (nccl-tests -b; 8, 4KB, 1M, 1G; 0 = an empty collective, which NCCL discards)")
      ->capture_default_str();
  cmd->add_option("--max-bytes,-e", r.max_bytes, "Largest size (nccl-tests -e)")->capture_default_str();
  cmd->add_option("--factor,-f", r.factor, "Multiply the size by this between rows (nccl-tests -f)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{2}, uint64_t{1} << 20));
  cmd->add_option("--gpus-per-thread,-g", r.gpus_per_thread,
                  "GPUs one host thread drives (nccl-tests -g): a row takes at least that many kernel launches")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--fabric", r.fabric, "Network model: " + fabric_names())->capture_default_str();
  add_system_options(cmd, args->system);
  cmd->add_option("--routing", r.routing, "ecmp | spray | adaptive (per packet: needs --fabric packet)")
      ->capture_default_str();
  cmd->add_flag("--pxn,!--no-pxn", r.pxn,
                "Inter-node sends go over NVLink to the GPU on the destination's rail first (NCCL PXN, "
                "NCCL's default since 2.12; off unless asked: README, Routing)")
      ->capture_default_str();
  cmd->add_option("--channels,-c", args->channels,
                  "Channels (rings) in parallel, each with 1/C of the buffer; with --system, NCCL_MIN/MAX_NCHANNELS")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u))
      ->each([args](const std::string&) { args->channels_given = true; });
  cmd->add_option("--algo", r.algo, "With --system: NCCL_ALGO (Ring, Tree, NVLS, NVLSTree, CollNetDirect, ...)");
  cmd->add_option("--proto", r.proto, "With --system: NCCL_PROTO (LL, LL128, Simple)");
  cmd->add_option("--nccl-version", r.nccl_version, "With --system: the NCCL version of the tuner's constants");
  cmd->add_flag("--explain", r.link_stats,
                "With --system: every algorithm/protocol's predicted time, the choice and the busiest link");
  cmd->add_option("--calibration", r.calibration,
                  "PROFILE.network.yaml from weft calibrate: sizes whose series was measured take the fitted time");
  cmd->add_option(
         "--chunk", r.chunk,
         "Bytes a rank sends per ring step (without --system); 0 = NCCL Simple default (2 MiB, 512 KiB for broadcast)")
      ->capture_default_str();
  cmd->add_option("--seed", r.seed, "Seed for every random choice (ECMP hashing)")->capture_default_str();
  cmd->add_option("--compare", args->compare,
                  "A real nccl-tests log (stdout of all_reduce_perf, ...): predict each of its rows on --system, "
                  "with the error per row and per size band");
  cmd->add_flag("--in-place", args->in_place, "With --compare: the log's in-place columns (default out-of-place)");
  add_reduction_options(cmd, *args);
  cmd->add_option("--format", args->format, "table | csv | json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "csv", "json"}));
  return [args] { run(*args); };
}

}  // namespace weft::cli
