// An nccl-tests-style sweep: one collective over sizes min, min*factor, ... max, reported with the
// same columns and the same meaning (size = whole buffer in bytes, GB/s = 1e9 bytes/s).
#pragma once

#include <string>
#include <vector>

#include "collectives/collective_op.h"
#include "collectives/ring.h"
#include "collectives/simulate.h"
#include "topologies/topology.h"

namespace weft {

struct SweepSpec {
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes min_bytes{8};
  Bytes max_bytes{1 << 20};
  uint64_t factor = 2;
  RingOptions ring;
  std::string fabric = "flow";
  uint64_t seed = 1;
  bool pxn = false;
  RoutingPolicy routing = RoutingPolicy::ecmp;
};

struct SweepRow {
  Bytes size;        // as nccl-tests prints it (rounded down to whole elements on every rank)
  uint64_t count;    // elements: per buffer (all-reduce, broadcast) or per rank (all-gather, reduce-scatter)
  Time time;
  double algbw_GBps; // size / time
  double busbw_GBps; // algbw x bus_bandwidth_factor
  uint64_t transfers;
};

// nccl-tests' default data type; sizes are whole numbers of it.
inline constexpr const char* kElementType = "float";
inline constexpr uint64_t kElementBytes = 4;

// Throws ConfigError for an empty range or a factor below 2.
std::vector<SweepRow> sweep_collective(const SweepSpec& spec, const Topology& topology);

// One row: simulate `op` of `size` bytes on all GPUs of `topology`.
SweepRow measure_collective(CollectiveOp op, Bytes size, const RingOptions& ring, const Topology& topology,
                            const SimulationOptions& options);

}  // namespace weft
