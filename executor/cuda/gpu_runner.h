// One rank of weft-exec on its GPU: a CUDA stream per schedule stream, a cudaEvent pair around
// every op, dependencies as cudaStreamWaitEvent, NCCL communicators per schedule communicator (one
// per algorithm/protocol/channels the schedule forces), cuBLAS for GEMMs.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "executor/cuda/bootstrap.h"
#include "executor/schedule_file.h"

namespace weft::gpu_exec {

struct OpTimes {
  double start_us = 0, end_us = 0;
};

// Throws std::runtime_error with the failing call and its error string.
void cuda_check(cudaError_t e, const char* what);
void nccl_check(ncclResult_t r, const char* what);
void cublas_check(cublasStatus_t s, const char* what);

class GpuRunner {
 public:
  // force_choice: NCCL_ALGO / NCCL_PROTO and the channel count (minCTAs = maxCTAs) from the schedule;
  // otherwise NCCL's own choice.
  GpuRunner(const LoweredSchedule& s, int device, Bootstrap& boot, bool force_choice);
  ~GpuRunner();
  GpuRunner(const GpuRunner&) = delete;
  GpuRunner& operator=(const GpuRunner&) = delete;

  // Enqueues the whole program once and waits; times from an origin event after a barrier.
  std::vector<OpTimes> run_once();
  const std::vector<std::string>& executed() const { return executed_; }

 private:
  using Choice = std::tuple<uint32_t, std::string, std::string, uint32_t>;  // comm, algorithm, protocol, channels
  void make_comms();
  ncclComm_t comm_for(const LoweredOp& o) const;
  void enqueue(const LoweredOp& o, cudaStream_t st);
  void enqueue_collective(const LoweredOp& o, cudaStream_t st);

  const LoweredSchedule& s_;
  uint32_t rank_;
  int device_;
  Bootstrap& boot_;
  bool force_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> start_, end_;
  cudaEvent_t origin_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  std::map<Choice, ncclComm_t> comms_;
  ncclComm_t world_ = nullptr;  // sends and recvs
  void* data_ = nullptr;        // collective and copy source, GEMM A
  void* out_ = nullptr;         // collective output, copy target, GEMM B and C
  void* c_ = nullptr;           // GEMM C
  void* host_ = nullptr;        // pinned, for host <-> device copies
  size_t data_bytes_ = 0;
  std::vector<std::string> executed_;
};

}  // namespace weft::gpu_exec
