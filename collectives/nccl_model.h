// NCCL's own cost model (src/graph/tuning.cc, ncclTopoTuneModel + ncclTopoGetAlgoTime) as a pure
// function: the per-version latency and bandwidth constants and the formula
//   time_us = latency(algo, proto, nodes, ranks) + size / (1000 * algbw(algo, proto, link class))
// Every constant and rule cites its section of shared/reference/nccl_model.md ("§n").
// The choice among (algorithm, protocol) pairs lives in tuner.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "collectives/collective_op.h"
#include "sim/core/units.h"

namespace weft {

// NCCL's algorithms (ncclAlgoStr) and protocols (ncclProtoStr).
enum class Algorithm : uint8_t { ring, tree, nvls, nvls_tree, collnet_direct, collnet_chain, pat };
enum class Protocol : uint8_t { ll, ll128, simple };
inline constexpr size_t kAlgorithms = 7;
inline constexpr size_t kProtocols = 3;
std::span<const Algorithm> all_algorithms();
std::span<const Protocol> all_protocols();

// NCCL's spellings: Ring, Tree, NVLS, NVLSTree, CollNetDirect, CollNetChain, PAT; LL, LL128, Simple.
std::string_view to_string(Algorithm a);
std::string_view to_string(Protocol p);
// Case-insensitive, '_' and '-' ignored (nvls_tree = NVLSTree); ConfigError listing the names otherwise.
Algorithm parse_algorithm(std::string_view text, std::string_view what = "algorithm");
Protocol parse_protocol(std::string_view text, std::string_view what = "protocol");

// The GPU class that indexes NCCL's tables (compCapIndex, §3): Volta 0, Ampere 1 (also Ada, sm 8.x),
// Hopper 2, Blackwell 3.
enum class GpuArch : uint8_t { volta, ampere, hopper, blackwell };
std::string_view to_string(GpuArch a);

// NCCL's intraHw (§2): NVLINK when the graph's intra-node links are NVLink, PCI otherwise. The third
// class, NET, is implied by nodes > 1.
enum class IntraLink : uint8_t { nvlink, pci };

// The host CPU, for netOverhead (§2) and the multi-node llMaxBws row (§3).
enum class CpuVendor : uint8_t { intel, amd, arm };

// What NCCL's tuner knows about a communicator: what ncclTopoTuneModel reads from the topology.
struct TunerInput {
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes size;                  // bytes as nccl-tests prints "size" (§9): all-gather / reduce-scatter
                               // the total over ranks, which is NCCL's info->nBytes too
  uint32_t nodes = 1;          // NCCL's nNodes
  uint32_t gpus_per_node = 8;  // ppn = nRanks / nNodes; ranks = nodes * gpus_per_node
  GpuArch arch = GpuArch::hopper;
  IntraLink intra = IntraLink::nvlink;
  // GB/s per GPU, one direction, as NCCL's topology rates it (§5): NVLink links x SMxx_NVLINK_BW,
  // or PCIe width * speed / 80. Split evenly over the channels (see per_channel_speeds).
  double bw_intra_GBps = 0;
  // GB/s of NIC per GPU: NIC speed_mbps / 8000 (§5) x NICs per node / gpus_per_node.
  double bw_inter_GBps = 0;
  uint32_t nics_per_node = 8;  // NIC ports a node sends on; CollNet/NVLS all-gather needs 1 per GPU (§3)
  uint32_t channels = 16;      // comm->nChannels after the search (§5: 16 on H800; MAXCHANNELS 64)
  bool nvswitch = true;        // GPUs of a node on NVSwitch (CollNet Direct needs it, §7)
  bool nvls = false;           // NVSwitch generation 3+ (in-switch reduction and multicast)
  bool collnet = false;        // SHARP switches in the network and the CollNet plugin (§7)
  CpuVendor cpu = CpuVendor::intel;
  double net_latency_us = 0;  // graph->latencyInter: the net plugin's props->latency; IB and sockets 0 (§2)
  std::optional<Protocol> platform_protocol;  // NCCL_PROTO the platform's net plugin sets (node.nccl_proto)
  std::string version;                        // NCCL version, "" = the newest documented (2.30.7, HEAD)

