// NCCL's cost model. Sections (§n) are those of shared/reference/nccl_model.md, which read NCCL's
// src/graph/tuning.cc, search.cc and topo.h at the tags listed there.
#include "collectives/nccl_model.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <limits>
#include <string>
#include <utility>

#include "sim/core/errors.h"
#include "sim/core/names.h"

namespace weft {
namespace {

constexpr size_t idx(Algorithm a) { return static_cast<size_t>(a); }
constexpr size_t idx(Protocol p) { return static_cast<size_t>(p); }
constexpr size_t kNvlink = 0, kPci = 1, kNet = 2;  // hwLatencies rows (§2)

constexpr std::array<Algorithm, kAlgorithms> kAllAlgorithms = {
    Algorithm::ring,           Algorithm::tree,          Algorithm::nvls, Algorithm::nvls_tree,
    Algorithm::collnet_direct, Algorithm::collnet_chain, Algorithm::pat};
constexpr std::array<Protocol, kProtocols> kAllProtocols = {Protocol::ll, Protocol::ll128, Protocol::simple};
constexpr std::array<std::string_view, kAlgorithms> kAlgorithmNames = {
    "Ring", "Tree", "NVLS", "NVLSTree", "CollNetDirect", "CollNetChain", "PAT"};
constexpr std::array<std::string_view, kProtocols> kProtocolNames = {"LL", "LL128", "Simple"};

// Rows of an AlgoProtoTable in weft's order: ring, tree, nvls, nvls_tree, collnet_direct,
// collnet_chain, pat; columns LL, LL128, Simple.
using Row = std::array<double, kProtocols>;
constexpr AlgoProtoTable table(Row ring, Row tree, Row nvls, Row nvls_tree, Row cn_direct, Row cn_chain, Row pat) {
  return {ring, tree, nvls, nvls_tree, cn_direct, cn_chain, pat};
}

// HEAD / v2.30.7, ncclTunerConstantsDefaults (§2, §3, §6).
constexpr NcclVersion head() {
  NcclVersion v;
  v.name = "2.30.7";
  v.note = "master HEAD = v2.30.7-1 (newest documented)";
  v.base_latency =
      table({6.6, 14.0, 8.4}, {6.8, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0});
  v.hw_latency[kNvlink] =
      table({0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}, {0, 0, 25}, {0, 0, 25}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 4.0});
  v.hw_latency[kPci] =
      table({1.0, 2.5, 5.7}, {1.0, 1.9, 4.0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 4.0});
  v.hw_latency[kNet] =
      table({2.7, 4.0, 14.0}, {5.0, 8.5, 14}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 31}, {0, 0, 30}, {0, 0, 14});
  // Columns N1 / N2 / N4+ (§3). llMaxBws rows mix indices: row 0 = Volta-N1 or Intel multi-node,
  // row 1 = Ampere-N1 or AMD multi-node.
  v.ll_max_bw = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
  v.per_ch_max_ring_ll128_bw = {{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}}};
  v.per_ch_max_tree_ll128_bw = {{{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
  v.per_ch_max_tree_bw = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
  v.per_ch_max_nvls_tree_bw = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};
  v.nvls_efficiency = {0.0, 0.0, 0.85, 0.74};
  v.tree_correction[idx(Protocol::ll)] = {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
                                          .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0};
  v.tree_correction[idx(Protocol::ll128)] = {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
                                             .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0};
  v.tree_correction[idx(Protocol::simple)] = {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
                                              .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9};
  return v;
}

// v2.27.7 and v2.23.4: HEAD but NET/NVLSTree Simple = 14 and no PAT row (§2). Blackwell rows: 2.23
// predates Blackwell support (2.25), so it indexes Blackwell as Hopper (reading).
constexpr NcclVersion v2_2x(std::string_view name, bool blackwell) {
  NcclVersion v = head();
  v.name = name;
  v.note = "HEAD but NET/NVLSTree Simple 14 us, no PAT";
  v.hw_latency[kNet][idx(Algorithm::nvls_tree)][idx(Protocol::simple)] = 14;
  v.has_pat = false;
  v.has_blackwell_rows = blackwell;
  v.nvls_tree_blackwell_correction = false;
  return v;
}

// v2.21.5 (§2, §3, §6): Tree Simple base 0 and 28 us per hop everywhere; Ring LL128 0.7 at ppn < 2;
// 23 tree correction entries.
constexpr NcclVersion v2_21_5() {
  NcclVersion v = v2_2x("2.21.5", false);
  v.note = "Tree/Simple 28 us per hop, Ring LL128 x0.7 at 1 GPU per node, no PAT";
  v.base_latency[idx(Algorithm::tree)][idx(Protocol::simple)] = 0;
  for (AlgoProtoTable& hw : v.hw_latency) hw[idx(Algorithm::tree)][idx(Protocol::simple)] = 28;
  v.ring_ll128_low_ppn_0_7 = true;
  v.tree_correction_entries = 23;
  return v;
}

// v2.18.3 (§2, §3): the older NVLS/CollNet latencies and the Hopper llMaxBws row {87.7, 22.5, 19.0}.
// Not documented, assumed as v2.21.5: the Ring LL128 rule and 23 tree entries; PCI CollNet hops =
// the NVLINK ones; NVLINK NVLSTree = 0 like NVLS.
constexpr NcclVersion v2_18_3() {
  NcclVersion v = v2_21_5();
  v.name = "2.18.3";
  v.note = "NVLS base 23 us, CollNet base 6.8/14, Hopper llMaxBw 87.7, no PAT";
  v.base_latency[idx(Algorithm::tree)] = {6.8, 14.0, 0};
  v.base_latency[idx(Algorithm::collnet_direct)] = {6.8, 14.0, 0};
  v.base_latency[idx(Algorithm::collnet_chain)] = {6.8, 14.0, 0};
  v.base_latency[idx(Algorithm::nvls)] = {0, 0, 23.0};
  v.base_latency[idx(Algorithm::nvls_tree)] = {0, 0, 23.0};
  v.hw_latency[kNvlink] =
      table({0.6, 1.9, 3.4}, {0.6, 1.25, 4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 8.0}, {0, 0, 4.75}, {0, 0, 0});
  v.hw_latency[kPci] =
      table({1.0, 2.5, 5.7}, {1.0, 1.9, 6}, {0, 0, 0}, {0, 0, 0}, {0, 0, 8.0}, {0, 0, 4.75}, {0, 0, 0});
  v.hw_latency[kNet] =
      table({2.7, 4.0, 14.0}, {5.0, 8.5, 14}, {0, 0, 18}, {0, 0, 19}, {0, 0, 10.7}, {0, 0, 14}, {0, 0, 0});
  v.ll_max_bw[2] = {87.7, 22.5, 19.0};
  return v;
}

constexpr std::array<NcclVersion, 5> kVersions = {head(), v2_2x("2.27.7", true), v2_2x("2.23.4", false), v2_21_5(),
                                                  v2_18_3()};

std::string squash(std::string_view text) {
  std::string key;
  for (char c : text) {
    if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return key;
}

// log2i in tuning.cc: floor(log2(n)), 0 for n <= 1.
int log2i(uint64_t n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

bool is_nvls(Algorithm a) { return a == Algorithm::nvls || a == Algorithm::nvls_tree; }
bool is_collnet(Algorithm a) { return a == Algorithm::collnet_direct || a == Algorithm::collnet_chain; }
bool gathers(CollectiveOp op) { return op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter; }

// Ring steps per operation (§2): 2(n-1) all-reduce, n-1 all-gather / reduce-scatter, n otherwise.
double ring_steps(CollectiveOp op, uint32_t n) {
  if (op == CollectiveOp::all_reduce) return 2.0 * (n - 1);
  if (gathers(op)) return n - 1.0;
  return n;
}

size_t arch_row(const NcclVersion& v, GpuArch arch) {
  if (arch == GpuArch::blackwell && !v.has_blackwell_rows) return static_cast<size_t>(GpuArch::hopper);
  return static_cast<size_t>(arch);
}
size_t node_column(uint32_t nodes) { return std::min<uint32_t>(nodes - 1, 2); }  // index2 (§3)

// ---- latency (§2) --------------------------------------------------------------------------------

// netOverhead: 1.0 us on Intel x86 (and, by getNetOverhead's default, anything but AMD), 2.0 on AMD.
double net_overhead_us(CpuVendor cpu) { return cpu == CpuVendor::amd ? 2.0 : 1.0; }

double ring_latency(const NcclVersion& v, const TunerInput& in, Protocol p, double intra_lat, double inter_lat) {
  const uint32_t n = in.ranks();
  const double nsteps = ring_steps(in.op, n);
  const size_t hw = in.nodes == 1 ? (in.intra == IntraLink::nvlink ? kNvlink : kPci) : kNet;
  if (in.op != CollectiveOp::all_reduce && !gathers(in.op)) {
    // Broadcast / reduce. Reading: graph->sameChannels holds on one node (the search duplicates one
    // ring, §5 log "sameChannels 1"), not across nodes where each channel takes its own NIC.
    if (in.nodes == 1) return v.hw_latency[hw][idx(Algorithm::ring)][idx(p)];
    const Algorithm per_step = p == Protocol::simple ? Algorithm::tree : Algorithm::ring;
    return nsteps * v.hw_latency[hw][idx(per_step)][idx(p)];
  }
  double inter_steps = 0;
  if (in.nodes > 1) {
    inter_steps = in.op == CollectiveOp::all_reduce ? 2.0 * (in.nodes - 1) : in.nodes - 1.0;
    intra_lat = std::max(intra_lat, net_overhead_us(in.cpu) * (p == Protocol::simple ? 3 : 1));
  }
  return (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
}

double latency_us(const NcclVersion& v, const TunerInput& in, Algorithm a, Protocol p, uint32_t channels) {
  const size_t intra_row = in.intra == IntraLink::nvlink ? kNvlink : kPci;
  const double ppn = in.gpus_per_node;
  const double log_nodes = log2i(in.nodes);
  const double intra_lat = v.hw_latency[intra_row][idx(a)][idx(p)];
  // At one GPU per node the NET hop is the Tree one; the plugin's latency counts twice for Simple (flush).
  double inter_lat = v.hw_latency[kNet][idx(ppn == 1 ? Algorithm::tree : a)][idx(p)];
  inter_lat += in.net_latency_us * (p == Protocol::simple ? 2 : 1);
  double lat = v.base_latency[idx(a)][idx(p)];
  switch (a) {
    case Algorithm::ring:
      lat += ring_latency(v, in, p, intra_lat, inter_lat);
      break;
    case Algorithm::tree:
      lat += 2 * ((ppn - 1) * intra_lat + log_nodes * inter_lat);
      break;
    case Algorithm::collnet_direct:  // 0.4 us per local rank: "arity serialization"
      lat += 2 * (std::min(1.0, ppn - 1) * intra_lat + (ppn - 1) * 0.4) + inter_lat;
      break;
    case Algorithm::collnet_chain:
      lat += 2 * (ppn - 1) * intra_lat + inter_lat;
      break;
    // HEAD "replaces" baseLat, which is 0 there; v2.18.3 has NVLS base 23 us, added (reading).
    case Algorithm::nvls:
      lat += intra_lat + (in.nodes > 1 ? inter_lat : 0);
      break;
    case Algorithm::nvls_tree:
      lat += intra_lat + 2 * log_nodes * inter_lat;
      break;
    case Algorithm::pat:
      lat += log_nodes * (inter_lat / 3.5) + in.ranks() * 2.8;
      break;
  }
  // "Plateau effect of ring" (§1): multi-node Ring/Simple all-reduce with >= 64 B per channel and rank.
  if (a == Algorithm::ring && p == Protocol::simple && in.op == CollectiveOp::all_reduce && in.nodes > 1 &&
      in.size.count() / (uint64_t{channels} * in.ranks()) >= 64) {
    lat *= in.arch >= GpuArch::ampere ? 1.4 : 1.9;
  }
  return lat;
}

// ---- bandwidth (§3, §4, §5) ------------------------------------------------------------------------

// graph->bwIntra / bwInter, GB/s per channel. Reading of §5: the search makes channels x speed
// approach the GPU's link bandwidth, so the per-GPU rate is split evenly over the channels, capped by
// the fastest speed the search tries. A graph that crosses the network starts with one speed for
// NVLink and NIC (search.cc sets bwIntra = bwInter). Pass 2 of the search (search.cc, "increase
// bwIntra for trees (2 nodes or collnet)") then raises the bwIntra of every graph that is neither a
// ring nor NVLS (the tree graph, which PAT shares, and the CollNet graphs) while it is below twice
// bwInter and the node's links carry it; the tuner reads bwIntra on <= 2 nodes and for CollNet, so
// NCCL runs Tree on two nodes past the NICs' bound (the NCCL maintainers: "On two nodes, NCCL uses
// the tree (or nvlstree) algorithm which can indeed go beyond the network bottleneck",
// NVIDIA/nccl-tests#196). NVLS graphs keep both apart, and on one node pass 2 raises an NVLS
// graph's bwInter up to twice its bwIntra (there is no NIC to stop it).
struct GraphSpeeds {
  double intra = 0;
  double inter = 0;
};
GraphSpeeds graph_speeds(const TunerInput& in, Algorithm a, uint32_t channels) {
  const double intra = std::min(in.bw_intra_GBps / channels, max_channel_speed_intra(in.arch));
  const double inter = std::min(in.bw_inter_GBps * in.gpus_per_node / channels, max_channel_speed_inter(in.arch));
  if (in.nodes == 1) {
    if (is_nvls(a)) return {intra, std::min(2 * intra, max_channel_speed_intra(in.arch))};
    return {intra, intra};
  }
  if (is_nvls(a)) return {intra, inter};
  const double both = in.gpus_per_node == 1 ? inter : std::min(intra, inter);
  if (a == Algorithm::ring || in.gpus_per_node == 1) return {both, both};
  // Multi-node searches step through the inter speed array, so it also caps the raised bwIntra.
  return {std::min({intra, 2 * both, max_channel_speed_inter(in.arch)}), both};
}

double ll_max_bw(const NcclVersion& v, const TunerInput& in) {
  size_t row = arch_row(v, in.arch);
  if (in.nodes > 1) row = in.cpu == CpuVendor::amd ? 1 : 0;
  return v.ll_max_bw[row][node_column(in.nodes)];
}

double per_channel(const NcclVersion& v, const ArchTable& t, const TunerInput& in) {
  return t[arch_row(v, in.arch)][node_column(in.nodes)];
}

// NVLS and NVLSTree per-channel bandwidth (Simple only; 2+ channels, one is kept for sync).
double nvls_channel_bw(const NcclVersion& v, const TunerInput& in, Algorithm a, GraphSpeeds g, uint32_t ch) {
  if (ch < 2) return 0;
  const double ppn = in.gpus_per_node;
  double intra = g.intra * v.nvls_efficiency[arch_row(v, in.arch)] * (ch - 1) / ch;
  intra *= in.op == CollectiveOp::all_reduce ? 2.0 : (ppn - 1) / ppn;  // all-reduce pipelines two operations
  const double inter = g.inter * ((a == Algorithm::nvls_tree && in.nodes <= 2) ? 2 : 1);
  const double cap = a == Algorithm::nvls_tree ? per_channel(v, v.per_ch_max_nvls_tree_bw, in)
                                               : std::numeric_limits<double>::infinity();
  return std::min({intra, inter, cap});
}

// CollNet Direct, Simple (§3).
double collnet_direct_bus_bw(const TunerInput& in, GraphSpeeds g, double bus_bw, uint32_t ch) {
  const double ppn = in.gpus_per_node;
  if (gathers(in.op)) return ppn * std::min(g.intra, g.inter * 0.9);
  double factor = ppn / ch;
  factor -= (factor - 1) / 2;
  bus_bw /= factor;
  return in.arch >= GpuArch::hopper ? bus_bw * 0.85 : bus_bw;
}

// busBw after the "various model refinements" (§3), in tuning.cc's order.
double bus_bw(const NcclVersion& v, const TunerInput& in, Algorithm a, Protocol p, uint32_t ch) {
  const GraphSpeeds g = graph_speeds(in, a, ch);
  double bw = (in.nodes <= 2 || is_collnet(a)) ? g.intra : g.inter;
  if (is_nvls(a)) bw = nvls_channel_bw(v, in, a, g, ch);
  double bus = ch * bw;
  const bool ll = p == Protocol::ll, ll128 = p == Protocol::ll128;
  if (a == Algorithm::ring && ll) bus = std::min(ll_max_bw(v, in), bus * 0.5);
  if (a == Algorithm::ring && ll128) {
    const double f = (v.ring_ll128_low_ppn_0_7 && in.gpus_per_node < 2) ? 0.7 : 0.92;  // source: "120/128"
    bus = std::min(bus * f, ch * per_channel(v, v.per_ch_max_ring_ll128_bw, in));
  }
  if (a == Algorithm::tree) {  // v2.21.5 applied this to every Tree collective; Tree only runs all-reduce here
    bus = std::min(bus * 0.92, ch * per_channel(v, v.per_ch_max_tree_bw, in));
  }
  if (a == Algorithm::tree && ll) bus = std::min(bus / 3.8, ll_max_bw(v, in));
  if (a == Algorithm::tree && ll128) {
    const double f = in.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
    bus = std::min(bus * f, ch * per_channel(v, v.per_ch_max_tree_ll128_bw, in));
  }
  // Tree pattern TREE (x0.85) not applied: reading, the search's first choice, a balanced tree, is found.
  if (a == Algorithm::pat) bus *= 0.75;
  if (a == Algorithm::collnet_direct && p == Protocol::simple) bus = collnet_direct_bus_bw(in, g, bus, ch);
  return bus;
}

// busBw -> algorithm bandwidth (§4). Non-Ring all-gather / reduce-scatter stay unconverted.
double bus_to_alg_ratio(const TunerInput& in, Algorithm a) {
  if (a != Algorithm::ring && gathers(in.op)) return 1.0;
  if (a == Algorithm::ring || is_nvls(a)) return in.ranks() / ring_steps(in.op, in.ranks());
  return 0.5;
}

// Tree correction factor (§1, §6) by log2(size / 64); 1 outside the table.
double tree_correction(const NcclVersion& v, const TunerInput& in, Algorithm a, Protocol p) {
  if (in.op != CollectiveOp::all_reduce) return 1.0;
  const bool nvls_tree_too = a == Algorithm::nvls_tree && v.nvls_tree_blackwell_correction &&
                             in.arch == GpuArch::blackwell && in.cpu != CpuVendor::arm;
  if (a != Algorithm::tree && !nvls_tree_too) return 1.0;
  const auto i = static_cast<size_t>(log2i(in.size.count() >> 6));
  return i < v.tree_correction_entries ? v.tree_correction[idx(p)][i] : 1.0;
}

}  // namespace

double nvls_efficiency(const NcclVersion& v, GpuArch arch) { return v.nvls_efficiency[arch_row(v, arch)]; }

std::span<const Algorithm> all_algorithms() { return kAllAlgorithms; }
std::span<const Protocol> all_protocols() { return kAllProtocols; }
std::string_view to_string(Algorithm a) { return kAlgorithmNames[idx(a)]; }
std::string_view to_string(Protocol p) { return kProtocolNames[idx(p)]; }

std::string_view to_string(GpuArch a) {
  switch (a) {
    case GpuArch::volta:
      return "Volta";
    case GpuArch::ampere:
      return "Ampere";
    case GpuArch::hopper:
      return "Hopper";
    case GpuArch::blackwell:
      return "Blackwell";
  }
  return "?";
}

Algorithm parse_algorithm(std::string_view text, std::string_view what) {
  for (Algorithm a : kAllAlgorithms) {
    if (squash(text) == squash(to_string(a))) return a;
  }
  throw ConfigError(fmt::format("{}: unknown algorithm '{}' (known: {}){}", what, text, join_names(kAlgorithmNames),
                                did_you_mean(text, kAlgorithmNames)));
}

Protocol parse_protocol(std::string_view text, std::string_view what) {
  for (Protocol p : kAllProtocols) {
    if (squash(text) == squash(to_string(p))) return p;
  }
  throw ConfigError(fmt::format("{}: unknown protocol '{}' (known: {}){}", what, text, join_names(kProtocolNames),
                                did_you_mean(text, kProtocolNames)));
}

std::span<const NcclVersion> nccl_versions() { return kVersions; }

// Releases whose src/graph/tuning.cc is byte-identical to a modelled one's (git rev-parse
// vX-1:src/graph/tuning.cc gives the same blob), so they share its constants.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kSameTuning = {
    {{"2.18.5", "2.18.3"}, {"2.18.6", "2.18.3"}, {"2.27.5", "2.27.7"}, {"2.27.6", "2.27.7"}}};

const NcclVersion& nccl_version(std::string_view name) {
  const std::string key = squash(name);
  if (key.empty() || key == "head" || key == "newest" || key == "latest") return kVersions.front();
  if (name.starts_with('v')) name.remove_prefix(1);  // v2.21.5, as NCCL's tags spell it
  for (const auto& [release, modelled] : kSameTuning) {
    if (name == release) name = modelled;
  }
  for (const NcclVersion& v : kVersions) {
    const std::string_view n = v.name;
    if (name == n || name == n.substr(0, n.rfind('.'))) return v;
  }
  std::array<std::string_view, kVersions.size()> names{};
  for (size_t i = 0; i < kVersions.size(); ++i) names[i] = kVersions[i].name;
  throw ConfigError(fmt::format("nccl version: unknown '{}' (known: {}; \"\" or head = {})", name, join_names(names),
                                kVersions.front().name));
}

// §5: sm90SpeedArrayIntra starts at 60, sm100 at 90, older at 40; the inter arrays at 48, 48, 96.
double max_channel_speed_intra(GpuArch arch) {
  return arch == GpuArch::blackwell ? 90.0 : arch == GpuArch::hopper ? 60.0 : 40.0;
}
double max_channel_speed_inter(GpuArch arch) { return arch == GpuArch::blackwell ? 96.0 : 48.0; }

NcclEstimate nccl_estimate(const NcclVersion& v, const TunerInput& in, Algorithm a, Protocol p, uint32_t channels) {
  NcclEstimate e;
  e.latency_us = latency_us(v, in, a, p, channels);  // latCount = 1 for one operation (§1)
  e.bus_bandwidth_GBps = bus_bw(v, in, a, p, channels);
  e.bandwidth_GBps = e.bus_bandwidth_GBps * bus_to_alg_ratio(in, a) * tree_correction(v, in, a, p);
  // 1 GB/s = 1000 bytes/us (§1).
  e.time_us = e.bandwidth_GBps > 0 ? e.latency_us + static_cast<double>(in.size.count()) / (1000 * e.bandwidth_GBps)
                                   : std::numeric_limits<double>::infinity();
  return e;
}

}  // namespace weft
