// A 4-ary min-heap of queue entries by key: four children are one cache line, and there are half the
// levels of a binary heap. The engine's queue while few events are pending (event_queue.h).
#pragma once

#include <cstddef>
#include <vector>

#include "sim/core/queue_entry.h"

namespace weft {

class QuaternaryHeap {
 public:
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const QueueEntry& top() const { return heap_.front(); }
  void push(QueueEntry e);
  QueueEntry pop();
  void clear() { heap_.clear(); }
  // Every entry; `f` may change keys that keep their order relative to one another.
  template <class F>
  void for_each(F&& f) {
    for (QueueEntry& e : heap_) f(e);
  }

 private:
  std::vector<QueueEntry> heap_;
};

}  // namespace weft
