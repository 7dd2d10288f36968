#include "workloads/replayer.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <deque>
#include <optional>

#include "sim/core/errors.h"
#include "sim/core/names.h"
#include "topologies/metrics.h"
#include "topologies/node_checks.h"
#include "topologies/routing.h"

namespace weft {

struct Replayer::StreamState {
  std::vector<uint32_t> ops;  // op indices in program order
  size_t head = 0;
  bool busy = false;
  uint32_t head_op = 0;  // ops[head], while busy (beside `busy`: one cache line to check both)
  Time issued;           // of the head, while busy
  Time started;          // of the head, once its work began
  uint32_t blocks = 0;   // SMs the head's NCCL kernel holds (sm_share.h)
};

struct Replayer::RankState {
  std::vector<StreamState> streams;
  std::vector<uint32_t> deps_left;         // per op
  std::vector<uint32_t> dependent_offset;  // CSR: ops waiting on op i
  std::vector<uint32_t> dependents;
  std::map<uint32_t, uint64_t> collectives_issued;  // per communicator
};

struct Replayer::Instance {
  std::vector<std::pair<uint32_t, uint32_t>> members;  // (rank, op) in arrival order
  std::unique_ptr<ScheduleExecutor> executor;
  const PlanEntry* plan = nullptr;
  Time start;
  Bytes bytes;              // the size that runs: the members' (the largest of an all-to-allv's)
  bool calibrated = false;  // took a measured fit's time
};

struct Replayer::PlanEntry {
  CollectivePlan plan;
};

namespace {

// Reverse edges of one program, as CSR.
void index_dependents(const Program& p, std::vector<uint32_t>& offset, std::vector<uint32_t>& list) {
  offset.assign(p.ops.size() + 1, 0);
  for (uint32_t d : p.deps) ++offset[d + 1];
  for (size_t i = 1; i < offset.size(); ++i) offset[i] += offset[i - 1];
  list.resize(p.deps.size());
  std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    const Op& op = p.ops[i];
    for (uint32_t k = op.first_dep; k < op.first_dep + op.dep_count; ++k) list[fill[p.deps[k]]++] = i;
  }
}

}  // namespace

Replayer::Replayer(Engine& engine, Fabric& fabric, const Topology& topology, const ClusterSpec& spec,
                   const Workload& workload, Recorder& recorder, CollectiveTimer& timer, PlanOptions plan)
    : engine_(engine),
      fabric_(fabric),
      topology_(topology),
      spec_(spec),
      workload_(workload),
      recorder_(recorder),
      plan_options_(std::move(plan)),
      timer_(timer),
      sm_share_(engine, workload.ranks(),
                workload.modelled_compute ? static_cast<uint32_t>(node_spec::gpu_of(spec.node).sms) : 0) {
  ranks_.resize(workload.ranks());
  for (uint32_t r = 0; r < workload.ranks(); ++r) {
    const Program& p = workload.programs[r];
    RankState& rs = ranks_[r];
    for (uint32_t i = 0; i < p.ops.size(); ++i) {
      const Op& op = p.ops[i];
      if (rs.streams.size() <= op.stream) rs.streams.resize(op.stream + 1u);
      rs.streams[op.stream].ops.push_back(i);
      rs.deps_left.push_back(op.dep_count);
    }
    index_dependents(p, rs.dependent_offset, rs.dependents);
    ops_left_ += p.ops.size();
  }
  comm_nodes_.resize(workload.communicators.size());
  comm_rank_of_.resize(workload.communicators.size());
  instances_.resize(workload.communicators.size());
  for (size_t c = 0; c < workload.communicators.size(); ++c) {
    comm_rank_of_[c].assign(workload.ranks(), -1);
    const auto& members = workload.communicators[c].ranks;
    uint32_t present = 0;
    for (uint32_t i = 0; i < members.size(); ++i) {
      comm_nodes_[c].push_back(topology.gpus()[workload.gpu_of_rank[members[i]]]);
      comm_rank_of_[c][members[i]] = static_cast<int32_t>(i);
      present += !workload.sampled || !workload.programs[members[i]].ops.empty();
    }
    arrivals_needed_.push_back(present);
  }
}

