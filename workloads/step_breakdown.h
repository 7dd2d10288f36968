// Where a replayed step's time goes, rank by rank: compute (any compute op running), exposed
// communication per group (communication running while no compute does; time shared equally among
// the groups active at that instant), and idle (nothing running: pipeline bubble, waiting for peers,
// the tail after the rank's last op). On every rank compute + exposed + idle = the step time.
#pragma once

#include <array>

#include "workloads/program.h"
#include "workloads/replayer.h"

namespace weft {

struct TimeSplit {
  Time compute;
  std::array<Time, kCommGroups> exposed{};  // by CommGroup
  Time idle;

  Time exposed_total() const;
};

struct StepBreakdown {
  Time step_time;
  TimeSplit mean;  // averaged over ranks (each part rounded to the picosecond)
  std::vector<TimeSplit> ranks;
  std::array<Time, kCommGroups> communication{};  // mean per rank of time with that group's ops running
  double model_flops = 0;                         // the workload's useful FLOPs, all ranks
  double tflops_per_gpu = 0;                      // model_flops / step / ranks / 1e12
  double mfu = 0;                                 // tflops_per_gpu / the GPU's dense peak at the workload's precision
};

// `peak_flops` is one GPU's dense peak, FLOP/s, for the MFU (0: MFU left at 0).
StepBreakdown breakdown(const Workload& workload, const ReplayResult& result, double peak_flops);

}  // namespace weft
