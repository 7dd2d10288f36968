// measured.json (docs/schedule-json.md): what a real executor timed. Per rank and op the start and
// end of every repeat (microseconds from the repeat's start on that rank, after a barrier), the
// op as the schedule gave it, and the environment. Instances group the rows of one collective or
// one send/recv pair, so predicted and measured are compared the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "executor/schedule_file.h"

namespace weft {

inline constexpr int kMeasuredVersion = 1;

struct MeasuredOp {
  uint32_t rank = 0, id = 0;
  LoweredOp op;             // as in the schedule
  uint32_t comm_ranks = 1;  // collective: members of its communicator
  std::string executed;     // what really ran: "ring p2p", "MPI_Iallreduce", "NCCL Ring/Simple", "cublasGemmEx"
  std::vector<double> start_us, end_us;  // one per repeat
};

struct Measured {
  int version = kMeasuredVersion;
  bool complete = true;  // written last, after every rank's rows; readers refuse false
  std::string schedule_name;
  std::string fingerprint;  // of the schedule that ran
  uint32_t ranks = 0;
  std::string gpu;       // the schedule's catalogue GPU (its predictions' assumption)
  std::string executor;  // weft-exec-mpi | weft-exec
  std::string mode;      // p2p | mpi-collectives | nccl-forced | nccl-choice
  uint32_t warmup = 0, repeats = 0;
  nlohmann::json environment = nlohmann::json::object();
  std::vector<MeasuredOp> ops;
};

// What an executor ran, for the header of its measured.json.
struct MeasuredRun {
  std::string executor;  // weft-exec-mpi | weft-exec
  std::string mode;      // p2p | mpi-collectives | nccl-forced | nccl-choice
  uint32_t warmup = 0, repeats = 0;
};

// A measurement of `s` by `run`: the header, then the rows of every rank as gathered to rank 0 (each
// {"rows": [...], ...}); the environment is the executor's to fill.
Measured gathered_measurement(const LoweredSchedule& s, const MeasuredRun& run,
                              const std::vector<nlohmann::json>& ranks);

nlohmann::json to_json(const MeasuredOp& o);
MeasuredOp measured_op_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json to_json(const Measured& m);
// ConfigError for another format or version, or an incomplete file.
Measured measured_from_json(const nlohmann::json& j, const std::string& source);
Measured load_measured(const std::string& path);

double median(std::vector<double> v);

// One collective (all its members' rows), one send/recv pair, or one compute/copy op.
struct Instance {
  std::string key;                                     // "c<comm>.<n>", "p<src>-<dst>.t<tag>.<n>", "o<rank>.<id>"
  LoweredOp op;                                        // the first member's
  uint32_t ranks = 1;                                  // members of the collective (1 for compute, 2 for a pair)
  std::vector<std::pair<uint32_t, uint32_t>> members;  // (rank, id)
  double measured_us = 0;  // median over repeats of (last end - last start) over the members
};

std::string instance_key(uint32_t rank, const LoweredOp& op);
// The instances of a measurement, in first-appearance order.
std::vector<Instance> measured_instances(const Measured& m);

}  // namespace weft
