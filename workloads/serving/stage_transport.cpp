#include "workloads/serving/stage_transport.h"

#include <cmath>
#include <utility>

#include "sim/core/errors.h"
#include "workloads/serving/iteration_cost.h"

namespace weft {

StageTransport::StageTransport(Fabric& fabric, const Topology& topology, const ModelConfig& model, uint32_t tp,
                               std::vector<std::vector<uint32_t>> replica_gpus)
    : fabric_(fabric),
      topology_(topology),
      tp_(tp),
      bytes_per_token_(stage_activation_bytes_per_token(model)),
      gpus_(std::move(replica_gpus)) {
  WEFT_ASSERT(tp_ > 0);
}

void StageTransport::send(uint32_t r, uint32_t stage, uint32_t tokens, std::function<void()> done) {
  const std::vector<uint32_t>& gpus = gpus_[r];
  WEFT_ASSERT(static_cast<size_t>(stage + 2) * tp_ <= gpus.size());
  const uint32_t group = pending_.open(std::move(done));
  const double bytes = bytes_per_token_ * tokens / tp_;
  for (uint32_t k = 0; k < tp_; ++k) {
    Transfer t;
    t.src = topology_.gpus()[gpus[stage * tp_ + k]];
    t.dst = topology_.gpus()[gpus[(stage + 1) * tp_ + k]];
    t.bytes = Bytes(static_cast<uint64_t>(std::ceil(bytes)));
    t.entropy = next_entropy_++;
    ++transfers_;
    bytes_ += bytes;
    pending_.send(fabric_, group, t);
  }
  pending_.seal(group);
}

}  // namespace weft
