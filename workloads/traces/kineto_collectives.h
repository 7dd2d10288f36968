// What collective a Kineto trace's NCCL kernel or host op is: its type, its size as nccl-tests
// counts it, its peer (send/recv) and its process group (kineto_reader.h says from which fields).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workloads/traces/kineto_events.h"
#include "workloads/traces/trace_graph.h"

namespace weft {

// A collective or send/recv as the trace describes it, before it becomes a TraceNode.
struct KinetoComm {
  TraceNodeKind kind = TraceNodeKind::collective;
  CollectiveOp op = CollectiveOp::all_reduce;
  uint64_t bytes = 0;  // nccl-tests size (all-gather: the whole output)
  uint32_t peer = 0;   // send / recv
  std::string group;   // process-group key, "" for all ranks
};

// Resolves the collectives of one rank's events. `where` names the event in every ConfigError.
class KinetoCommResolver {
 public:
  // Each process group met is recorded in `groups` (key -> ranks).
  KinetoCommResolver(const KinetoEvents& events, std::map<std::string, std::vector<uint32_t>>& groups)
      : ev_(events), groups_(groups) {}

  // From NCCL args; `kernel_op` (the kernel name's type) when `Collective name` is not one weft knows.
  KinetoComm from_args(const CollArgs& a, std::optional<CollectiveOp> kernel_op, const std::string& where);
  // An NCCL kernel: its own args, else those of the host op around its launch, else its name.
  KinetoComm of_kernel(const GpuEvent& g, const std::string& where);
  // A gloo:<op> host range, sized by its first input (Input Dims x Input type).
  KinetoComm of_gloo_op(const HostCommEvent& h, const std::string& where) const;

 private:
  const KinetoEvents& ev_;
  std::map<std::string, std::vector<uint32_t>>& groups_;
};

}  // namespace weft
