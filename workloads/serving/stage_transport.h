// The activations of a pipelined serving replica crossing the fabric from one stage to the next: each
// tensor-parallel rank of the sending stage sends its slice of the hidden states and residual to the
// rank of the same index in the next stage (vLLM's send_tensor_dict with all_gather_group; the
// receiving stage gathers the slices, which its IterationModel times), one fabric transfer per rank,
// contending with every other transfer in flight.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/fabric.h"
#include "topologies/topology.h"
#include "workloads/model.h"
#include "workloads/serving/transfer_groups.h"

namespace weft {

class StageTransport {
 public:
  // `replica_gpus[r]`: replica r's GPUs (indices into topology.gpus()), stage-major: stage s holds
  // [s x tp, (s + 1) x tp). Fabric and topology outlive this.
  StageTransport(Fabric& fabric, const Topology& topology, const ModelConfig& model, uint32_t tp,
                 std::vector<std::vector<uint32_t>> replica_gpus);

  // Sends the activations of `tokens` tokens from stage `stage` of replica r to stage + 1; `done` runs
  // once every slice has arrived.
  void send(uint32_t r, uint32_t stage, uint32_t tokens, std::function<void()> done);

  uint64_t transfers() const { return transfers_; }
  double bytes() const { return bytes_; }

 private:
  Fabric& fabric_;
  const Topology& topology_;
  uint32_t tp_ = 1;
  double bytes_per_token_ = 0;  // all ranks together
  std::vector<std::vector<uint32_t>> gpus_;
  TransferGroups pending_;  // one group per send
  uint64_t next_entropy_ = 0;
  uint64_t transfers_ = 0;
  double bytes_ = 0;
};

}  // namespace weft
