#include "workloads/serving/kv_transport.h"

#include <algorithm>
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

// Where each of `pp` stages' layers start, and the end: {0, l0, l0 + l1, ..., layers}.
std::vector<uint32_t> first_layers(uint32_t layers, uint32_t pp) {
  std::vector<uint32_t> out{0};
  for (uint32_t n : stage_layers(layers, pp)) out.push_back(out.back() + n);
  return out;
}

}  // namespace

KvTransport::KvTransport(Fabric& fabric, const Topology& topology, const ModelConfig& model, Precision kv,
                         std::vector<std::vector<uint32_t>> prefill_gpus,
                         std::vector<std::vector<uint32_t>> decode_gpus, uint32_t prefill_pp, uint32_t decode_pp)
    : fabric_(fabric),
      topology_(topology),
      prefill_gpus_(std::move(prefill_gpus)),
      decode_gpus_(std::move(decode_gpus)),
      kv_heads_(model.kv_heads),
      prefill_pp_(prefill_pp),
      decode_pp_(decode_pp),
      head_bytes_per_token_(kv_bytes_per_token(model, kv, model.kv_heads)) {
  WEFT_ASSERT(!prefill_gpus_.empty() && !decode_gpus_.empty());
  plan_shares();
  // Layers [first, first + n) of each stage on either side; a pair of stages shares their overlap.
  const std::vector<uint32_t> p = first_layers(model.layers, prefill_pp), d = first_layers(model.layers, decode_pp);
  layer_share_.assign(prefill_pp, std::vector<double>(decode_pp, 0));
  for (uint32_t s = 0; s < prefill_pp; ++s) {
    for (uint32_t t = 0; t < decode_pp; ++t) {
      const uint32_t lo = std::max(p[s], d[t]), hi = std::min(p[s + 1], d[t + 1]);
      if (hi > lo) layer_share_[s][t] = static_cast<double>(hi - lo) / model.layers;
    }
  }
}

void KvTransport::plan_shares() {
  const auto tp_p = static_cast<uint32_t>(prefill_gpus_.front().size()) / prefill_pp_;
  const auto tp_d = static_cast<uint32_t>(decode_gpus_.front().size()) / decode_pp_;
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
  const size_t tp_p = heads_.size(), tp_d = heads_.front().size();
  for (size_t i = 0; i < from.size(); ++i) {
    for (size_t j = 0; j < to.size(); ++j) {
      const size_t a = i % tp_p, b = j % tp_d;  // tensor-parallel ranks of stages i / tp_p and j / tp_d
      const double layers = layer_share_[i / tp_p][j / tp_d];
      if (heads_[a][b] == 0 || layers == 0) continue;
      const double bytes = heads_[a][b] * head_bytes_per_token_ * layers * tokens * share;
      Transfer t;
      t.src = topology_.gpus()[from[i]];
      t.dst = topology_.gpus()[to[j]];
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
