#include "collectives/sweep.h"

#include <fmt/format.h>

#include "collectives/all_to_all.h"
#include "collectives/host_issue.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

bool per_rank_count(CollectiveOp op) {
  return op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_to_all;
}

// nccl-tests: all-gather and reduce-scatter sizes are whole elements on every rank.
uint64_t granule(CollectiveOp op, uint32_t ranks) { return kElementBytes * (per_rank_count(op) ? ranks : 1); }

SweepRow row_of(CollectiveOp op, Bytes rounded, uint32_t ranks, const SimulationResult& result) {
  double seconds = result.time.seconds();
  double algbw = seconds > 0 ? static_cast<double>(rounded.count()) / seconds / 1e9 : 0.0;
  return {rounded, rounded.count() / granule(op, ranks),    result.time,
          algbw,   algbw * bus_bandwidth_factor(op, ranks), result.transfers};
}

// NCCL discards a collective of zero elements before planning it (enqueue.cc taskAppend: "Empty
// collectives can be discarded"): no kernel runs and nothing moves, so nccl-tests times only its own
// loop. The row says so instead of simulating anything.
SweepRow empty_row() {
  SweepRow row{Bytes(0), 0, Time(), 0.0, 0.0, 0};
  row.algorithm = "none";
  row.note = "zero bytes: NCCL discards an empty collective (no kernel, no transfer)";
  return row;
}

// nccl-tests' next size; from 0 (which a factor never leaves) the sweep goes on at one element.
uint64_t next_size(uint64_t size, uint64_t factor) { return size == 0 ? kElementBytes : size * factor; }

}  // namespace

SweepRow measure_collective(CollectiveOp op, Bytes size, const RingOptions& ring, const Topology& topology,
                            const SimulationOptions& options) {
  if (size.count() == 0) return empty_row();
  auto ranks = static_cast<uint32_t>(topology.gpus().size());
  Bytes rounded(size.count() / granule(op, ranks) * granule(op, ranks));
  bool p2p = op == CollectiveOp::all_to_all || op == CollectiveOp::send_recv;
  Schedule schedule = op == CollectiveOp::all_to_all  ? pairwise_all_to_all(ranks, rounded)
                      : op == CollectiveOp::send_recv ? send_recv(ranks, rounded)
                                                      : ring_schedule(op, ranks, rounded, ring);
  SimulationResult result = simulate(schedule, topology, options);
  SweepRow row = row_of(op, rounded, ranks, result);
  row.links = std::move(result.links);
  row.algorithm = p2p ? "pairwise p2p" : fmt::format("Ring/Simple x{}", ring.channels);
  return row;
}

SweepRow measure_planned(CollectiveOp op, Bytes size, const Topology& topology, const ClusterSpec& system,
                         const PlanOptions& plan_options, const SimulationOptions& options) {
  if (size.count() == 0) return empty_row();
  auto ranks = static_cast<uint32_t>(topology.gpus().size());
  Bytes rounded(std::max(size.count() / granule(op, ranks), uint64_t{1}) * granule(op, ranks));
  CollectivePlan plan = plan_collective(op, rounded, topology, system, plan_options);
  SimulationResult result = simulate(plan.schedule, topology, options);
  SweepRow row = row_of(op, rounded, ranks, result);
  row.links = std::move(result.links);
  row.algorithm = plan.label;
  row.note = plan.note;
  return row;
}

std::vector<SweepRow> sweep_collective(const SweepSpec& spec, const Topology& topology) {
  if (spec.factor < 2)
    throw ConfigError(fmt::format("--factor: expected an integer of at least 2, got {}", spec.factor));
  if (spec.min_bytes > spec.max_bytes) {
    throw ConfigError(fmt::format("--min-bytes ({}) is larger than --max-bytes ({})", spec.min_bytes.count(),
                                  spec.max_bytes.count()));
  }
  SimulationOptions options{spec.simulation};
  std::vector<SweepRow> rows;
  size_t sizes = 0;
  for (uint64_t size = spec.min_bytes.count(); size <= spec.max_bytes.count(); size = next_size(size, spec.factor)) {
    ++sizes;
  }
  require_simulations(spec.simulation.fabric, sizes, "sizes", "give -b and -e the same size");
  for (uint64_t size = spec.min_bytes.count(); size <= spec.max_bytes.count(); size = next_size(size, spec.factor)) {
    options.link_stats = spec.link_stats && size > spec.max_bytes.count() / spec.factor;  // the largest size
    rows.push_back(spec.system ? measure_planned(spec.op, Bytes(size), topology, *spec.system, spec.plan, options)
                               : measure_collective(spec.op, Bytes(size), spec.ring, topology, options));
    charge_host_issue(rows.back(), spec.gpus_per_thread);
    if (size > UINT64_MAX / spec.factor) break;
  }
  return rows;
}

}  // namespace weft
