// A queue pair: the transfers one sender issues with the same flow entropy leave in the order they
// were started, one after another (an RDMA QP processes its work requests in order; NCCL posts a
// channel's steps to one connection). Latencies still overlap: the next transfer starts as soon as
// the previous one's last byte has left, not when it arrived.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "sim/core/recorder.h"

namespace weft {

struct QueuePairKey {
  NodeIndex src;
  uint64_t entropy;
  bool operator==(const QueuePairKey&) const = default;
};

struct QueuePairKeyHash {
  size_t operator()(const QueuePairKey& k) const {
    return std::hash<uint64_t>{}(k.entropy * 0x9E3779B97F4A7C15ULL ^ k.src);
  }
};

// Per-queue-pair state of a fabric, found by open addressing: a fabric looks one up for every
// transfer it starts, and a node-based map's lookups missed the cache on every call at scale (perf:
// a quarter of a 256-GPU shared-fabric replay). Values never move (a deque), so pointers to them
// stay valid as the table grows.
template <class Value>
class QueuePairTable {
 public:
  Value& operator[](const QueuePairKey& key) {
    if (2 * (values_.size() + 1) > slots_.size()) grow();
    for (size_t i = slot_of(key);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.value == kEmpty) {
        s = {key.src, static_cast<uint32_t>(values_.size()), key.entropy};
        return values_.emplace_back();
      }
      if (s.src == key.src && s.entropy == key.entropy) return values_[s.value];
    }
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    NodeIndex src = 0;
    uint32_t value = kEmpty;
    uint64_t entropy = 0;
  };
  size_t slot_of(const QueuePairKey& key) const {
    uint64_t h = key.entropy * 0x9E3779B97F4A7C15ULL + key.src;  // then MurmurHash3's fmix64: every bit mixed
    h = (h ^ (h >> 33)) * 0xFF51AFD7ED558CCDULL;
    h = (h ^ (h >> 33)) * 0xC4CEB9FE1A85EC53ULL;
    return static_cast<size_t>(h ^ (h >> 33)) & (slots_.size() - 1);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    for (const Slot& s : old) {
      if (s.value == kEmpty) continue;
      size_t i = slot_of({s.src, s.entropy});
      while (slots_[i].value != kEmpty) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;  // a power of two, at most half full
  std::deque<Value> values_;
};

}  // namespace weft
