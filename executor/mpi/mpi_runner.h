// One rank of weft-exec-mpi: runs its program of a lowered schedule once, as the GPU would — each
// stream in order, an op when its deps are done — on one host thread with non-blocking MPI, so
// communication progresses while a compute op busy-waits its duration.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "executor/schedule_file.h"

namespace weft::mpi_exec {

enum class CollectiveMode : uint8_t {
  p2p,  // the algorithm's point-to-point steps (Isend/Irecv + host reduction); MPI collectives otherwise
  mpi,  // MPI's non-blocking collectives (MPI_Iallreduce, ...)
};

struct OpTimes {
  double start_us = -1, end_us = -1;
};

// A collective in flight: post steps, test them, reduce on the host. Done when progress() says so.
class CollectiveRun {
 public:
  virtual ~CollectiveRun() = default;
  virtual bool progress() = 0;
  virtual std::string executed() const = 0;
};

struct Buffers {
  std::vector<char> data, scratch;  // both the schedule's largest op on this rank, touched once
};

// Starts `op` (a collective of this rank on communicator `comm`, where it is comm rank `me`).
std::unique_ptr<CollectiveRun> start_collective(const LoweredOp& op, MPI_Comm comm, int me, int size,
                                                CollectiveMode mode, Buffers& buffers);

class RankRunner {
 public:
  // comms[i]: an MPI communicator of schedule comm i's members in comm-rank order (MPI_COMM_NULL when
  // this rank is not a member); p2p: a duplicate of MPI_COMM_WORLD for sends and recvs.
  RankRunner(const LoweredSchedule& s, uint32_t rank, std::vector<MPI_Comm> comms, MPI_Comm p2p, CollectiveMode mode,
             double timeout_s);
  // Runs the program once; times are microseconds since `origin` (MPI_Wtime seconds).
  // Throws std::runtime_error when an op waits longer than the timeout (a deadlock or a lost peer).
  std::vector<OpTimes> run_once(double origin);
  // What ran for each op (for measured.json), after the first run.
  const std::vector<std::string>& executed() const { return executed_; }

 private:
  struct Running;
  bool start(uint32_t id, double origin, std::vector<OpTimes>& times, std::vector<Running>& running);
  // The steps of run_once's loop; each says whether anything moved and counts the ops it finished.
  bool start_stream_heads(std::vector<size_t>& head, double origin, std::vector<OpTimes>& times,
                          std::vector<Running>& running, size_t& finished);
  bool retire_communication(double origin, std::vector<OpTimes>& times, std::vector<Running>& running,
                            size_t& finished);  // sends, recvs and collectives that completed
  bool retire_compute(double now, double origin, std::vector<OpTimes>& times, size_t& finished);

  const LoweredSchedule& s_;
  uint32_t rank_;
  std::vector<MPI_Comm> comms_;
  MPI_Comm p2p_;
  CollectiveMode mode_;
  double timeout_s_;
  int tag_ub_ = 32767;
  Buffers buffers_;
  std::vector<std::vector<uint32_t>> streams_;  // op ids per stream, in order
  std::vector<std::string> executed_;
  // per run
  std::vector<uint8_t> done_;
  std::vector<uint64_t> next_instance_;  // per comm
  std::vector<uint8_t> comm_busy_;
  bool computing_ = false;
  double compute_end_ = 0;
  uint32_t compute_op_ = 0;
};

}  // namespace weft::mpi_exec
