#include "executor/mpi/mpi_runner.h"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace weft::mpi_exec {

struct RankRunner::Running {
  uint32_t id = 0;
  std::unique_ptr<CollectiveRun> collective;  // or
  MPI_Request request = MPI_REQUEST_NULL;     // a send or recv
};

namespace {

uint64_t largest_op(const std::vector<LoweredOp>& ops) {
  uint64_t most = 64;
  for (const LoweredOp& o : ops) most = std::max(most, o.bytes);
  return most;
}

}  // namespace

RankRunner::RankRunner(const LoweredSchedule& s, uint32_t rank, std::vector<MPI_Comm> comms, MPI_Comm p2p,
                       CollectiveMode mode, double timeout_s)
    : s_(s), rank_(rank), comms_(std::move(comms)), p2p_(p2p), mode_(mode), timeout_s_(timeout_s) {
  const std::vector<LoweredOp>& ops = s.programs[rank];
  // Zeros: sums stay finite and never denormal, so a reduction costs the same every repeat.
  buffers_.data.assign(largest_op(ops), 0);
  buffers_.scratch.assign(largest_op(ops), 0);
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  if (flag && ub) tag_ub_ = *ub;
  for (const LoweredOp& o : ops) {
    if (streams_.size() <= o.stream) streams_.resize(o.stream + 1);
    streams_[o.stream].push_back(o.id);
  }
  executed_.assign(ops.size(), "");
}

bool RankRunner::start(uint32_t id, double origin, std::vector<OpTimes>& times, std::vector<Running>& running) {
  const LoweredOp& o = s_.programs[rank_][id];
  for (uint32_t d : o.deps) {
    if (!done_[d]) return false;
  }
  switch (o.kind) {
    case LoweredKind::compute:
      if (computing_) return false;
      computing_ = true;
      compute_op_ = id;
      compute_end_ = MPI_Wtime() + static_cast<double>(o.duration_ps) * 1e-12;
      executed_[id] = "busy loop";
      break;
    case LoweredKind::copy: {
      const uint64_t n = std::min<uint64_t>(o.bytes, buffers_.data.size());
      times[id].start_us = (MPI_Wtime() - origin) * 1e6;
      std::memcpy(buffers_.scratch.data(), buffers_.data.data(), n);
      times[id].end_us = (MPI_Wtime() - origin) * 1e6;
      executed_[id] = "memcpy";
      done_[id] = 1;
      return true;
    }
    case LoweredKind::collective: {
      if (comm_busy_[o.comm] || next_instance_[o.comm] != o.instance) return false;
      const auto& members = s_.comms[o.comm].ranks;
      const int me = static_cast<int>(std::find(members.begin(), members.end(), rank_) - members.begin());
      comm_busy_[o.comm] = 1;
      ++next_instance_[o.comm];
      times[id].start_us = (MPI_Wtime() - origin) * 1e6;
      Running r{id, start_collective(o, comms_[o.comm], me, static_cast<int>(members.size()), mode_, buffers_),
                MPI_REQUEST_NULL};
      executed_[id] = r.collective->executed();
      running.push_back(std::move(r));
      return true;
    }
    case LoweredKind::send:
    case LoweredKind::recv: {
      Running r{id, nullptr, MPI_REQUEST_NULL};
      const int tag = static_cast<int>(o.tag % static_cast<uint32_t>(tag_ub_));
      const int count = static_cast<int>(std::min<uint64_t>(o.bytes, buffers_.data.size()));
      const int rc =
          o.kind == LoweredKind::send
              ? MPI_Isend(buffers_.data.data(), count, MPI_BYTE, static_cast<int>(o.peer), tag, p2p_, &r.request)
              : MPI_Irecv(buffers_.scratch.data(), count, MPI_BYTE, static_cast<int>(o.peer), tag, p2p_, &r.request);
      if (rc != MPI_SUCCESS) throw std::runtime_error(fmt::format("rank {} op {}: MPI_Isend/Irecv failed", rank_, id));
      executed_[id] = o.kind == LoweredKind::send ? "MPI_Isend" : "MPI_Irecv";
      running.push_back(std::move(r));
      break;
    }
  }
  times[id].start_us = (MPI_Wtime() - origin) * 1e6;
  return true;
}

// A stream runs one op at a time (a CUDA stream): its next op starts when the previous ended.
bool RankRunner::start_stream_heads(std::vector<size_t>& head, double origin, std::vector<OpTimes>& times,
                                    std::vector<Running>& running, size_t& finished) {
  bool moved = false;
  for (size_t st = 0; st < streams_.size(); ++st) {
    if (head[st] == streams_[st].size()) continue;
    const uint32_t id = streams_[st][head[st]];
    if (head[st] > 0 && !done_[streams_[st][head[st] - 1]]) continue;
    if (times[id].start_us >= 0) continue;
    if (start(id, origin, times, running)) {
      moved = true;
      if (done_[id]) ++finished;
      ++head[st];
    }
  }
  return moved;
}

bool RankRunner::retire_communication(double origin, std::vector<OpTimes>& times, std::vector<Running>& running,
                                      size_t& finished) {
  bool moved = false;
  for (size_t i = 0; i < running.size();) {
    Running& r = running[i];
    bool complete = false;
    if (r.collective) {
      complete = r.collective->progress();
    } else {
      int flag = 0;
      MPI_Test(&r.request, &flag, MPI_STATUS_IGNORE);
      complete = flag != 0;
    }
    if (!complete) {
      ++i;
      continue;
    }
    times[r.id].end_us = (MPI_Wtime() - origin) * 1e6;
    done_[r.id] = 1;
    const LoweredOp& o = s_.programs[rank_][r.id];
    if (o.kind == LoweredKind::collective) comm_busy_[o.comm] = 0;
    ++finished;
    moved = true;
    running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return moved;
}

bool RankRunner::retire_compute(double now, double origin, std::vector<OpTimes>& times, size_t& finished) {
  if (!computing_ || now < compute_end_) return false;
  times[compute_op_].end_us = (now - origin) * 1e6;
  done_[compute_op_] = 1;
  computing_ = false;
  ++finished;
  return true;
}

std::vector<OpTimes> RankRunner::run_once(double origin) {
  const std::vector<LoweredOp>& ops = s_.programs[rank_];
  std::vector<OpTimes> times(ops.size());
  done_.assign(ops.size(), 0);
  next_instance_.assign(s_.comms.size(), 0);
  comm_busy_.assign(s_.comms.size(), 0);
  computing_ = false;
  std::vector<size_t> head(streams_.size(), 0);
  std::vector<Running> running;
  size_t finished = 0;
  double last_progress = MPI_Wtime();
  while (finished < ops.size()) {
    bool moved = start_stream_heads(head, origin, times, running, finished);
    if (retire_communication(origin, times, running, finished)) moved = true;
    const double now = MPI_Wtime();
    if (retire_compute(now, origin, times, finished)) moved = true;
    if (moved) {
      last_progress = now;
    } else if (now - last_progress > timeout_s_) {
      throw std::runtime_error(
          fmt::format("rank {}: nothing moved for {} s with {} of {} ops done (a peer is missing or "
                      "the schedule deadlocks here)",
                      rank_, timeout_s_, finished, ops.size()));
    } else if (!computing_) {
      sched_yield();  // oversubscribed ranks share cores: let the peer we wait for run
    }
  }
  return times;
}

}  // namespace weft::mpi_exec
