// weft lower: a scenario's step (a training step, generated or traced, or a list of collectives) as
// the schedule the real executors run, with weft's predicted time per op. Also the built-in
// single-GPU calibration sweep (GEMMs, copies, single-rank collectives) for executor/gpu-check.sh.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "executor/calibrate.h"
#include "executor/schedule_file.h"
#include "scenarios/scenario.h"
#include "workloads/compute_model.h"
#include "workloads/program.h"
#include "workloads/replayer.h"

namespace weft {

struct Lowered {
  LoweredSchedule schedule;
  Predicted predicted;
};

// The rule for GEMM shapes (docs/schedule-json.md): a compute op whose FLOP rate is at least half
// the GPU's bf16 GEMM rate under `profile` is compute-bound and lowers to the square GEMM of the same
// FLOPs, n = cbrt(flops / 2) rounded to a multiple of 64 (at least 64); other compute ops keep only
// their duration. `gpu` empty: no GEMMs.
std::optional<GemmShape> equivalent_gemm(double flops, Time duration, const catalogue::GpuSpec* gpu,
                                         const ComputeProfile& profile);

// Lowers a workload: comms with their link class, ops with stable ids (their index), each collective
// with the plan weft's tuner makes for it, and the replay's times.
Lowered lower_workload(const Workload& w, const Topology& topology, const ClusterSpec& spec, const std::string& gpu,
                       const ComputeProfile& profile, const ReplayOptions& options);

// A scenario (its `variant`, "" = the baseline): a training step or a collectives list.
Lowered lower_scenario(const Scenario& s, const std::string& variant);

// The single-GPU calibration schedule of `gpu` (catalogue name): bf16 GEMMs 256..max_gemm (square
// and skinny), device copies and host<->device copies 1 MiB..max_copy, single-rank all-reduces
// 8 B..64 KiB for the launch overhead; predictions from the compute model and PCIe rates.
Lowered lower_gpu_sweep(const std::string& gpu, uint64_t max_gemm = 8192, uint64_t max_copy = 1ull << 30);

// Replaces the time of every collective and send/recv the network profile has a series for, then
// lays the schedule out again (streams in order, deps, collectives when all members are ready,
// pairs when both are): weft's calibrated prediction.
Predicted recalibrated(const LoweredSchedule& s, const Predicted& p, const NetworkProfile& profile,
                       const std::string& name);

// Picks the compare: variant `name` of `s` ("" or the baseline's name: `s`).
const Scenario& pick_variant(const Scenario& s, const std::string& name);

}  // namespace weft
