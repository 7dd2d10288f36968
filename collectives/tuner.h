// NCCL's choice of algorithm, protocol and channels for one collective (topoGetAlgoInfo in
// enqueue.cc): the (algorithm, protocol) pair with the smallest predicted time (nccl_model.h) among
// those the enable rules of shared/reference/nccl_model.md §7 allow, with NCCL_ALGO / NCCL_PROTO /
// NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS as overrides. No tuner plugin.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collectives/nccl_model.h"
#include "topologies/clusters.h"
#include "topologies/topology.h"

namespace weft {

// NCCL's environment overrides. A single algorithm or protocol, not NCCL's lists ("Ring,Tree", "^NVLS").
struct TunerOverrides {
  std::optional<Algorithm> algorithm;    // NCCL_ALGO
  std::optional<Protocol> protocol;      // NCCL_PROTO; LL128 named here is used even where NCCL's
                                         // default leaves it off (as an explicit NCCL_PROTO does)
  std::optional<uint32_t> min_channels;  // NCCL_MIN_NCHANNELS, 1..64
  std::optional<uint32_t> max_channels;  // NCCL_MAX_NCHANNELS, 1..64
};

struct Choice {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::simple;
  uint32_t channels = 0;    // channels the kernel runs on: comm channels, fewer for small Ring/Tree
                            // messages (§8 thread thresholds)
  double predicted_us = 0;  // NCCL's estimate (simInfo->estimatedTime); 0 when not enabled
  double latency_us = 0;
  double bandwidth_GBps = 0;  // algorithm bandwidth the estimate divides by (bytes / us / 1000)
  bool enabled = true;        // candidates(): false for a pair NCCL would not run here
  std::string why;            // the reason it was chosen, or why it is not enabled
};

// The smallest predicted time among the enabled pairs, or the overridden ones. Throws ConfigError for
// an unknown version, an input NCCL could not have (fewer than 2 ranks, no bandwidth, channels outside
// 1..64), or an override the system cannot run, naming what is missing and what is available.
Choice tune(const TunerInput& in, const TunerOverrides& overrides = {});

// Every (algorithm, protocol) pair, in enum order, with its estimate or the reason it is off (for
// --explain). Overrides limit `enabled` as in tune() but never throw for an unavailable pair.
std::vector<Choice> candidates(const TunerInput& in, const TunerOverrides& overrides = {});

// Why NCCL would not run `a` for this input ("" when it would): hardware, version and collective rules
// of §7, independent of the protocol.
std::string algorithm_unavailable(const TunerInput& in, Algorithm a);

// NVLink GB/s per GPU, one direction, as NCCL rates it (§5): links x SMxx_NVLINK_BW.
double nvlink_GBps(const NodeSpec& node);

// What NCCL's topology code would hand its tuner for this cluster:
// - gpus_per_node = node.gpus (the NVLink domain for nvl_rack), nodes = spec.nodes;
// - arch from the GPU's catalogue description (Volta / Ampere or Ada / Hopper / Blackwell);
// - intra = NVLink on NVSwitch, NVLink-rack and cube-mesh nodes, and on two GPUs joined by a bridge;
//   PCI otherwise (a ring of more GPUs crosses PCIe);
// - bw_intra = NVLink links x SMxx_NVLINK_BW (§5: 20 Volta/Ampere, 12 sm86, 20.6 Hopper, 40.1
//   Blackwell), or PCIe lanes x speed / 80 (§5: gen 3 = 12 GB/s at x16 ... gen 6 = 96);
// - bw_inter = NIC port rate / 8 (NCCL: speed_mbps / 8000) x ports per node / gpus per node;
// - channels = 16 on NVLink (§5, the H800 log), 2 on PCIe (reading: one ring per direction);
// - nvls = an NVSwitch generation with in-switch reduction (3+); collnet = false (the spec alone cannot
//   tell; the Topology overload below reads SHARP switches);
// - cpu = Arm for Grace (GB200), Intel otherwise (the node spec does not say);
// - platform_protocol = node.nccl_proto, the NCCL_PROTO a vendor's net plugin sets (ConfigError naming
//   the key for an unknown protocol); NCCL_PROTO given by the user still wins, as in NCCL.
TunerInput describe_for_tuner(const ClusterSpec& spec, CollectiveOp op, Bytes size);
// The same, with nvls, collnet and the rank count read from the built topology: NVLS when an NVSwitch
// node reduces, CollNet when a network switch does (SHARP).
TunerInput describe_for_tuner(const Topology& topology, const ClusterSpec& spec, CollectiveOp op, Bytes size);

}  // namespace weft
