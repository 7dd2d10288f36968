#include "collectives/host_issue.h"

#include <fmt/format.h>

namespace weft {

Time host_issue_time(uint32_t gpus_per_thread) { return kEagerKernelLaunch * static_cast<int64_t>(gpus_per_thread); }

void charge_host_issue(SweepRow& row, uint32_t gpus_per_thread) {
  const Time host = host_issue_time(gpus_per_thread);
  if (row.size.count() == 0 || gpus_per_thread <= 1 || host <= row.time) return;
  const double scale = row.time.seconds() / host.seconds();  // bandwidths are size / time
  row.algbw_GBps *= scale;
  row.busbw_GBps *= scale;
  const std::string why = fmt::format(
      "host-bound: one thread launches {} GPUs' kernels ({} x {:.2f} us > {:.2f} us "
      "of GPU time)",
      gpus_per_thread, gpus_per_thread, kEagerKernelLaunch.microseconds(), row.time.microseconds());
  row.note = row.note.empty() ? why : row.note + "; " + why;
  row.time = host;
}

}  // namespace weft
