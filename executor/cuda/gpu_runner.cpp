#include "executor/cuda/gpu_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "executor/cuda/kernels.h"

namespace weft::gpu_exec {
namespace {

ncclDataType_t nccl_type(const std::string& dtype) {
  if (dtype == "float32") return ncclFloat32;
  if (dtype == "bf16") return ncclBfloat16;
  if (dtype == "fp16") return ncclFloat16;
  return ncclUint8;
}

// NCCL's names for NCCL_ALGO / NCCL_PROTO (docs: env.html).
std::string nccl_algo(const std::string& a) {
  if (a == "ring") return "Ring";
  if (a == "tree") return "Tree";
  if (a == "nvls") return "NVLS";
  if (a == "nvls_tree") return "NVLSTree";
  if (a == "collnet_direct") return "CollnetDirect";
  if (a == "collnet_chain") return "CollnetChain";
  if (a == "pat") return "PAT";
  return "";
}
std::string nccl_proto(const std::string& p) {
  if (p == "simple") return "Simple";
  if (p == "ll") return "LL";
  if (p == "ll128") return "LL128";
  return "";
}

// Bytes of the largest buffer any op of this rank touches (GEMMs: their largest matrix).
size_t buffer_bytes(const std::vector<LoweredOp>& ops) {
  size_t most = 1 << 20;
  for (const LoweredOp& o : ops) {
    most = std::max<size_t>(most, o.bytes);
    if (o.gemm)
      most =
          std::max<size_t>(most, 2 * std::max({o.gemm->m * o.gemm->k, o.gemm->k * o.gemm->n, o.gemm->m * o.gemm->n}));
  }
  return most;
}

}  // namespace

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}
void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(fmt::format("{}: {}", what, ncclGetErrorString(r)));
}
void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(fmt::format("{}: cuBLAS status {}", what, static_cast<int>(s)));
}

GpuRunner::GpuRunner(const LoweredSchedule& s, int device, Bootstrap& boot, bool force_choice)
    : s_(s), rank_(static_cast<uint32_t>(boot.rank())), device_(device), boot_(boot), force_(force_choice) {
  cuda_check(cudaSetDevice(device_), "cudaSetDevice");
  const std::vector<LoweredOp>& ops = s.programs[rank_];
  uint32_t nstreams = 1;
  for (const LoweredOp& o : ops) nstreams = std::max(nstreams, o.stream + 1);
  streams_.resize(nstreams);
  for (cudaStream_t& st : streams_)
    cuda_check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
  start_.resize(ops.size());
  end_.resize(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    cuda_check(cudaEventCreate(&start_[i]), "cudaEventCreate");
    cuda_check(cudaEventCreate(&end_[i]), "cudaEventCreate");
  }
  cuda_check(cudaEventCreate(&origin_), "cudaEventCreate");
  data_bytes_ = buffer_bytes(ops);
  cuda_check(cudaMalloc(&data_, data_bytes_), "cudaMalloc");
  cuda_check(cudaMalloc(&out_, data_bytes_), "cudaMalloc");
  cuda_check(cudaMalloc(&c_, data_bytes_), "cudaMalloc");
  cuda_check(cudaMemset(data_, 0, data_bytes_), "cudaMemset");
  cuda_check(cudaMemset(out_, 0, data_bytes_), "cudaMemset");
  cuda_check(cudaMallocHost(&host_, data_bytes_), "cudaMallocHost");
  cublas_check(cublasCreate(&cublas_), "cublasCreate");
  executed_.assign(ops.size(), "");
  make_comms();
}

GpuRunner::~GpuRunner() {
  for (auto& [k, c] : comms_) ncclCommDestroy(c);
  if (world_) ncclCommDestroy(world_);
  if (cublas_) cublasDestroy(cublas_);
  cudaFreeHost(host_);
  cudaFree(out_);
  cudaFree(c_);
  cudaFree(data_);
  for (cudaEvent_t e : start_) cudaEventDestroy(e);
  for (cudaEvent_t e : end_) cudaEventDestroy(e);
  if (origin_) cudaEventDestroy(origin_);
  for (cudaStream_t st : streams_) cudaStreamDestroy(st);
}

