// A training step as one Program per rank: ops on streams with dependencies, as a GPU runs them.
// A stream runs its ops in program order, one at a time (a CUDA stream); an op also waits for the
// ops it depends on (events between streams). Compute continues on its stream while collectives run
// on communication streams, so overlap behaves as on the GPU. Generators (generate.h) and trace
// importers produce a Workload; the Replayer (replayer.h) runs it on a fabric.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collectives/collective_op.h"
#include "sim/core/units.h"

namespace weft {

enum class OpKind : uint8_t {
  compute,     // busy the stream for `duration`
  collective,  // collective `collective` of `bytes` (nccl-tests' size) on communicator `comm`
  send,        // `bytes` to global rank `peer`, matched with that rank's recv by (src, dst, tag)
  recv,        // `bytes` from global rank `peer`
};

// The parallel dimension a communication op serves, for the per-group breakdown of a step.
enum class CommGroup : uint8_t { none, dp, tp, pp, cp, ep, other };
inline constexpr size_t kCommGroups = 7;
std::string_view to_string(CommGroup g);

// Where the step's time goes, per op class of the compute stream (for reports).
enum class Phase : uint8_t { forward, backward, recompute, optimizer, other };
std::string_view to_string(Phase p);

inline constexpr uint8_t kComputeStream = 0;

struct Op {
  OpKind kind = OpKind::compute;
  uint8_t stream = kComputeStream;  // 0: compute; 1..: communication streams
  CommGroup group = CommGroup::none;
  Phase phase = Phase::other;
  CollectiveOp collective = CollectiveOp::all_reduce;
  uint32_t comm = 0;       // collective: index into Workload::communicators
  uint32_t peer = 0;       // send / recv: the other global rank
  uint32_t tag = 0;        // send / recv
  uint32_t label = 0;      // index into Workload::labels ("fwd attn", "dp bucket", ...)
  uint32_t first_dep = 0;  // deps of this op: Program::deps[first_dep, first_dep + dep_count)
  uint32_t dep_count = 0;
  Bytes bytes;       // collective, send, recv
  Time duration;     // compute
  double flops = 0;  // compute: useful FLOPs (for TFLOP/s and MFU), 0 when unknown
};

// The ops of one rank, in the order the host issues them; deps name earlier ops of the same rank.
struct Program {
  std::vector<Op> ops;
  std::vector<uint32_t> deps;

  // Appends `op` depending on `after` (indices of earlier ops); returns its index.
  uint32_t add(Op op, std::initializer_list<uint32_t> after = {});
  uint32_t add(Op op, const std::vector<uint32_t>& after);
};

struct Communicator {
  std::vector<uint32_t> ranks;  // global ranks, in communicator-rank order
  CommGroup group = CommGroup::other;
};

struct Workload {
  std::string name;
  std::vector<Program> programs;      // one per global rank
  std::vector<uint32_t> gpu_of_rank;  // global rank -> index into Topology::gpus()
  std::vector<Communicator> communicators;
  std::vector<std::string> labels;
  std::unordered_map<std::string, uint32_t> label_index;  // labels[i] -> i
  double model_flops = 0;                                 // useful FLOPs of the whole step, all ranks (MFU numerator)
  // Compute durations from the compute model, which gives each op the whole GPU: the replayer slows
  // them while NCCL kernels hold SMs beside them (sm_share.h). Traces leave it false: their measured
  // durations already include what overlapping communication cost.
  bool modelled_compute = false;
  // Only some ranks have programs; the others (empty) are copies of them on other GPUs
  // (generate_training's RankSample::one_replica). A collective starts when the ranks with programs
  // have arrived, so its time must come from isolated timing, not the shared fabric.
  bool sampled = false;
  // With `sampled`: for each rank with a program, the ranks that run it elsewhere, listed in the same
  // order for every rank (the k-th copies of two ranks are one replica), so its sends can be repeated
  // between their copies: point-to-point traffic contends on the shared fabric as in the whole step.
  std::vector<std::vector<uint32_t>> copies;

  uint32_t ranks() const { return static_cast<uint32_t>(programs.size()); }
  // Index of `text` in labels, added when new.
  uint32_t label(std::string_view text);
  uint32_t add_communicator(Communicator c);
};

// Throws ConfigError (a workload may come from a trace file) when a dependency is not an earlier op, a peer or
// communicator is out of range, a collective's rank is not in its communicator, or sends and recvs do not pair up.
void validate(const Workload& workload);

}  // namespace weft
