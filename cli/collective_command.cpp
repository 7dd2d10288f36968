// weft collective: an nccl-tests-style sweep of one collective.
#include <fmt/format.h>
#include <memory>

#include "cli/commands.h"
#include "cli/system_options.h"
#include "collectives/sweep.h"
#include "scenarios/report.h"
#include "sim/fabric_registry.h"
#include "topologies/builders.h"
#include "topologies/clusters.h"

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
};

void run(const CollectiveArgs& a) {
  LinkSpec link{LinkKind::generic, parse_bandwidth(a.link_rate, "--link-rate"), parse_time(a.latency, "--latency")};
  SweepSpec spec;
  spec.op = parse_collective_op(a.op, "--op");
  spec.min_bytes = parse_bytes(a.min_bytes, "--min-bytes");
  spec.max_bytes = parse_bytes(a.max_bytes, "--max-bytes");
  spec.factor = a.factor;
  spec.fabric = a.fabric;
  spec.seed = a.seed;
  spec.ring.channels = a.channels;
  spec.ring.chunk = parse_bytes(a.chunk, "--chunk");
  spec.pxn = a.pxn;
  spec.routing = parse_routing_policy(a.routing);
  OutputFormat format = parse_output_format(a.format);
  find_fabric(a.fabric);
  bool catalogue = !a.system.system.empty();
  ClusterSpec cluster = catalogue ? resolve_system(a.system) : ClusterSpec{};
  Topology topology = catalogue ? build_cluster(cluster) : build_topology(a.topology, a.ranks, link);
  std::vector<SweepRow> rows = sweep_collective(spec, topology);
  auto ranks = static_cast<uint32_t>(topology.gpus().size());
  std::string where = catalogue ? fmt::format("{} x{} nodes", a.system.system, cluster.nodes) : a.topology;
  std::string rate = catalogue ? "" : a.link_rate;
  std::string latency = catalogue ? "" : a.latency;
  SweepHeader header{std::string(to_string(spec.op)), where, ranks, a.fabric, rate, latency, a.channels};
  fmt::print("{}", format_sweep(header, rows, format));
}

}  // namespace

Action add_collective_command(CLI::App& app) {
  auto args = std::make_shared<CollectiveArgs>();
  CLI::App* cmd = app.add_subcommand("collective", "Sweep one collective over sizes, reported like nccl-tests");
  cmd->add_option("--topology", args->topology, "single-switch | ring")->capture_default_str()
      ->check(CLI::IsMember({"single-switch", "ring"}));
  cmd->add_option("--ranks", args->ranks, "Number of GPUs (ranks)")->capture_default_str()->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--link-rate", args->link_rate, "Rate of each link, per direction (400Gbps, 50GB/s, ...)")->capture_default_str();
  cmd->add_option("--latency", args->latency, "Latency of each link/hop (1us, 250ns, ...)")->capture_default_str();
  cmd->add_option("--op", args->op, "all_reduce | all_gather | reduce_scatter | broadcast")->capture_default_str();
  cmd->add_option("--min-bytes,-b", args->min_bytes, "Smallest size (nccl-tests -b; 8, 4KB, 1M, 1G)")->capture_default_str();
  cmd->add_option("--max-bytes,-e", args->max_bytes, "Largest size (nccl-tests -e)")->capture_default_str();
  cmd->add_option("--factor,-f", args->factor, "Multiply the size by this between rows (nccl-tests -f)")->capture_default_str()
      ->check(CLI::Range(uint64_t{2}, uint64_t{1} << 20));
  cmd->add_option("--fabric", args->fabric, "Network model: " + fabric_names())->capture_default_str();
  add_system_options(cmd, args->system);
  cmd->add_option("--routing", args->routing, "ecmp | spray | adaptive (per packet: needs --fabric packet)")
      ->capture_default_str();
  cmd->add_flag("--pxn", args->pxn, "Inter-node sends go over NVLink to the GPU on the destination's rail first (NCCL PXN)");
  cmd->add_option("--channels,-c", args->channels, "Rings run in parallel, each with 1/C of the buffer")->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  cmd->add_option("--chunk", args->chunk, "Bytes a rank sends per ring step; 0 = NCCL Simple default (2 MiB, 512 KiB for broadcast)")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed for every random choice (ECMP hashing)")->capture_default_str();
  cmd->add_option("--format", args->format, "table | csv | json")->capture_default_str()
      ->check(CLI::IsMember({"table", "csv", "json"}));
  return [args] { run(*args); };
}

}  // namespace weft::cli
