#include "workloads/serving/kv_transport.h"

#include <cmath>
#include <utility>

#include "sim/core/errors.h"
#include "workloads/serving/kv_cache.h"

namespace weft {
namespace {

// The KV heads rank `r` of `tp` holds: its share, or its copy of one head when tp exceeds them.
std::pair<uint32_t, uint32_t> held_heads(uint32_t r, uint32_t tp, uint32_t heads) {
  if (tp <= heads) return {r * (heads / tp), (r + 1) * (heads / tp)};
  const uint32_t copies = tp / heads;
  return {r / copies, r / copies + 1};
}

}  // namespace

KvTransport::KvTransport(Fabric& fabric, const Topology& topology, const ModelConfig& model, Precision kv,
                         std::vector<std::vector<uint32_t>> prefill_gpus,
                         std::vector<std::vector<uint32_t>> decode_gpus)
    : fabric_(fabric),
      topology_(topology),
      prefill_gpus_(std::move(prefill_gpus)),
      decode_gpus_(std::move(decode_gpus)),
      kv_heads_(model.kv_heads),
      head_bytes_per_token_(kv_bytes_per_token(model, kv, model.kv_heads)) {
  WEFT_ASSERT(!prefill_gpus_.empty() && !decode_gpus_.empty());
  plan_shares();
}

void KvTransport::plan_shares() {
  const auto tp_p = static_cast<uint32_t>(prefill_gpus_.front().size());
  const auto tp_d = static_cast<uint32_t>(decode_gpus_.front().size());
  heads_.assign(tp_p, std::vector<uint32_t>(tp_d, 0));
  for (uint32_t b = 0; b < tp_d; ++b) {
    const auto [lo, hi] = held_heads(b, tp_d, kv_heads_);
    for (uint32_t h = lo; h < hi; ++h) {
      const uint32_t a = tp_p <= kv_heads_ ? h / (kv_heads_ / tp_p) : h * (tp_p / kv_heads_) + b % (tp_p / kv_heads_);
      ++heads_[a][b];
    }
  }
}

void KvTransport::send(uint32_t p, uint32_t d, uint32_t tokens, double share, Time produced_over,
                       std::function<void()> done) {
  const uint32_t group = pending_.open(std::move(done));
  const std::vector<uint32_t>& from = prefill_gpus_[p];
  const std::vector<uint32_t>& to = decode_gpus_[d];
  for (size_t a = 0; a < from.size(); ++a) {
    for (size_t b = 0; b < to.size(); ++b) {
      if (heads_[a][b] == 0) continue;
      const double bytes = heads_[a][b] * head_bytes_per_token_ * tokens * share;
      Transfer t;
      t.src = topology_.gpus()[from[a]];
      t.dst = topology_.gpus()[to[b]];
      t.bytes = Bytes(static_cast<uint64_t>(std::ceil(bytes)));
      t.entropy = next_entropy_++;
      if (produced_over > Time()) {
        t.max_rate = static_cast<uint64_t>(std::ceil(bytes * 8 / produced_over.seconds()));
      }
      ++transfers_;
      bytes_ += bytes;
      pending_.send(fabric_, group, t);
    }
  }
  pending_.seal(group);
}

}  // namespace weft