Replayer::~Replayer() = default;

void Replayer::start() {
  start_time_ = engine_.now();
  end_time_ = start_time_;
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    for (size_t s = 0; s < ranks_[r].streams.size(); ++s) try_start(r, static_cast<uint8_t>(s));
  }
}

void Replayer::try_start(uint32_t rank, uint8_t stream) {
  RankState& rs = ranks_[rank];
  StreamState& s = rs.streams[stream];
  if (s.busy || s.head == s.ops.size()) return;
  const uint32_t op = s.ops[s.head];
  if (rs.deps_left[op] > 0) return;
  s.busy = true;
  s.head_op = op;
  begin(rank, op);
}

Replayer::StreamState& Replayer::stream_of(uint32_t rank, uint32_t op) {
  StreamState& s = ranks_[rank].streams[workload_.programs[rank].ops[op].stream];
  WEFT_ASSERT(s.busy && s.head_op == op);  // only a stream's head is in flight
  return s;
}

void Replayer::begin(uint32_t rank, uint32_t index) {
  const Op& op = workload_.programs[rank].ops[index];
  StreamState& s = stream_of(rank, index);
  s.issued = engine_.now();
  switch (op.kind) {
    case OpKind::compute:
      s.started = engine_.now();
      sm_share_.start(rank, op.duration, [this, rank, index] { finish(rank, index); });
      return;
    case OpKind::collective:
      s.blocks = nccl_blocks(op);
      sm_share_.hold(rank, s.blocks);
      arrive(rank, index);
      return;
    case OpKind::send:
    case OpKind::recv:
      s.blocks = nccl_blocks(op);
      sm_share_.hold(rank, s.blocks);
      post_p2p(rank, index);
      return;
  }
}

void Replayer::finish(uint32_t rank, uint32_t index) {
  const Op& op = workload_.programs[rank].ops[index];
  end_time_ = std::max(end_time_, engine_.now());
  RankState& rs = ranks_[rank];
  StreamState& s = stream_of(rank, index);
  if (recorder_.wants(Hook::ops)) recorder_.on_op_done({rank, index, s.issued, s.started, engine_.now()});
  sm_share_.release(rank, s.blocks);
  s.blocks = 0;
  s.busy = false;
  ++s.head;
  --ops_left_;
  for (uint32_t k = rs.dependent_offset[index]; k < rs.dependent_offset[index + 1]; ++k) {
    const uint32_t d = rs.dependents[k];
    if (--rs.deps_left[d] == 0) try_start(rank, workload_.programs[rank].ops[d].stream);
  }
  try_start(rank, op.stream);
}

void Replayer::arrive(uint32_t rank, uint32_t index) {
  const Op& op = workload_.programs[rank].ops[index];
  const uint64_t seq = ranks_[rank].collectives_issued[op.comm]++;
  Instance& inst = instances_[op.comm][seq];
  if (!inst.members.empty()) {
    const auto [r0, i0] = inst.members.front();
    const Op& first = workload_.programs[r0].ops[i0];
    // An all-to-allv (a trace's uneven all-to-all: MoE routing, DLRM embeddings) gives each rank
    // its own size; it runs as the uniform all-to-all of the largest, an upper bound on its time.
    const bool uneven_ok = op.collective == CollectiveOp::all_to_all;
    if (first.collective != op.collective || (first.bytes != op.bytes && !uneven_ok)) {
      throw ConfigError(
          fmt::format("workload '{}': collective #{} of communicator {} is {} of {} B on rank {} but "
                      "{} of {} B on rank {}",
                      workload_.name, seq, op.comm, to_string(first.collective), first.bytes.count(), r0,
                      to_string(op.collective), op.bytes.count(), rank));
    }
  }
  inst.members.emplace_back(rank, index);
  inst.bytes = std::max(inst.bytes, op.bytes);
  if (inst.members.size() == arrivals_needed_[op.comm]) launch(op.comm, seq, inst);
}