  uint32_t ranks() const { return nodes * gpus_per_node; }
};

// The constants of one NCCL version (§2, §3, §6). Tables are indexed [Algorithm][Protocol] in
// weft's enum order, hardware rows [NVLINK, PCI, NET], GPU rows by GpuArch, columns N1/N2/N4+.
using AlgoProtoTable = std::array<std::array<double, kProtocols>, kAlgorithms>;
using ArchTable = std::array<std::array<double, 3>, 4>;
struct NcclVersion {
  std::string_view name;                       // "2.30.7"
  std::string_view note;                       // where it differs from HEAD
  AlgoProtoTable base_latency{};               // baseLatencies, us
  std::array<AlgoProtoTable, 3> hw_latency{};  // hwLatencies[NVLINK/PCI/NET], us per hop
  ArchTable ll_max_bw{};                       // llMaxBws rows 0..3 (rows mix arch and CPU, §3)
  ArchTable per_ch_max_ring_ll128_bw{};
  ArchTable per_ch_max_tree_ll128_bw{};
  ArchTable per_ch_max_tree_bw{};
  ArchTable per_ch_max_nvls_tree_bw{};
  std::array<double, 4> nvls_efficiency{};
  std::array<std::array<double, 24>, kProtocols> tree_correction{};  // by log2(size / 64)
  size_t tree_correction_entries = 24;                               // HEAD 24, v2.21.5 23 (§6)
  bool ring_ll128_low_ppn_0_7 = false;         // v2.21.5: Ring LL128 factor 0.7 when ppn < 2 (§3)
  bool has_pat = true;                         // PAT rows exist (§2: none in 2.27.7 and older)
  bool has_blackwell_rows = true;              // older versions index Blackwell as Hopper (reading)
  bool nvls_tree_blackwell_correction = true;  // NVLSTree x tree factors on cc>=100 + x86 (§1, HEAD only)
};

std::span<const NcclVersion> nccl_versions();
// "" and "head" = the newest; otherwise an exact name ("2.21.5"), its major.minor ("2.21") or a
// release whose tuning.cc is identical to a modelled one ("2.18.5" has 2.18.3's constants).
// ConfigError listing the known versions otherwise.
const NcclVersion& nccl_version(std::string_view name);

// NCCL's estimate for one (algorithm, protocol), before the enable rules (tuner.cpp applies those).
struct NcclEstimate {
  double latency_us = 0;          // lat * latCount (latCount = 1: one operation)
  double bus_bandwidth_GBps = 0;  // busBw after the model refinements (§3)
  double bandwidth_GBps = 0;      // the algorithm bandwidth NCCL divides by: busBw * ratio (§4),
                                  // times the tree correction factor where it applies (§1, §6)
  double time_us = 0;             // latency_us + size / (1000 * bandwidth_GBps)
};

// `channels` is comm->nChannels (after NCCL_MIN/MAX_NCHANNELS). Pairs NCCL never builds (NVLS with
// LL, Tree for all-gather, ...) still get the formula's numbers; tuner.h says what is enabled.
NcclEstimate nccl_estimate(const NcclVersion& v, const TunerInput& in, Algorithm a, Protocol p, uint32_t channels);

// nvlsEfficiency (§3): the share of the NVLink bandwidth NVLS's multimem operations reach, by GPU
// architecture (0 before Hopper).
double nvls_efficiency(const NcclVersion& v, GpuArch arch);

// The largest per-channel speed NCCL's search tries (§5, search.cc speed arrays), GB/s.
double max_channel_speed_intra(GpuArch arch);
double max_channel_speed_inter(GpuArch arch);

}  // namespace weft
