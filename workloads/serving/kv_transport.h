// A sequence's KV cache crossing the fabric from the GPUs of a prefill replica to those of a decode
// replica (disaggregated serving). Each decode GPU needs the KV heads it will attend with: with tp at
// most the KV heads, its share of them; beyond, the one head it holds a copy of. Each such head comes
// from the prefill GPU that computed it (of several copies, one chosen by the decode GPU's rank, so
// the copies share the sending), all layers of it, and every (prefill GPU, decode GPU) pair with bytes
// to move is one transfer on the scenario's fabric, contending with every other in flight. Pipelined
// pools hold each layer's KV on the stage that computes it: a prefill stage sends a decode stage the
// layers they share (stage_layers on each side).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/fabric.h"
#include "topologies/topology.h"
#include "workloads/compute_model.h"
#include "workloads/model.h"
#include "workloads/serving/transfer_groups.h"

namespace weft {

class KvTransport {
 public:
  // `prefill_gpus[p]` and `decode_gpus[d]`: the GPUs (indices into topology.gpus()) of each replica,
  // stage-major over its `prefill_pp` or `decode_pp` stages, in tensor-parallel rank order within a stage.
  // Fabric and topology outlive this.
  KvTransport(Fabric& fabric, const Topology& topology, const ModelConfig& model, Precision kv,
              std::vector<std::vector<uint32_t>> prefill_gpus, std::vector<std::vector<uint32_t>> decode_gpus,
              uint32_t prefill_pp = 1, uint32_t decode_pp = 1);

  // Sends `share` of the K and V of `tokens` tokens (1: every layer; (L - 1) / L: all but the last)
  // from prefill replica p to decode replica d; `done` runs once every byte has arrived.
  // `produced_over` > 0 caps each transfer at the rate the prefill computes the cache (its bytes over
  // that time): a layer-by-layer push cannot run ahead of the layers.
  void send(uint32_t p, uint32_t d, uint32_t tokens, double share, Time produced_over, std::function<void()> done);

  uint64_t transfers() const { return transfers_; }
  double bytes() const { return bytes_; }

 private:
  // Head-bytes per token each prefill rank sends each decode rank (by prefill rank x decode rank).
  void plan_shares();

  Fabric& fabric_;
  const Topology& topology_;
  std::vector<std::vector<uint32_t>> prefill_gpus_, decode_gpus_;
  uint32_t kv_heads_ = 1;
  uint32_t prefill_pp_ = 1, decode_pp_ = 1;
  std::vector<std::vector<double>> layer_share_;  // [prefill stage][decode stage] -> of the layers, shared
  double head_bytes_per_token_ = 0;               // K and V of one head, all layers
  std::vector<std::vector<uint32_t>> heads_;      // [prefill rank][decode rank] -> heads sent
  TransferGroups pending_;                        // one group per send
  uint64_t next_entropy_ = 0;
  uint64_t transfers_ = 0;
  double bytes_ = 0;
};

}  // namespace weft
