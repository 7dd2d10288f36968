// `weft collective --reduction-order` (issue 21): for each size of the sweep, the all-reduce NCCL's
// tuner picks on the system and the order it sums each element in (collectives/reduction_order.h),
// where that order changes from one size to the next, and the numbers: seeded inputs summed in that
// exact order on the CPU in fp32 and bf16, against the exactly rounded sum and against the previous
// size's sums of the same inputs.
#pragma once

#include <cstdint>
#include <string>

#include "scenarios/collective_request.h"

namespace weft {

struct ReductionReportOptions {
  uint64_t elements = 65536;  // summed per size and format (the buffer's first ones)
  uint64_t seed = 1;
  bool heavy_tailed = false;  // Student's t inputs instead of normal ones
  uint32_t shown = 3;         // sum trees printed per distinct order
};

// Throws ConfigError without a catalogue system or for an operation other than all_reduce.
std::string reduction_order_report(const PreparedCollective& prepared, const ReductionReportOptions& options);

}  // namespace weft
