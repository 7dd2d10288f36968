#include "collectives/plan.h"

#include <fmt/format.h>
#include <algorithm>
#include <bit>
#include <cmath>

#include "collectives/all_to_all.h"
#include "collectives/collnet.h"
#include "collectives/communicator.h"
#include "collectives/nvlink_rings.h"
#include "collectives/nvls.h"
#include "collectives/pat.h"
#include "collectives/ring.h"
#include "collectives/tree.h"
#include "sim/core/errors.h"
#include "topologies/routing.h"

namespace weft {
namespace {

// Which of NCCL's algorithms weft builds schedules for here.
bool modelled(Algorithm a, CollectiveOp op, const TunerInput& in) {
  switch (a) {
    case Algorithm::ring:
      return op != CollectiveOp::all_to_all && op != CollectiveOp::send_recv;
    case Algorithm::tree:
      return op == CollectiveOp::all_reduce;
    case Algorithm::nvls:
      return in.nodes == 1;
    case Algorithm::nvls_tree:
      return op == CollectiveOp::all_reduce && in.nodes > 1;
    case Algorithm::pat:
      return op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter;
    case Algorithm::collnet_direct:  // all-gather / reduce-scatter through SHARP: not yet
    case Algorithm::collnet_chain:
      return op == CollectiveOp::all_reduce && in.nodes > 1;
  }
  return false;
}

// The fastest enabled pair NCCL's model ranks among those weft simulates (an algorithm override
// named the unmodelled one, so only the other overrides still apply).
Choice best_modelled(const TunerInput& in, TunerOverrides overrides) {
  overrides.algorithm.reset();
  Choice best;
  best.predicted_us = -1;
  for (const Choice& c : candidates(in, overrides)) {
    if (!c.enabled || !modelled(c.algorithm, in.op, in)) continue;
    if (best.predicted_us < 0 || c.predicted_us < best.predicted_us) best = c;
  }
  if (best.predicted_us < 0) throw ConfigError("no algorithm weft models can run this collective here");
  return best;
}

// Payload bytes per protocol step (nccl_model.md §8): Simple 512 KiB x CHUNKSTEPS (ring's default);
// LL 64 KiB steps carry 32 KiB of data; LL128 614,400 B steps carry 15/16 of it.
Bytes chunk_for(Protocol p) {
  switch (p) {
    case Protocol::ll:
      return Bytes(32 * 1024);
    case Protocol::ll128:
      return Bytes(614'400 / 16 * 15);
    case Protocol::simple:
      return Bytes();
  }
  return Bytes();
}

// NCCL's NVLS chunk (enqueue.cc, calcCollChunking; nccl_model.md §8): NCCL_NVLS_CHUNKSIZE 128 KiB,
// 32 KiB on several nodes when NVLS all-reduce is rated below 150 GB/s, then 64/32/16 KiB while the
// message is under 64x/8x/2x of one round (channels x heads x chunk; heads = the node's GPUs).
Bytes nvls_chunk(Bytes size, const TunerInput& in, uint32_t channels) {
  uint64_t chunk = NvlsOptions{}.chunk.count();
  const uint64_t ops = uint64_t{std::max<uint32_t>(2, channels)} * in.gpus_per_node;
  const uint64_t bytes = size.count();
  if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
  if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  return Bytes(chunk);
}

// NVLSTree's (same place): min(NCCL_NVLS_CHUNKSIZE, NCCL_NVLSTREE_MAX_CHUNKSIZE, which is 64 KiB from 4
// nodes and the NVLS chunk below: transport/nvls.cc), then 256/128/64/32 KiB while the message is under
// 32x/16x/4x/1x of one round.
Bytes nvls_tree_chunk(Bytes size, const TunerInput& in, uint32_t channels) {
  uint64_t chunk = std::min<uint64_t>(NvlsOptions{}.chunk.count(), in.nodes >= 4 ? 65536 : UINT64_MAX);
  const uint64_t ops = uint64_t{std::max<uint32_t>(2, channels)} * in.gpus_per_node;
  const uint64_t bytes = size.count();
  const std::pair<uint64_t, uint64_t> steps[] = {{32, 262144}, {16, 131072}, {4, 65536}, {1, 32768}};
  for (auto [times, smaller] : steps) {
    if (bytes < times * ops * chunk && chunk > smaller) chunk = smaller;
  }
  return Bytes(chunk);
}

// Tree with LL128 (calcCollChunking, enqueue.cc): the chunk halves while fewer than nstepsLL128 x 64 / ppn
// chunks per channel fill the message (while above 128 KiB), then while fewer than nstepsLL128 x 16 /
// ppn (while above 32 KiB); nstepsLL128 = 1 + log2(nodes) + 0.1 ppn. NCCL divides in integers.
Bytes tree_ll128_chunk(Bytes size, const TunerInput& in, uint32_t channels) {
  uint64_t chunk = chunk_for(Protocol::ll128).count();
  const double ppn = in.gpus_per_node;
  const double steps = 1 + (std::bit_width(in.nodes) - 1) + 0.1 * ppn;  // log2i: floor
  const auto chunks = [&] {
    const uint64_t whole = size.count() / (uint64_t{channels} * chunk);  // NCCL divides in integers
    return static_cast<double>(whole);
  };
  while (chunks() < steps * 64 / ppn && chunk > 131072) chunk /= 2;
  while (chunks() < steps * 16 / ppn && chunk > 32768) chunk /= 2;
  return Bytes(chunk);
}

// Wire bytes per payload byte: LL lines are half flags, LL128 lines 8 B of flag per 120 B.
void scale_for_protocol(Schedule& s, Protocol p) {
  if (p == Protocol::simple) return;
  for (Stream& stream : s.streams) {
    for (StepRun& run : stream.runs) {
      uint64_t b = run.bytes.count();
      run.bytes = Bytes(p == Protocol::ll ? 2 * b : (b * 128 + 119) / 120);
    }
  }
}

// NVLS's in-switch steps reach nvlsEfficiency of the NVLink bandwidth (NCCL's model, §3: 0.85 on
// Hopper, 0.74 on Blackwell): their bytes cost 1/efficiency on the links, as a protocol's flags do.
void scale_for_nvls(Schedule& s, double efficiency) {
  if (efficiency <= 0 || efficiency >= 1) return;
  for (Stream& stream : s.streams) {
    for (StepRun& run : stream.runs) {
      if (run.kind != StepKind::group) continue;
      run.bytes = Bytes(static_cast<uint64_t>(std::ceil(static_cast<double>(run.bytes.count()) / efficiency)));
    }
  }
}

TreeOptions tree_build_options(Bytes size, const TunerInput& in, uint32_t channels, Protocol p) {
  TreeOptions o;
  o.channels = std::max<uint32_t>(2, channels + channels % 2);
  o.chunk = p == Protocol::ll128 ? tree_ll128_chunk(size, in, o.channels) : chunk_for(p);
  o.ranks_per_node = in.nodes > 1 ? in.gpus_per_node : in.ranks();
  return o;
}

// What one channel moves at most, the speed NCCL's search gives it (§5): the GPU's intra-node rate
// split over the channels, capped by the fastest speed the search tries.
Bandwidth channel_speed(const TunerInput& in, uint32_t channels) {
  const double speed = std::min(in.bw_intra_GBps / channels, max_channel_speed_intra(in.arch));
  return Bandwidth::bps(static_cast<uint64_t>(speed * 8e9));
}

// NVLS and NVLSTree: at least 2 channels (one is kept for synchronisation); the scatter and gather
// warps copy at a channel's speed [assumption: the rate weft gives a ring or tree channel's copies
// through its FIFO; no per-warp-group figure is published].
NvlsOptions nvls_build_options(Bytes chunk, const TunerInput& in, uint32_t channels) {
  const uint32_t nvls_channels = std::max<uint32_t>(2, channels);
  return {nvls_channels, chunk, channel_speed(in, nvls_channels)};
}

Schedule build(Algorithm a, CollectiveOp op, Bytes size, const TunerInput& in, uint32_t channels, Protocol p) {
  uint32_t ranks = in.ranks();
  switch (a) {
    case Algorithm::tree:
      return tree_all_reduce(ranks, size, tree_build_options(size, in, channels, p));
    case Algorithm::nvls:
      return nvls_schedule(op, ranks, size, nvls_build_options(nvls_chunk(size, in, channels), in, channels));
    case Algorithm::nvls_tree:
      return nvls_tree_all_reduce(in.nodes, in.gpus_per_node, size,
                                  nvls_build_options(nvls_tree_chunk(size, in, channels), in, channels));
    case Algorithm::pat:
      return pat_schedule(op, ranks, size, {.channels = std::max<uint32_t>(1, channels)});
    case Algorithm::collnet_direct:
    case Algorithm::collnet_chain: {
      // Heads: the GPUs of a node with a NIC port of their own (all of them on DGX A100/H100).
      CollNetOptions o{.channels = std::max<uint32_t>(1, channels),
                       .heads = std::clamp<uint32_t>(in.nics_per_node, 1, in.gpus_per_node)};
      return a == Algorithm::collnet_direct ? collnet_direct_all_reduce(in.nodes, in.gpus_per_node, size, o)
                                            : collnet_chain_all_reduce(in.nodes, in.gpus_per_node, size, o);
    }
    default: {
      RingOptions o;
      o.channels = std::max<uint32_t>(1, channels);
      o.chunk = chunk_for(p);
      o.simple = p == Protocol::simple;
      return ring_schedule(op, ranks, size, o);
    }
  }
}

Time microseconds(double us) { return Time::ps(static_cast<int64_t>(std::llround(us * 1e6))); }

// The NVLink rings of a one-node communicator joined by NVLink cables (none for NVSwitch, PCIe, or
// several nodes): each ring serves a channel each way. Once per plan: it scans every link of the
// topology.
std::vector<std::vector<uint32_t>> cable_rings(const Topology& t, const TunerInput& in,
                                               std::span<const uint32_t> gpus) {
  if (in.nodes != 1) return {};
  return nvlink_rings(t, gpus, (in.channels + 1) / 2);
}

// The position each virtual ring position of channel c maps to (positions are node-major, see
// communicator.h). One node joined by NVLink cables: the channel's NVLink ring of `rings`
// (cable_rings; alternating directions). Several nodes: within each node the ring starts at a
// different GPU per channel, so channels leave the node through different GPUs and NICs (as NCCL's
// per-channel rings do).
std::vector<uint32_t> ring_order(const TunerInput& in, const std::vector<std::vector<uint32_t>>& rings,
                                 uint32_t channel) {
  uint32_t n = in.ranks(), g = in.gpus_per_node;
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  if (in.nodes == 1) {
    if (rings.empty()) return order;  // NVSwitch (no GPU-to-GPU cables) or PCIe: rank order
    std::vector<uint32_t> ring = rings[(channel / 2) % rings.size()];
    if (channel % 2 == 1) std::reverse(ring.begin() + 1, ring.end());
    return ring;
  }
  uint32_t offset = (channel * std::max<uint32_t>(1, g / std::max<uint32_t>(1, in.nics_per_node))) % g;
  for (uint32_t i = 0; i < n; ++i) order[i] = i / g * g + (i % g + offset) % g;
  return order;
}

// Relabels each channel's streams and peers with its ring order.
void apply_ring_orders(Schedule& s, const Topology& t, const TunerInput& in, std::span<const uint32_t> gpus) {
  std::vector<std::vector<uint32_t>> orders;
  const std::vector<std::vector<uint32_t>> rings = cable_rings(t, in, gpus);
  for (Stream& stream : s.streams) {
    while (orders.size() <= stream.channel) {
      orders.push_back(ring_order(in, rings, static_cast<uint32_t>(orders.size())));
    }
    const std::vector<uint32_t>& order = orders[stream.channel];
    stream.rank = order[stream.rank];
    for (StepRun& run : stream.runs) {
      if (run.kind == StepKind::send) run.peer = order[run.peer];
    }
  }
}

// The propagation the simulation adds along a ring's steps: NCCL's step count (§2: 2(n-1) for an
// all-reduce, n-1 for the others) times the path latency between the first two ranks of channel 0.
double simulated_ring_latency_us(const CollectivePlan& plan, const Topology& t, std::span<const uint32_t> gpus,
                                 CollectiveOp op) {
  if (plan.simulated != Algorithm::ring || plan.schedule.streams.empty()) return 0;
  uint32_t n = plan.schedule.ranks;
  double steps = op == CollectiveOp::all_reduce ? 2.0 * (n - 1) : n - 1.0;
  const Stream& first = plan.schedule.streams.front();
  uint32_t next = first.runs.empty() ? first.rank : first.runs.front().peer;
  Router router(t, 1);
  double hop = router.route(t.gpus()[gpus[first.rank]], t.gpus()[gpus[next]], 0).latency.microseconds();
  return std::min(steps * hop, 0.5 * plan.choice.latency_us);  // never more than half NCCL's term
}

// NCCL's latency term for what runs, without the net plugin's props->latency: aws-ofi-nccl sets that
// so that "NCCL's internal tuner choices work better" (src/platform-aws.cpp), a hint for the choice
// (which keeps it), not a time the operation pays.
double physical_latency_us(const TunerInput& in, const Choice& run) {
  if (in.net_latency_us == 0) return run.latency_us;
  TunerInput without_hint = in;
  without_hint.net_latency_us = 0;
  const uint32_t channels = std::max<uint32_t>(1, run.channels);
  return tune(without_hint, {run.algorithm, run.protocol, channels, channels}).latency_us;
}

}  // namespace

CollectivePlan plan_collective(CollectiveOp op, Bytes size, const Topology& topology, const ClusterSpec& spec,
                               const PlanOptions& options) {
  std::vector<uint32_t> all(topology.gpus().size());
  for (uint32_t r = 0; r < all.size(); ++r) all[r] = r;
  return plan_collective(op, size, topology, spec, all, options);
}

CollectivePlan plan_collective(CollectiveOp op, Bytes size, const Topology& topology, const ClusterSpec& spec,
                               std::span<const uint32_t> gpus, const PlanOptions& options) {
  CollectivePlan plan;
  const CommunicatorLayout layout = layout_of(topology, gpus);
  if (op == CollectiveOp::all_to_all || op == CollectiveOp::send_recv) {
    // Point-to-point: NCCL posts grouped sends on its p2p channels; no tuner is involved.
    auto ranks = static_cast<uint32_t>(gpus.size());
    plan.schedule = op == CollectiveOp::all_to_all ? pairwise_all_to_all(ranks, size) : send_recv(ranks, size);
    plan.label = op == CollectiveOp::all_to_all ? "pairwise p2p" : "p2p";
    plan.choice.why = "point-to-point: grouped sends, not tuned by NCCL";
    return plan;
  }
  plan.input = describe_communicator(topology, spec, layout, op, size);
  plan.input.version = options.version;
  plan.choice = tune(plan.input, options.overrides);
  Choice run = plan.choice;
  if (!modelled(run.algorithm, op, plan.input)) {
    run = best_modelled(plan.input, options.overrides);
    plan.note = fmt::format(
        "NCCL would run {}/{}; weft simulates {}/{}, the best of what it models ({} is not "
        "modelled yet)",
        to_string(plan.choice.algorithm), to_string(plan.choice.protocol), to_string(run.algorithm),
        to_string(run.protocol), to_string(plan.choice.algorithm));
  }
  plan.simulated = run.algorithm;
  plan.run = run;
  plan.label =
      fmt::format("{}/{} x{}", to_string(run.algorithm), to_string(run.protocol), std::max<uint32_t>(1, run.channels));
  uint32_t channels = std::max<uint32_t>(1, run.channels);
  plan.schedule = build(run.algorithm, op, size, plan.input, channels, run.protocol);
  if (run.algorithm == Algorithm::ring || run.algorithm == Algorithm::tree) {
    // trees cross nodes at per-channel GPUs too
    apply_ring_orders(plan.schedule, topology, plan.input, layout.gpu_of_position);
  }
  scale_for_protocol(plan.schedule, run.protocol);
  if (run.algorithm == Algorithm::nvls || run.algorithm == Algorithm::nvls_tree) {
    scale_for_nvls(plan.schedule, nvls_efficiency(nccl_version(plan.input.version), plan.input.arch));
  }
  // NCCL's latency term for the whole operation (§2: base latency plus the hardware latency of its
  // steps), charged once before the first step. NCCL's per-step term already covers the wire, which
  // the simulated links add again; for a ring the part the links give back is taken out.
  plan.schedule.start_latency = microseconds(physical_latency_us(plan.input, run) -
                                             simulated_ring_latency_us(plan, topology, layout.gpu_of_position, op));
  // One channel copies no faster than the speed NCCL's search gives it (§5); NVLS moves data with
  // the switch's multimem operations instead, limited by the links.
  if (run.algorithm != Algorithm::nvls && run.algorithm != Algorithm::nvls_tree) {
    plan.schedule.channel_rate = channel_speed(plan.input, channels);
  }
  relabel(plan.schedule, layout.by_position);  // node-major positions -> the communicator's ranks
  return plan;
}

std::vector<uint32_t> channel_ranks(const CollectivePlan& plan, const Topology& topology,
                                    std::span<const uint32_t> gpus, uint32_t channel) {
  const CommunicatorLayout layout = layout_of(topology, gpus);
  const auto n = static_cast<uint32_t>(gpus.size());
  std::vector<uint32_t> order(n);
  for (uint32_t p = 0; p < n; ++p) order[p] = p;
  if (plan.simulated == Algorithm::ring || plan.simulated == Algorithm::tree) {
    order = ring_order(plan.input, cable_rings(topology, plan.input, layout.gpu_of_position), channel);
  }
  std::vector<uint32_t> ranks(n);
  for (uint32_t p = 0; p < n; ++p) ranks[p] = layout.by_position[order[p]];
  return ranks;
}

uint64_t ring_chunk_bytes(Protocol p) {
  const Bytes chunk = chunk_for(p);
  return chunk.count() > 0 ? chunk.count() : kSimpleStepBytes * kRingChunkSteps;
}

TreeOptions tree_options(const CollectivePlan& plan) {
  return tree_build_options(plan.schedule.size, plan.input, std::max<uint32_t>(1, plan.run.channels),
                            plan.run.protocol);
}

}  // namespace weft
