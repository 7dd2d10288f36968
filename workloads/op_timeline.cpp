#include "workloads/op_timeline.h"

namespace weft {

OpTimeline::OpTimeline(const Workload& workload) : timings_(workload.ranks()) {
  for (uint32_t r = 0; r < workload.ranks(); ++r) timings_[r].resize(workload.programs[r].ops.size());
}

}  // namespace weft
