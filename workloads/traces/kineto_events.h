// The few fields of a PyTorch-profiler (Kineto) Chrome trace that the reader keeps, per event kind,
// so that memory grows with the kernels and collectives kept, not with the file
// (../shared/reference/workloads.md §2.2). Times are the trace's microseconds (floats).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace weft {

// NCCL fields PyTorch writes on record_param_comms and, in recent versions, on the NCCL kernel.
struct CollArgs {
  std::string name;  // "Collective name": allreduce, broadcast, all_gather, send, recv, ...
  std::string dtype;
  std::optional<uint64_t> in_nelems, out_nelems, group_size, src_rank, dst_rank;
  std::string pg_name;   // "Process Group Name"
  std::string pg_ranks;  // "Process Group Ranks", as written: "[0, 1]"
};

struct GpuEvent {  // cat kernel / gpu_memcpy / gpu_memset
  double ts = 0, dur = 0;
  int64_t stream = 0;
  std::optional<int64_t> correlation;
  uint32_t name = 0;  // KinetoEvents::names
  int32_t args = -1;  // KinetoEvents::args, -1: none
  bool nccl = false;  // ncclKernel_* / ncclDevKernel_*
};

struct LaunchEvent {  // cat cuda_runtime / cuda_driver: the host side of a kernel
  double ts = 0;
  int64_t tid = 0;
};

struct StepEvent {  // ProfilerStep#N
  uint32_t number = 0;
  double ts = 0, dur = 0;
};

struct HostCommEvent {  // record_param_comms, nccl:*, c10d::*, gloo:* host ops
  double ts = 0, dur = 0;
  int64_t tid = 0;
  uint32_t name = 0;
  int32_t args = -1;
  uint64_t shape_bytes = 0;  // first input: product of `Input Dims[0]` x size of `Input type[0]`
};

struct ProcessGroupConfig {
  std::string name;
  std::vector<uint32_t> ranks;
};

struct KinetoEvents {
  std::vector<std::string> names;
  std::unordered_map<std::string, uint32_t> name_index;
  std::vector<CollArgs> args;
  std::vector<GpuEvent> gpu;
  std::unordered_map<int64_t, LaunchEvent> launches;  // by correlation id
  std::vector<StepEvent> steps;
  std::vector<HostCommEvent> host_comms;
  double first_ts = 0;  // us, the earliest complete event's start (the trace's origin)
  bool any_ts = false;
  // distributedInfo
  std::optional<uint32_t> rank, world_size;
  std::string backend;
  std::vector<ProcessGroupConfig> pg_config;
  std::string schema;
  uint64_t events = 0;  // all traceEvents read

  uint32_t intern(const std::string& name);
};

}  // namespace weft