void Replayer::launch(uint32_t comm, uint64_t seq, Instance& inst) {
  const auto [r0, i0] = inst.members.front();
  const Op& op = workload_.programs[r0].ops[i0];
  inst.start = engine_.now();
  for (auto [r, i] : inst.members) stream_of(r, i).started = inst.start;
  auto complete = [this, comm, seq] {
    Instance& done = instances_[comm].at(seq);
    for (auto [r, i] : done.members) finish(r, i);
    if (done.plan && recorder_.wants(Hook::comms)) {
      const Op& o = workload_.programs[done.members.front().first].ops[done.members.front().second];
      recorder_.on_comm_done({to_string(workload_.communicators[comm].group), to_string(o.collective), done.bytes,
                              static_cast<uint32_t>(workload_.communicators[comm].ranks.size()), done.plan->plan.label,
                              done.calibrated, done.start, engine_.now()});
    }
    // The executor is still on the call stack: free it in an event of its own.
    engine_.schedule_in(Time(), [this, comm, seq] { instances_[comm].erase(seq); });
  };
  const auto ranks = static_cast<uint32_t>(workload_.communicators[comm].ranks.size());
  if (ranks < 2 || inst.bytes == Bytes()) {
    engine_.schedule_in(Time(), std::move(complete));  // nothing to exchange
    return;
  }
  PlanEntry& entry = plan_for(comm, op.collective, inst.bytes);
  inst.plan = &entry;
  if (const std::optional<TimedCollective> t =
          timer_.collective(entry.plan, op.collective, inst.bytes, comm_nodes_[comm])) {
    inst.calibrated = t->calibrated;
    engine_.schedule_in(t->time, std::move(complete));
    return;
  }
  inst.executor =
      std::make_unique<ScheduleExecutor>(engine_, fabric_, inst.plan->plan.schedule, comm_nodes_[comm], recorder_);
  inst.executor->set_entropy_base(comm_entropy(comm));
  inst.executor->start(std::move(complete));
}

Replayer::PlanEntry& Replayer::plan_for(uint32_t comm, CollectiveOp op, Bytes bytes) {
  auto& entry = plans_[{comm, op, bytes.count()}];
  if (!entry) {
    std::vector<uint32_t> gpus;
    for (uint32_t r : workload_.communicators[comm].ranks) gpus.push_back(workload_.gpu_of_rank[r]);
    entry = std::make_unique<PlanEntry>(PlanEntry{plan_collective(op, bytes, topology_, spec_, gpus, plan_options_)});
  }
  return *entry;
}

std::vector<Replayer::Upcoming> Replayer::upcoming_collectives() {
  const size_t comms = workload_.communicators.size();
  std::vector<std::vector<std::pair<CollectiveOp, Bytes>>> instances(comms);  // per communicator, by k
  std::vector<uint64_t> issued(comms, 0);                                     // this rank's k so far
  for (const Program& program : workload_.programs) {
    for (const Op& op : program.ops) {
      if (op.kind != OpKind::collective) continue;
      auto& list = instances[op.comm];
      const uint64_t k = issued[op.comm]++;
      if (list.size() <= k) list.resize(k + 1, {op.collective, Bytes()});
      list[k].second = std::max(list[k].second, op.bytes);
    }
    for (const Op& op : program.ops) {
      if (op.kind == OpKind::collective) issued[op.comm] = 0;
    }
  }
  std::vector<Upcoming> out;
  for (uint32_t c = 0; c < comms; ++c) {
    if (workload_.communicators[c].ranks.size() < 2) continue;  // launch() runs nothing for them
    std::vector<std::pair<CollectiveOp, Bytes>>& list = instances[c];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    for (const auto& [op, bytes] : list) {
      if (bytes != Bytes()) out.push_back({&plan_for(c, op, bytes).plan, comm_nodes_[c], c});
    }
  }
  return out;
}

