// How each published system of ../shared/validation/collectives.csv is described to weft: the
// catalogue preset, the fields its published set-up changes (GPUs in use, NICs, P2P), the algorithm
// when the measurement forced one and the NCCL version when the source names it. Every value comes
// from the row's own columns, the vendor's description of the machine or the source's own benchmark
// script (how it ran nccl-tests: -g, NCCL_ALGO), never from its timings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/csv_rows.h"
#include "collectives/collective_op.h"
#include "collectives/ep_exchange.h"
#include "collectives/plan.h"
#include "topologies/systems.h"

namespace weft::bench {

// A DeepEP row: MoE dispatch or combine (collectives/ep_exchange.h) instead of an NCCL collective.
struct EpCase {
  EpKernel kernel = EpKernel::normal;
  EpPhase phase = EpPhase::dispatch;
  EpRouting routing;
  EpExchange exchange;  // the row's exchange, built once: its counted bytes describe the row, its schedule runs
};

struct DescribedRow {
  std::string preset;             // the catalogue system it starts from
  std::vector<std::string> sets;  // KEY=VALUE changes, as `weft collective --set` takes them
  ClusterSpec spec;               // the preset with the changes and the row's node count
  PlanOptions plan;               // forced algorithm, NCCL version (when the tuner knows it)
  CollectiveOp op = CollectiveOp::all_reduce;
  uint64_t bytes = 0;
  uint32_t gpus = 0;
  uint32_t gpus_per_thread = 1;  // nccl-tests -g, when the notes give it
  std::optional<EpCase> ep;      // a DeepEP kernel; `bytes` is then what its benchmark counts per rank
  double measured_us = 0;        // time_us, or bytes x bus factor / busbw when only busbw is published
  std::string setup;             // what the row's description changed, for the report
};

// The row as weft runs it. Throws ConfigError with the reason when weft cannot describe it (a system
// outside the catalogue, a kernel that is not an NCCL collective, a row with no size or time).
DescribedRow describe_row(const Row& row);

// The NCCL version the row's notes name ("NCCL 2.18.5"), "" when none.
std::string nccl_version_in(const std::string& notes);

}  // namespace weft::bench
