// The Router's cache of inter-host routes: (src, dst, entropy) -> the interned Path, in one array
// with open addressing and linear probing. The flow fabric asks it once per transfer; a node-based
// std::unordered_map cost a second cache miss per lookup (its node), which made Router::route 27.6 %
// of an 8,192-GPU shared-fabric replay (perf, issue 19).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/recorder.h"

namespace weft {

struct Path;

class RouteTable {
 public:
  // The key's path: null when the key is new (stored now; the caller fills the path in). `hash` is
  // the key's hash.
  const Path*& find_or_add(NodeIndex src, NodeIndex dst, uint64_t entropy, uint64_t hash) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    Slot* s = probe(src, dst, entropy, hash);
    if (!s->used) {
      *s = Slot{src, dst, entropy, nullptr, true, hash};
      ++count_;
    }
    return s->path;
  }
  size_t size() const { return count_; }

 private:
  struct Slot {
    NodeIndex src = 0, dst = 0;
    uint64_t entropy = 0;
    const Path* path = nullptr;
    bool used = false;
    uint64_t hash = 0;
  };

  Slot* probe(NodeIndex src, NodeIndex dst, uint64_t entropy, uint64_t hash) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (!s.used) return &s;
      if (s.hash == hash && s.src == src && s.dst == dst && s.entropy == entropy) return &s;
    }
  }

  // Twice the slots (at least 1,024), every key placed again by its kept hash.
  void grow() {
    std::vector<Slot> old(std::max<size_t>(1024, 2 * slots_.size()));
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (!s.used) continue;
      size_t i = s.hash & mask;
      while (slots_[i].used) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;  // a power of two long, at most half used
  size_t count_ = 0;
};

}  // namespace weft
