// NCCL's algorithm / protocol / channel choice. Sections (§n) are those of
// shared/reference/nccl_model.md.
#include "collectives/tuner.h"

#include <fmt/format.h>
#include <algorithm>
#include <tuple>
#include <utility>

#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/catalogue/links.h"
#include "topologies/catalogue/nics.h"
#include "topologies/node_checks.h"

namespace weft {
namespace {

constexpr uint32_t kMaxChannels = 64;  // MAXCHANNELS (§5)

bool gathers(CollectiveOp op) { return op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter; }
bool simple_only(Algorithm a) { return a != Algorithm::ring && a != Algorithm::tree; }

// The collectives NCCL's tuner chooses for (§7). Reduce (Ring only, like broadcast) is matched by name:
// the CollectiveOp enum grows; point-to-point operations (send/recv, all-to-all) are not tuned.
bool is_reduce(CollectiveOp op) { return to_string(op) == "reduce"; }
bool tuned(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce:
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::broadcast:
      return true;
    default:
      return is_reduce(op);
  }
}

// §7: broadcast and reduce are Ring only; all-gather and reduce-scatter Ring, PAT, NVLS or CollNet
// Direct; all-reduce anything but PAT.
bool op_runs(CollectiveOp op, Algorithm a) {
  if (op == CollectiveOp::all_reduce) return a != Algorithm::pat;
  if (gathers(op)) {
    return a == Algorithm::ring || a == Algorithm::pat || a == Algorithm::nvls || a == Algorithm::collnet_direct;
  }
  return a == Algorithm::ring;
}

std::string nvls_unavailable(const TunerInput& in, Algorithm a) {
  if (!in.nvls) return "needs NVSwitch generation 3 or later in the node (in-switch reduction); there is none";
  if (in.arch < GpuArch::hopper) {
    return fmt::format("needs Hopper or later GPUs (nvlsEfficiency is 0 on {})", to_string(in.arch));
  }
  // The in-switch reduction works among the communicator's GPUs of one node: with one per node there
  // is no NVLink group to reduce in (a data-parallel communicator of one GPU per node).
  if (in.gpus_per_node < 2)
    return "needs at least 2 of the communicator's GPUs in one node (one per node has no NVLink group)";
  if (a == Algorithm::nvls_tree && in.nodes == 1) return "needs more than one node (NVLSTree is off on one node)";
  if (a == Algorithm::nvls && in.nodes > 1 && !in.collnet) {
    return "across nodes needs CollNet (SHARP switches) enabled; there is none";
  }
  if (a == Algorithm::nvls && in.nodes > 1 && gathers(in.op) && in.nics_per_node < in.gpus_per_node) {
    return "all-gather / reduce-scatter across nodes needs one NIC per GPU";
  }
  return "";
}

std::string collnet_unavailable(const TunerInput& in, Algorithm a) {
  if (!in.collnet) return "needs SHARP switches in the network (CollNet); there are none";
  if (in.nodes == 1) return "needs more than one node";
  if (a == Algorithm::collnet_direct && !in.nvswitch) return "needs NVSwitch in the node";
  if (a == Algorithm::collnet_direct && gathers(in.op) && in.nics_per_node < in.gpus_per_node) {
    return "all-gather / reduce-scatter needs one NIC per GPU";
  }
  return "";
}

std::string pat_unavailable(const TunerInput& in) {
  const NcclVersion& v = nccl_version(in.version);
  if (!v.has_pat) return fmt::format("has no constants in NCCL {} (the reference documents PAT for HEAD)", v.name);
  if (in.gpus_per_node != 1) return fmt::format("runs only at 1 GPU per node (there are {})", in.gpus_per_node);
  if (in.nodes < 2) return "needs more than one node";
  return "";
}

// Off by protocol: the Simple-only algorithms (their LL / LL128 entries are 0 in every table, §2),
// and LL128 where NCCL leaves it off by default (§7: intra-node path not NVLink).
std::string protocol_unavailable(const TunerInput& in, Algorithm a, Protocol p, bool forced) {
  if (simple_only(a) && p != Protocol::simple) return fmt::format("{} runs the Simple protocol only", to_string(a));
  if (p == Protocol::ll128 && !forced && in.intra != IntraLink::nvlink && in.gpus_per_node > 1) {
    return "LL128 is off by default when the GPUs of a node are not on NVLink (typeIntra > NVB)";
  }
  return "";
}

std::string available_algorithms(const TunerInput& in) {
  std::string out;
  for (Algorithm a : all_algorithms()) {
    if (!algorithm_unavailable(in, a).empty()) continue;
    out += (out.empty() ? "" : ", ") + std::string(to_string(a));
  }
  return out;
}

void validate(const TunerInput& in) {
  if (!tuned(in.op)) {
    throw ConfigError(
        fmt::format("tuner: NCCL does not tune {} (only all_reduce, all_gather, reduce_scatter, "
                    "broadcast, reduce)",
                    to_string(in.op)));
  }
  if (in.nodes < 1 || in.gpus_per_node < 1 || in.ranks() < 2) {
    throw ConfigError(
        fmt::format("tuner: {} node(s) x {} GPU(s); expected at least 2 ranks", in.nodes, in.gpus_per_node));
  }
  if (in.gpus_per_node > 1 && !(in.bw_intra_GBps > 0)) throw ConfigError("tuner: bw_intra must be > 0 GB/s");
  if (in.nodes > 1 && !(in.bw_inter_GBps > 0)) throw ConfigError("tuner: several nodes but no NIC bandwidth");
  if (in.channels < 1 || in.channels > kMaxChannels) {
    throw ConfigError(fmt::format("tuner: {} channels; expected 1..{}", in.channels, kMaxChannels));
  }
  nccl_version(in.version);
}

// comm->nChannels after NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS.
uint32_t comm_channels(const TunerInput& in, const TunerOverrides& ov) {
  for (const auto& [value, name] :
       {std::pair{ov.min_channels, "NCCL_MIN_NCHANNELS"}, std::pair{ov.max_channels, "NCCL_MAX_NCHANNELS"}}) {
    if (value && (*value < 1 || *value > kMaxChannels)) {
      throw ConfigError(fmt::format("{}={}: expected 1..{}", name, *value, kMaxChannels));
    }
  }
  const uint32_t lo = ov.min_channels.value_or(1), hi = ov.max_channels.value_or(kMaxChannels);
  if (lo > hi) throw ConfigError(fmt::format("NCCL_MIN_NCHANNELS={} exceeds NCCL_MAX_NCHANNELS={}", lo, hi));
  return std::clamp(in.channels, lo, hi);
}

// Channels the kernel runs on (§8): Ring and Tree drop channels, then threads, while the message is
// below nc x nt x threadThreshold. nt = maxThreads: LL 512, LL128 640, Simple 512 (256 when the
// node's NVLink/PCIe rate is at most PCI_BW = 12 GB/s).
uint32_t kernel_channels(const TunerInput& in, Algorithm a, Protocol p, uint32_t nc) {
  if (a != Algorithm::ring && a != Algorithm::tree) return nc;
  uint64_t nt = p == Protocol::ll128 ? 640 : (p == Protocol::simple && in.bw_intra_GBps <= 12 ? 256 : 512);
  uint64_t threshold = p == Protocol::simple ? 64 : 8;  // bytes per thread (comm.h)
  if (a == Algorithm::ring && p == Protocol::ll) threshold *= in.ranks();
  while (in.size.count() < nc * nt * threshold) {
    if (nc >= 2) {
      --nc;
    } else if (nt % 128 == 0) {
      nt /= 2;
    } else {
      break;
    }
  }
  return nc;
}

std::string pair_unavailable(const TunerInput& in, const TunerOverrides& ov, Algorithm a, Protocol p,
                             uint32_t channels) {
  if (ov.algorithm && *ov.algorithm != a) return fmt::format("not NCCL_ALGO={}", to_string(*ov.algorithm));
  if (ov.protocol && *ov.protocol != p) return fmt::format("not NCCL_PROTO={}", to_string(*ov.protocol));
  if (!ov.protocol && in.platform_protocol && *in.platform_protocol != p) {
    return fmt::format("not NCCL_PROTO={}, which the platform's net plugin sets (node.nccl_proto)",
                       to_string(*in.platform_protocol));
  }
  if (std::string why = algorithm_unavailable(in, a); !why.empty()) return why;
  if (std::string why = protocol_unavailable(in, a, p, ov.protocol == p); !why.empty()) return why;
  if ((a == Algorithm::nvls || a == Algorithm::nvls_tree) && channels < 2) {
    return fmt::format("{} needs at least 2 channels (one is kept for synchronisation)", to_string(a));
  }
  return "";
}

// Overrides the system cannot honour are errors, naming what is missing and what is available.
void check_overrides(const TunerInput& in, const TunerOverrides& ov, uint32_t channels) {
  if (ov.algorithm) {
    if (std::string why = algorithm_unavailable(in, *ov.algorithm); !why.empty()) {
      throw ConfigError(fmt::format("NCCL_ALGO={}: {}; available for {} here: {}", to_string(*ov.algorithm), why,
                                    to_string(in.op), available_algorithms(in)));
    }
  }
  if (ov.algorithm && ov.protocol) {
    if (std::string why = pair_unavailable(in, ov, *ov.algorithm, *ov.protocol, channels); !why.empty()) {
      throw ConfigError(
          fmt::format("NCCL_ALGO={} NCCL_PROTO={}: {}", to_string(*ov.algorithm), to_string(*ov.protocol), why));
    }
  }
}

// ---- describe_for_tuner ---------------------------------------------------------------------------

GpuArch arch_of(const catalogue::GpuSpec& gpu) {
  const std::string_view d = gpu.description;
  if (d.find("Blackwell") != std::string_view::npos) return GpuArch::blackwell;
  if (d.find("Hopper") != std::string_view::npos) return GpuArch::hopper;
  if (d.find("Ampere") != std::string_view::npos || d.find("Ada") != std::string_view::npos) return GpuArch::ampere;
  // Turing (sm75) shares the Volta row: NCCL indexes its tables by compCapIndex = 0 below sm80 (§3).
  if (d.find("Volta") != std::string_view::npos || d.find("Turing") != std::string_view::npos) return GpuArch::volta;
  throw ConfigError(fmt::format("tuner: cannot tell the architecture of GPU '{}' ({})", gpu.name, d));
}

// SMxx_NVLINK_BW (§5), GB/s per link: sm86 (GA102, the RTX 3090) has 12, other Ampere 20.
double nvlink_link_GBps(const catalogue::GpuSpec& gpu, GpuArch arch) {
  if (gpu.name == "rtx-3090") return 12.0;
  switch (arch) {
    case GpuArch::volta:
    case GpuArch::ampere:
      return 20.0;
    case GpuArch::hopper:
      return 20.6;
    case GpuArch::blackwell:
      return 40.1;
  }
  return 20.0;
}

// NCCL reads PCIe from sysfs: width x speed / 80 GB/s, speed per lane in 100 Mb/s (§5).
double pcie_GBps(int generation, int lanes) {
  const double speed = generation >= 6 ? 480 : generation == 5 ? 240 : generation == 4 ? 120 : 60;
  return lanes * speed / 80;
}

bool on_nvlink(const NodeSpec& s) {
  if (s.nvlink_links <= 0) return false;
  return s.layout != NodeLayout::pcie || (s.nvlink_bridges && s.gpus == 2);
}

// NIC GB/s per GPU (§5: speed_mbps / 8000) and NIC ports per node.
std::pair<double, uint32_t> nic_share(const ClusterSpec& spec, const NodeSpec& s) {
  if (s.nics <= 0) return {0.0, 0};
  const catalogue::NicSpec& nic = node_spec::nic_of(s);
  const double port_GBps =
      spec.network.port_gbps > 0 ? spec.network.port_gbps / 8.0 : nic.port_rate.bytes_per_second() / 1e9;
  const int hosts = s.layout == NodeLayout::nvl_rack ? std::max(1, s.gpus / std::max(1, s.gpus_per_host)) : 1;
  const auto ports = static_cast<uint32_t>(s.nics * s.nic_ports * hosts);
  return {port_GBps * ports / s.gpus, ports};
}

std::string label(const Choice& c) { return fmt::format("{}/{}", to_string(c.algorithm), to_string(c.protocol)); }

std::string explain(const std::vector<Choice>& all, const Choice& best, const TunerOverrides& ov) {
  size_t enabled = 0;
  const Choice* runner_up = nullptr;
  for (const Choice& c : all) {
    if (!c.enabled) continue;
    ++enabled;
    if (&c != &best && (!runner_up || c.predicted_us < runner_up->predicted_us)) runner_up = &c;
  }
  std::string why = fmt::format("lowest predicted time of {} enabled pair(s)", enabled);
  if (ov.algorithm || ov.protocol) why += " under NCCL_ALGO/NCCL_PROTO";
  if (runner_up) why += fmt::format("; next {} at {:.1f} us", label(*runner_up), runner_up->predicted_us);
  return why;
}

}  // namespace

