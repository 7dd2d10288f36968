// A 4-ary min-heap of queue entries by key: four children are one cache line, and there are half the
// levels of a binary heap. The engine's queue while few events are pending (event_queue.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/queue_entry.h"

namespace weft {

//
// A pop leaves the taken entry's place at the root (stale_) until the next push, which takes it and
// sinks from there: a running event usually schedules one soon, and one sift down a level or two
// replaces the pop's sift to a leaf and the push's sift up.
class QuaternaryHeap {
 public:
  bool empty() const { return size() == 0; }
  size_t size() const { return heap_.size() - (stale_ ? 1 : 0); }
  // The least entry's time (ps); not empty.
  int64_t least_time() {
    settle();
    return heap_.front().time;
  }
  void push(QueueEntry e) {
    if (stale_) {
      stale_ = false;
      sift_down(0, e);
    } else {
      push_new(e);
    }
  }
  // Takes out the least entry; not empty.
  QueueEntry pop() {
    settle();
    stale_ = true;
    return heap_.front();
  }
  // The least time without changing anything (ps); INT64_MAX when empty.
  int64_t peek_time() const;
  void clear() {
    heap_.clear();
    stale_ = false;
  }
  // Every entry; `f` may change keys that keep their order relative to one another.
  template <class F>
  void for_each(F&& f) {
    settle();
    for (QueueEntry& e : heap_) f(e);
  }

 private:
  void push_new(QueueEntry e);
  // Places `e` at `i` or below.
  void sift_down(size_t i, QueueEntry e);
  // Removes the stale root, if any.
  void settle() {
    if (stale_) remove_root();
  }
  void remove_root();

  std::vector<QueueEntry> heap_;
  bool stale_ = false;  // heap_[0] was taken out
};

}  // namespace weft