// SMs an op's NCCL kernel holds from its issue to its end: one block per channel of the plan NCCL's
// tuner picks; a send or receive holds at least one (NCCL gives each peer p2pnChannelsPerPeer,
// topology-dependent: [assumption: one]). None when sharing is off or nothing moves.
uint32_t Replayer::nccl_blocks(const Op& op) {
  if (!workload_.modelled_compute || op.bytes == Bytes()) return 0;
  if (op.kind != OpKind::collective) return 1;
  if (workload_.communicators[op.comm].ranks.size() < 2) return 0;
  return plan_for(op.comm, op.collective, op.bytes).plan.choice.channels;
}

void Replayer::post_p2p(uint32_t rank, uint32_t index) {
  const Op& op = workload_.programs[rank].ops[index];
  const bool is_send = op.kind == OpKind::send;
  const P2pKey key = is_send ? P2pKey{rank, op.peer, op.tag} : P2pKey{op.peer, rank, op.tag};
  auto& mine = is_send ? posted_sends_ : posted_recvs_;
  auto& theirs = is_send ? posted_recvs_ : posted_sends_;
  const auto waiting = theirs.find(key);
  if (waiting == theirs.end()) {
    mine[key].push_back(index);
    return;
  }
  const uint32_t other = waiting->second.front();
  waiting->second.erase(waiting->second.begin());
  if (waiting->second.empty()) theirs.erase(waiting);  // a step's tags are many: keep only the waiting
  const uint32_t src = std::get<0>(key), dst = std::get<1>(key);
  const uint32_t send_op = is_send ? index : other, recv_op = is_send ? other : index;
  stream_of(src, send_op).started = stream_of(dst, recv_op).started = engine_.now();
  auto done = [this, src, send_op, dst, recv_op] {
    finish(src, send_op);
    finish(dst, recv_op);
  };
  if (op.bytes == Bytes()) {
    engine_.schedule_in(Time(), std::move(done));
    return;
  }
  Transfer t;
  t.src = topology_.gpus()[workload_.gpu_of_rank[src]];
  t.dst = topology_.gpus()[workload_.gpu_of_rank[dst]];
  if (const std::optional<Time> time = timer_.p2p(t.src, t.dst, op.bytes)) {
    engine_.schedule_in(*time, std::move(done));
    return;
  }
  t.bytes = op.bytes;
  t.entropy = p2p_entropy(src, dst);  // one connection per (src, dst) pair, apart from every communicator's
  fabric_.start(t, std::move(done));
  if (workload_.sampled) start_copies(src, dst, t);
}

// A sampled workload's send, repeated between the copies of its two ranks (they would send it at the
// same moment): the fabric carries the whole step's point-to-point traffic; nothing waits on them.
void Replayer::start_copies(uint32_t src, uint32_t dst, Transfer t) {
  const std::vector<uint32_t>& from = workload_.copies[src];
  const std::vector<uint32_t>& to = workload_.copies[dst];
  WEFT_ASSERT(from.size() == to.size());
  for (size_t k = 0; k < from.size(); ++k) {
    t.src = topology_.gpus()[workload_.gpu_of_rank[from[k]]];
    t.dst = topology_.gpus()[workload_.gpu_of_rank[to[k]]];
    t.entropy = p2p_entropy(from[k], to[k]);
    fabric_.start(t, [] {});
  }
}

std::string Replayer::stuck() const {
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    for (const StreamState& s : ranks_[r].streams) {
      if (!s.busy) continue;
      const Op& op = workload_.programs[r].ops[s.ops[s.head]];
      const std::string what =
          op.kind == OpKind::collective
              ? fmt::format("{} on communicator {}", to_string(op.collective), op.comm)
              : fmt::format("{} with rank {} tag {}", op.kind == OpKind::send ? "send" : "recv", op.peer, op.tag);
      const std::string label = op.label < workload_.labels.size() ? workload_.labels[op.label] : "";
      return fmt::format("rank {} op {} ('{}': {}) waits for a partner that never comes", r, s.ops[s.head], label,
                         what);
    }
  }
  return "ops wait on each other";
}

}  // namespace weft
