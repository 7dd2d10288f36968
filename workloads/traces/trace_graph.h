// Ordering: data dependencies must form a DAG (a cycle is a ConfigError); control dependencies are
// kept only where they agree with that order. Converted PyTorch ETs put the caller (parent) op in
// ctrl_deps, and a parent that encloses its children would otherwise form cycles with them (the
// ResNet-50 ET in ../shared/traces has 2,283 nodes on such cycles).
//
// The step between a trace format and a Workload: each reader turns its records into TraceNodes (one
// list per rank, in file order, with the trace's own ids and dependencies) and TraceGraphBuilder
// turns them into Programs: a deterministic topological order, dropped nodes bridged so that
// dependencies stay transitive, streams, communicators, labels. The original node ids stay in
// Workload-side tables (node_ids) for messages and the writer.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workloads/program.h"

namespace weft {

enum class TraceNodeKind : uint8_t {
  compute,       // GPU work: busy its stream for `duration`
  host_compute,  // CPU-side op with a duration: on the host stream (or dropped, see options)
  collective,
  send,
  recv,
  skip,  // memory, metadata, CPU-side collective: no time; dependencies pass through it
};

struct TraceNode {
  uint64_t id = 0;
  TraceNodeKind kind = TraceNodeKind::skip;
  std::string name;
  std::vector<uint64_t> deps;       // ids of nodes this one waits for (data dependencies)
  std::vector<uint64_t> ctrl_deps;  // control dependencies: kept when they point backwards (below)
  Time duration;                    // compute
  bool fixed_duration = false;      // compute that re-costing leaves alone (the GPU waiting for the host)
  double flops = 0;                 // compute, 0 when unknown
  CollectiveOp collective = CollectiveOp::all_reduce;
  uint64_t size = 0;                  // collective / send / recv, bytes in the convention below
  bool size_is_chakra_input = false;  // Chakra comm_size (per-rank input): converted to nccl-tests'
  uint32_t peer = 0;                  // send: destination, recv: source (global ranks)
  uint32_t tag = 0;
  std::string group;  // process-group key of a collective; "" = all ranks
  int stream = -1;    // explicit weft stream index, or -1: by kind (see trace.h)
};

struct RankTrace {
  std::string file;
  std::vector<TraceNode> nodes;
};

struct GraphOptions {
  double compute_scale = 1.0;
  bool eager_sends = true;
  bool keep_cpu_compute = true;
};

class TraceGraphBuilder {
 public:
  // `ranks`: the world size; every rank must then be added with add_rank.
  TraceGraphBuilder(Workload& workload, uint32_t ranks, GraphOptions options);

  // Ranks of a process-group key; a collective naming an undefined key throws when any group is
  // defined (a comm_group.json that lacks it), else runs on all ranks.
  void define_group(const std::string& key, std::vector<uint32_t> ranks, const std::string& source);
  void add_rank(uint32_t rank, const RankTrace& trace);
  // Original node id of each op, per rank (for error messages and tests).
  const std::vector<std::vector<uint64_t>>& node_ids() const { return node_ids_; }

 private:
  uint32_t communicator_for(const std::string& key, const std::string& where);
  std::vector<uint32_t> topological_order(const RankTrace& trace) const;

  Workload& workload_;
  uint32_t ranks_;
  GraphOptions options_;
  std::map<std::string, std::vector<uint32_t>> groups_;
  std::map<std::string, uint32_t> communicator_of_;
  std::vector<std::vector<uint64_t>> node_ids_;
};

// A kernel or op name made into a short label ("ncclKernel_AllReduce_RING_LL_Sum_float(...)" ->
// "ncclKernel_AllReduce_RING_LL_Sum_float"), at most 80 characters.
std::string short_label(std::string_view name);

}  // namespace weft