std::string algorithm_unavailable(const TunerInput& in, Algorithm a) {
  if (!op_runs(in.op, a)) {
    return fmt::format("{} does not run {} in NCCL", to_string(a), to_string(in.op));
  }
  switch (a) {
    case Algorithm::ring:
    case Algorithm::tree:
      return "";
    case Algorithm::nvls:
    case Algorithm::nvls_tree: {
      std::string why = nvls_unavailable(in, a);
      return why.empty() ? why : fmt::format("{} {}", to_string(a), why);
    }
    case Algorithm::collnet_direct:
    case Algorithm::collnet_chain: {
      std::string why = collnet_unavailable(in, a);
      return why.empty() ? why : fmt::format("{} {}", to_string(a), why);
    }
    case Algorithm::pat: {
      std::string why = pat_unavailable(in);
      return why.empty() ? why : fmt::format("PAT {}", why);
    }
  }
  return "";
}

std::vector<Choice> candidates(const TunerInput& in, const TunerOverrides& overrides) {
  validate(in);
  const NcclVersion& v = nccl_version(in.version);
  const uint32_t channels = comm_channels(in, overrides);
  std::vector<Choice> out;
  for (Algorithm a : all_algorithms()) {
    for (Protocol p : all_protocols()) {
      Choice c{.algorithm = a, .protocol = p, .channels = channels};
      c.why = pair_unavailable(in, overrides, a, p, channels);
      c.enabled = c.why.empty();
      if (c.enabled) {
        const NcclEstimate e = nccl_estimate(v, in, a, p, channels);
        c.predicted_us = e.time_us;
        c.latency_us = e.latency_us;
        c.bandwidth_GBps = e.bandwidth_GBps;
        c.channels = kernel_channels(in, a, p, channels);
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

Choice tune(const TunerInput& in, const TunerOverrides& overrides) {
  validate(in);
  check_overrides(in, overrides, comm_channels(in, overrides));
  const std::vector<Choice> all = candidates(in, overrides);
  const Choice* best = nullptr;
  for (const Choice& c : all) {
    if (c.enabled && (!best || c.predicted_us < best->predicted_us)) best = &c;  // ties: the first in enum order
  }
  if (!best) {
    std::string why;  // why each pair the overrides leave is off, once per reason
    for (const Choice& c : all) {
      if (c.why.starts_with("not NCCL_") || why.find(c.why) != std::string::npos) continue;
      why += (why.empty() ? "" : "; ") + c.why;
    }
    throw ConfigError(fmt::format("tuner: nothing runs {} here with the overrides given ({}); available: {}",
                                  to_string(in.op), why, available_algorithms(in)));
  }
  Choice choice = *best;
  choice.why = explain(all, *best, overrides);
  return choice;
}

double nvlink_GBps(const NodeSpec& node) {
  const NodeSpec s = node_spec::resolved(node);
  const catalogue::GpuSpec& gpu = node_spec::gpu_of(s);
  return s.nvlink_links * nvlink_link_GBps(gpu, arch_of(gpu));
}

TunerInput describe_for_tuner(const ClusterSpec& spec, CollectiveOp op, Bytes size) {
  const NodeSpec s = node_spec::resolved(spec.node);
  const catalogue::GpuSpec& gpu = node_spec::gpu_of(s);
  TunerInput in;
  in.op = op;
  in.size = size;
  in.nodes = static_cast<uint32_t>(std::max(1, spec.nodes));
  in.gpus_per_node = static_cast<uint32_t>(std::max(1, s.gpus));
  in.arch = arch_of(gpu);
  in.intra = on_nvlink(s) ? IntraLink::nvlink : IntraLink::pci;
  in.bw_intra_GBps = in.intra == IntraLink::nvlink ? s.nvlink_links * nvlink_link_GBps(gpu, in.arch)
                                                   : pcie_GBps(s.pcie_generation, s.pcie_lanes);
  std::tie(in.bw_inter_GBps, in.nics_per_node) = nic_share(spec, s);
  if (s.nics > 0) in.net_latency_us = node_spec::nic_of(s).plugin_latency.microseconds();
  if (!s.nccl_proto.empty()) in.platform_protocol = parse_protocol(s.nccl_proto, "node.nccl_proto");
  in.channels = in.intra == IntraLink::nvlink ? 16 : 2;
  const bool switched = s.layout == NodeLayout::nvswitch || s.layout == NodeLayout::nvl_rack;
  in.nvswitch = switched && s.nvswitch_generation > 0;
  in.nvls = in.nvswitch && catalogue::nvswitch(s.nvswitch_generation).reduces;
  in.cpu = gpu.name == "gb200" ? CpuVendor::arm : CpuVendor::intel;
  return in;
}

TunerInput describe_for_tuner(const Topology& topology, const ClusterSpec& spec, CollectiveOp op, Bytes size) {
  TunerInput in = describe_for_tuner(spec, op, size);
  in.nvls = false;
  in.collnet = false;
  for (NodeIndex n = 0; n < topology.node_count(); ++n) {
    const NodeProps& node = topology.node(n);
    if (node.kind == NodeKind::nvswitch && node.reduces) in.nvls = true;
    if (node.kind == NodeKind::network_switch && node.reduces) in.collnet = true;
  }
  const auto gpus = static_cast<uint32_t>(topology.gpus().size());
  if (gpus % in.nodes == 0 && gpus > 0) in.gpus_per_node = gpus / in.nodes;
  return in;
}

}  // namespace weft
