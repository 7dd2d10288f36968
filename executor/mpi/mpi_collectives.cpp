// The collectives of weft-exec-mpi: NCCL's ring and pairwise algorithms as point-to-point steps
// (non-blocking send/recv plus host reduction), or MPI's own non-blocking collectives.
#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "executor/mpi/mpi_runner.h"

namespace weft::mpi_exec {
namespace {

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(fmt::format("{} failed (MPI error {})", what, rc));
}

MPI_Datatype mpi_type(const std::string& dtype) {
  if (dtype == "float32") return MPI_FLOAT;
  if (dtype == "bf16" || dtype == "fp16") return MPI_SHORT;  // same size; the sum's cost is what is timed
  return MPI_UNSIGNED_CHAR;
}

uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);
}
float from_bf16(uint16_t h) {
  const uint32_t u = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// acc += in, element-wise, as the GPU kernel would (bf16 through fp32).
void reduce_into(char* acc, const char* in, uint64_t bytes, const std::string& dtype) {
  if (dtype == "float32") {
    auto* a = reinterpret_cast<float*>(acc);
    const auto* b = reinterpret_cast<const float*>(in);
    for (uint64_t i = 0; i < bytes / 4; ++i) a[i] += b[i];
  } else if (dtype == "bf16" || dtype == "fp16") {
    auto* a = reinterpret_cast<uint16_t*>(acc);
    const auto* b = reinterpret_cast<const uint16_t*>(in);
    for (uint64_t i = 0; i < bytes / 2; ++i) a[i] = to_bf16(from_bf16(a[i]) + from_bf16(b[i]));
  } else {
    for (uint64_t i = 0; i < bytes; ++i) acc[i] = static_cast<char>(acc[i] + in[i]);
  }
}

struct Step {
  int send_to = -1, recv_from = -1;
  uint64_t send_off = 0, send_len = 0;
  uint64_t recv_off = 0, recv_len = 0;
  bool reduce = false;  // recv into scratch, then add into data at recv_off
};

// Runs a list of steps one after another, each a send and a recv posted together.
class StepRun : public CollectiveRun {
 public:
  StepRun(std::vector<Step> steps, MPI_Comm comm, Buffers& b, std::string dtype, std::string what)
      : steps_(std::move(steps)), comm_(comm), b_(b), dtype_(std::move(dtype)), what_(std::move(what)) {
    post();
  }
  bool progress() override {
    while (next_ <= steps_.size()) {
      if (next_ == 0) return false;
      int flag = 0;
      check(MPI_Testall(2, reqs_, &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
      if (!flag) return false;
      const Step& s = steps_[next_ - 1];
      if (s.reduce && s.recv_len > 0) reduce_into(b_.data.data() + s.recv_off, b_.scratch.data(), s.recv_len, dtype_);
      if (next_ == steps_.size()) return true;
      post();
    }
    return true;
  }
  std::string executed() const override { return what_; }

 private:
  void post() {
    reqs_[0] = reqs_[1] = MPI_REQUEST_NULL;
    if (steps_.empty()) {
      next_ = 1;
      return;
    }
    const Step& s = steps_[next_];
    const int tag = static_cast<int>(next_ % 32768);  // steps of one instance; instances of a comm run one at a time
    char* into = s.reduce ? b_.scratch.data() : b_.data.data() + s.recv_off;
    if (s.recv_from >= 0) {
      check(MPI_Irecv(into, static_cast<int>(s.recv_len), MPI_BYTE, s.recv_from, tag, comm_, &reqs_[0]), "MPI_Irecv");
    }
    if (s.send_to >= 0) {
      check(MPI_Isend(b_.data.data() + s.send_off, static_cast<int>(s.send_len), MPI_BYTE, s.send_to, tag, comm_,
                      &reqs_[1]),
            "MPI_Isend");
    }
    ++next_;
  }

  std::vector<Step> steps_;
  MPI_Comm comm_;
  Buffers& b_;
  std::string dtype_;
  std::string what_;
  size_t next_ = 0;  // steps posted
  MPI_Request reqs_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
};

class MpiRun : public CollectiveRun {
 public:
  explicit MpiRun(std::string what) : what_(std::move(what)) {}
  MPI_Request req = MPI_REQUEST_NULL;
  bool progress() override {
    int flag = 0;
    check(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    return flag != 0;
  }
  std::string executed() const override { return what_; }

 private:
  std::string what_;
};

// Segment i of p over `bytes`, whole elements of `elem` bytes.
std::pair<uint64_t, uint64_t> segment(uint64_t bytes, uint32_t elem, int p, int i) {
  const uint64_t count = bytes / elem;
  const uint64_t lo = count * static_cast<uint64_t>(i) / static_cast<uint64_t>(p);
  const uint64_t hi = count * static_cast<uint64_t>(i + 1) / static_cast<uint64_t>(p);
  return {lo * elem, (hi - lo) * elem};
}

int mod(int a, int p) { return ((a % p) + p) % p; }

// NCCL's ring (collectives/ring.h): reduce-scatter then all-gather, one segment per step.
std::vector<Step> ring_steps(const std::string& op, uint64_t bytes, uint32_t elem, int me, int p) {
  std::vector<Step> steps;
  const int right = mod(me + 1, p), left = mod(me - 1, p);
  const bool rs = op == "all_reduce" || op == "reduce_scatter";
  const bool ag = op == "all_reduce" || op == "all_gather";
  if (rs) {
    for (int s = 0; s < p - 1; ++s) {
      auto [so, sl] = segment(bytes, elem, p, mod(me - s, p));
      auto [ro, rl] = segment(bytes, elem, p, mod(me - s - 1, p));
      steps.push_back({right, left, so, sl, ro, rl, true});
    }
  }
  if (ag) {
    // After the reduce-scatter rank r holds segment r+1 whole; an all-gather alone starts from r.
    const int first = op == "all_reduce" ? 1 : 0;
    for (int s = 0; s < p - 1; ++s) {
      auto [so, sl] = segment(bytes, elem, p, mod(me + first - s, p));
      auto [ro, rl] = segment(bytes, elem, p, mod(me + first - s - 1, p));
      steps.push_back({right, left, so, sl, ro, rl, false});
    }
  }
  return steps;
}

// Pairwise exchange: step s sends rank r's block for r+s and receives r-s's block for r.
std::vector<Step> pairwise_steps(uint64_t bytes, int me, int p) {
  std::vector<Step> steps;
  for (int s = 1; s < p; ++s) {
    const int to = mod(me + s, p), from = mod(me - s, p);
    auto [so, sl] = segment(bytes, 1, p, to);
    auto [ro, rl] = segment(bytes, 1, p, from);
    steps.push_back({to, from, so, sl, ro, rl, false});
  }
  return steps;
}

std::unique_ptr<CollectiveRun> start_mpi(const LoweredOp& op, MPI_Comm comm, int me, int p, Buffers& b) {
  const MPI_Datatype t = mpi_type(op.dtype);
  const uint32_t elem = collective_dtype_bytes(op.dtype);
  const int count = static_cast<int>(op.bytes / elem);
  char* data = b.data.data();
  char* out = b.scratch.data();
  auto run = std::make_unique<MpiRun>("");
  if (op.op == "all_reduce") {
    run = std::make_unique<MpiRun>("MPI_Iallreduce");
    check(MPI_Iallreduce(data, out, count, t, MPI_SUM, comm, &run->req), "MPI_Iallreduce");
  } else if (op.op == "all_gather") {
    run = std::make_unique<MpiRun>("MPI_Iallgather");
    check(MPI_Iallgather(data, count / p, t, out, count / p, t, comm, &run->req), "MPI_Iallgather");
  } else if (op.op == "reduce_scatter") {
    run = std::make_unique<MpiRun>("MPI_Ireduce_scatter_block");
    check(MPI_Ireduce_scatter_block(data, out, count / p, t, MPI_SUM, comm, &run->req), "MPI_Ireduce_scatter_block");
  } else if (op.op == "broadcast") {
    run = std::make_unique<MpiRun>("MPI_Ibcast");
    check(MPI_Ibcast(data, count, t, static_cast<int>(op.root), comm, &run->req), "MPI_Ibcast");
  } else if (op.op == "reduce") {
    run = std::make_unique<MpiRun>("MPI_Ireduce");
    check(MPI_Ireduce(data, out, count, t, MPI_SUM, static_cast<int>(op.root), comm, &run->req), "MPI_Ireduce");
  } else {
    run = std::make_unique<MpiRun>("MPI_Ialltoall");
    const int block = static_cast<int>(op.bytes / static_cast<uint64_t>(p));
    check(MPI_Ialltoall(data, block, MPI_BYTE, out, block, MPI_BYTE, comm, &run->req), "MPI_Ialltoall");
  }
  (void)me;
  return run;
}

}  // namespace

std::unique_ptr<CollectiveRun> start_collective(const LoweredOp& op, MPI_Comm comm, int me, int p, CollectiveMode mode,
                                                Buffers& b) {
  if (p == 1) return std::make_unique<StepRun>(std::vector<Step>{}, comm, b, op.dtype, "nothing (one rank)");
  const uint32_t elem = collective_dtype_bytes(op.dtype);
  const bool ring_op = op.op == "all_reduce" || op.op == "all_gather" || op.op == "reduce_scatter";
  if (mode == CollectiveMode::p2p && ring_op && op.algorithm != "tree") {
    return std::make_unique<StepRun>(
        ring_steps(op.op, op.bytes, elem, me, p), comm, b, op.dtype,
        op.algorithm == "ring" ? "ring p2p" : fmt::format("ring p2p (for {})", op.algorithm));
  }
  if (mode == CollectiveMode::p2p && op.op == "all_to_all") {
    return std::make_unique<StepRun>(pairwise_steps(op.bytes, me, p), comm, b, op.dtype, "pairwise p2p");
  }
  // Broadcast, reduce and tree all-reduce: MPI's own algorithm (the fallback).
  return start_mpi(op, comm, me, p, b);
}

}  // namespace weft::mpi_exec
