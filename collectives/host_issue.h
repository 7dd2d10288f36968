// What the host pays to issue a collective, and when the host rather than the GPUs sets the pace.
//
// One process per GPU (nccl-tests -g 1 under MPI, PyTorch): each host thread launches one kernel per
// collective, a few microseconds against the GPUs' tens, so the host never binds. One thread driving N
// GPUs (nccl-tests -g N): ncclGroupEnd launches the N communicators' kernels in turn from that thread
// (NCCL src/group.cc doLaunches: per communicator cudaSetDevice, ncclLaunchPrepare, ncclLaunchKernel,
// ncclLaunchFinish). nccl-tests queues its timed iterations without synchronising between them and
// waits once after the loop (nccl-tests src/common.cu BenchTime: startColl per iteration, then
// completeColl), so the host runs ahead whenever it can and an iteration takes the longer of the GPUs'
// collective and the host's N launches (the serving model's eager launches follow the same rule).
#pragma once

#include <cstdint>

#include "collectives/sweep.h"
#include "sim/core/units.h"

namespace weft {

// One eager CUDA kernel launch from the host: 3.25 us (CUDA.jl documentation, "Graphs": 80 broadcast
// kernels launched one by one take 260 us of CPU). NCCL makes further CUDA calls per communicator
// (event records and stream waits in ncclLaunchPrepare and ncclLaunchFinish) that have no cited cost
// here, so N launches are a lower bound on the host's time per collective.
inline constexpr Time kEagerKernelLaunch = Time::ns(3'250);

// The host's time to issue one collective when one thread launches on `gpus_per_thread` GPUs.
Time host_issue_time(uint32_t gpus_per_thread);

// Charges the host's issue time to a measured row: when it is longer than the GPUs' collective, the
// row takes it (algbw and busbw scale with it) and its note says so. A row of zero bytes launches
// nothing and is left alone.
void charge_host_issue(SweepRow& row, uint32_t gpus_per_thread);

}  // namespace weft