// Every rank walks the same list (from the schedule), so unique ids and inits line up: rank 0 of
// each communicator makes the id, everyone takes part in its broadcast, members init.
void GpuRunner::make_comms() {
  std::vector<Choice> wanted;
  for (uint32_t r = 0; r < s_.ranks(); ++r) {
    for (const LoweredOp& o : s_.programs[r]) {
      if (o.kind != LoweredKind::collective) continue;
      const Choice c = force_ ? Choice{o.comm, o.algorithm, o.protocol, o.channels} : Choice{o.comm, "", "", 0};
      if (std::find(wanted.begin(), wanted.end(), c) == wanted.end()) wanted.push_back(c);
    }
  }
  std::sort(wanted.begin(), wanted.end());
  auto init = [&](const std::vector<uint32_t>& members, const std::string& algo, const std::string& proto,
                  uint32_t channels, ncclComm_t& comm) {
    ncclUniqueId id{};
    const int root = static_cast<int>(members.front());
    if (boot_.rank() == root) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    boot_.broadcast(&id, sizeof id, root);
    if (boot_.owns_environment()) {
      // NCCL reads NCCL_ALGO / NCCL_PROTO when a communicator is created (ncclTopoTuneModel).
      if (algo.empty())
        unsetenv("NCCL_ALGO");
      else
        setenv("NCCL_ALGO", algo.c_str(), 1);
      if (proto.empty())
        unsetenv("NCCL_PROTO");
      else
        setenv("NCCL_PROTO", proto.c_str(), 1);
    }
    boot_.barrier();
    const auto it = std::find(members.begin(), members.end(), rank_);
    if (it != members.end()) {
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      if (channels > 0) config.minCTAs = config.maxCTAs = static_cast<int>(channels);
      nccl_check(ncclCommInitRankConfig(&comm, static_cast<int>(members.size()), id,
                                        static_cast<int>(it - members.begin()), &config),
                 "ncclCommInitRankConfig");
    }
    boot_.barrier();
  };
  for (const Choice& c : wanted) {
    const auto& [comm, algorithm, protocol, channels] = c;
    ncclComm_t made = nullptr;
    init(s_.comms[comm].ranks, nccl_algo(algorithm), nccl_proto(protocol), channels, made);
    if (made) comms_[c] = made;
  }
  bool p2p = false;
  for (const auto& prog : s_.programs) {
    for (const LoweredOp& o : prog) p2p = p2p || o.kind == LoweredKind::send || o.kind == LoweredKind::recv;
  }
  if (p2p) {
    std::vector<uint32_t> all(s_.ranks());
    for (uint32_t r = 0; r < s_.ranks(); ++r) all[r] = r;
    init(all, "", "", 0, world_);
  }
  if (boot_.owns_environment()) {
    unsetenv("NCCL_ALGO");
    unsetenv("NCCL_PROTO");
  }
}

ncclComm_t GpuRunner::comm_for(const LoweredOp& o) const {
  const Choice c = force_ ? Choice{o.comm, o.algorithm, o.protocol, o.channels} : Choice{o.comm, "", "", 0};
  return comms_.at(c);
}

void GpuRunner::enqueue_collective(const LoweredOp& o, cudaStream_t st) {
  const ncclDataType_t t = nccl_type(o.dtype);
  const size_t count = o.bytes / collective_dtype_bytes(o.dtype);
  const size_t n = s_.comms[o.comm].ranks.size();
  ncclComm_t comm = comm_for(o);
  const int root = static_cast<int>(o.root);
  if (o.op == "all_reduce") {
    nccl_check(ncclAllReduce(data_, out_, count, t, ncclSum, comm, st), "ncclAllReduce");
  } else if (o.op == "all_gather") {
    nccl_check(ncclAllGather(data_, out_, count / n, t, comm, st), "ncclAllGather");
  } else if (o.op == "reduce_scatter") {
    nccl_check(ncclReduceScatter(data_, out_, count / n, t, ncclSum, comm, st), "ncclReduceScatter");
  } else if (o.op == "broadcast") {
    nccl_check(ncclBroadcast(data_, out_, count, t, root, comm, st), "ncclBroadcast");
  } else if (o.op == "reduce") {
    nccl_check(ncclReduce(data_, out_, count, t, ncclSum, root, comm, st), "ncclReduce");
  } else {  // all_to_all: grouped sends and recvs, as NCCL's own alltoall in nccl-tests
    const size_t block = o.bytes / n;
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (size_t peer = 0; peer < n; ++peer) {
      nccl_check(ncclSend(static_cast<char*>(data_) + peer * block, block, ncclUint8, static_cast<int>(peer), comm, st),
                 "ncclSend");
      nccl_check(ncclRecv(static_cast<char*>(out_) + peer * block, block, ncclUint8, static_cast<int>(peer), comm, st),
                 "ncclRecv");
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
  }
  executed_[o.id] = force_ ? fmt::format("NCCL {}/{} x{}", nccl_algo(o.algorithm), nccl_proto(o.protocol), o.channels)
                           : "NCCL (its own choice)";
}

void GpuRunner::enqueue(const LoweredOp& o, cudaStream_t st) {
  switch (o.kind) {
    case LoweredKind::compute:
      if (o.gemm) {
        const float alpha = 1, beta = 0;
        const auto m = static_cast<int>(o.gemm->m), n = static_cast<int>(o.gemm->n), k = static_cast<int>(o.gemm->k);
        cublas_check(cublasSetStream(cublas_, st), "cublasSetStream");
        // C[m,n] = A[m,k] B[k,n], bf16 in and out, fp32 accumulation (as PyTorch's bf16 matmul).
        cublas_check(cublasGemmEx(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, data_, CUDA_R_16BF, m, out_,
                                  CUDA_R_16BF, k, &beta, c_, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
        executed_[o.id] = "cublasGemmEx bf16";
      } else {
        cuda_check(weft_launch_spin(static_cast<uint64_t>(o.duration_ps / 1000), st), "spin kernel");
        executed_[o.id] = "timed spin kernel";
      }
      break;
    case LoweredKind::copy: {
      const size_t bytes = std::min<size_t>(o.bytes, data_bytes_);
      if (o.direction == "d2d")
        cuda_check(cudaMemcpyAsync(out_, data_, bytes, cudaMemcpyDeviceToDevice, st), "cudaMemcpyAsync");
      if (o.direction == "h2d")
        cuda_check(cudaMemcpyAsync(data_, host_, bytes, cudaMemcpyHostToDevice, st), "cudaMemcpyAsync");
      if (o.direction == "d2h")
        cuda_check(cudaMemcpyAsync(host_, data_, bytes, cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync");
      executed_[o.id] = "cudaMemcpyAsync " + o.direction;
      break;
    }
    case LoweredKind::collective:
      enqueue_collective(o, st);
      break;
    case LoweredKind::send:
      nccl_check(ncclSend(data_, o.bytes, ncclUint8, static_cast<int>(o.peer), world_, st), "ncclSend");
      executed_[o.id] = "ncclSend";
      break;
    case LoweredKind::recv:
      nccl_check(ncclRecv(out_, o.bytes, ncclUint8, static_cast<int>(o.peer), world_, st), "ncclRecv");
      executed_[o.id] = "ncclRecv";
      break;
  }
}

std::vector<OpTimes> GpuRunner::run_once() {
  cuda_check(cudaSetDevice(device_), "cudaSetDevice");
  const std::vector<LoweredOp>& ops = s_.programs[rank_];
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  boot_.barrier();
  cuda_check(cudaEventRecord(origin_, streams_[0]), "cudaEventRecord");
  for (size_t i = 1; i < streams_.size(); ++i)
    cuda_check(cudaStreamWaitEvent(streams_[i], origin_, 0), "cudaStreamWaitEvent");
  std::vector<size_t> group_start(ops.size());
  for (size_t i = 0; i < ops.size();) {
    const LoweredOp& o = ops[i];
    cudaStream_t st = streams_[o.stream];
    // Consecutive sends/recvs on one stream with no deps between them are one NCCL group (as
    // Megatron's batch_isend_irecv), else two ranks that both send first would wait for each other.
    size_t j = i + 1;
    const bool p2p = o.kind == LoweredKind::send || o.kind == LoweredKind::recv;
    while (p2p && j < ops.size() && (ops[j].kind == LoweredKind::send || ops[j].kind == LoweredKind::recv) &&
           ops[j].stream == o.stream &&
           std::none_of(ops[j].deps.begin(), ops[j].deps.end(), [&](uint32_t d) { return d >= i; })) {
      ++j;
    }
    for (size_t k = i; k < j; ++k) {
      for (uint32_t d : ops[k].deps) cuda_check(cudaStreamWaitEvent(st, end_[d], 0), "cudaStreamWaitEvent");
    }
    cuda_check(cudaEventRecord(start_[i], st), "cudaEventRecord");
    if (j > i + 1) nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (size_t k = i; k < j; ++k) enqueue(ops[k], st);
    if (j > i + 1) nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    for (size_t k = i; k < j; ++k) {
      group_start[k] = i;  // the ops of a group share its start and end events' times
      cuda_check(cudaEventRecord(end_[k], st), "cudaEventRecord");
    }
    i = j;
  }
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::vector<OpTimes> times(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    float a = 0, b = 0;
    cuda_check(cudaEventElapsedTime(&a, origin_, start_[group_start[i]]), "cudaEventElapsedTime");
    cuda_check(cudaEventElapsedTime(&b, origin_, end_[i]), "cudaEventElapsedTime");
    times[i] = {a * 1e3, b * 1e3};
  }
  return times;
}

}  // namespace weft::gpu_exec
