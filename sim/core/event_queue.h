// The engine's queue of pending events, ordered by (time, order) exactly. While few are pending it
// is a 4-ary heap (a pop costs a compare per level, and there are few levels); past a few hundred,
// a radix heap (radix_queue.h), whose cost does not grow with the count and which takes the many
// events of one picosecond in lock-step runs as one sorted list. Measured (perf, 2-core machine):
// the heap was 42 % of a 256-rank packet ring (7,300 pending); the radix heap was 8 % slower than
// the heap on a 16 -> 1 incast (36 pending). The two thresholds apart keep it from switching often.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/core/quaternary_heap.h"
#include "sim/core/radix_queue.h"

namespace weft {

class EventQueue {
 public:
  bool empty() const { return size() == 0; }
  size_t size() const { return radix_mode_ ? radix_.size() : heap_.size(); }
  // `e` must not come before the last entry taken out.
  void push(QueueEntry e) {
    if (radix_mode_) {
      radix_.push(e);
      return;
    }
    heap_.push(e);
    if (heap_.size() > kToRadix) move_to_radix();
  }
  // Takes out the least entry when its time is at most `until` (ps).
  bool pop_until(int64_t until, QueueEntry& out) {
    if (radix_mode_) {
      if (!radix_.pop_until(until, out)) return false;
      if (radix_.size() < kToHeap) move_to_heap();
    } else {
      if (heap_.empty() || heap_.least_time() > until) return false;
      out = heap_.pop();
    }
    last_time_ = out.time;
    return true;
  }
  // The least entry's time (ps), INT64_MAX when empty.
  int64_t min_time() const;
  // Every entry; `f` may change orders as long as it keeps them in the same order.
  template <class F>
  void for_each(F&& f) {
    if (radix_mode_) {
      radix_.for_each(f);
    } else {
      heap_.for_each(f);
    }
  }

 private:
  static constexpr size_t kToRadix = 512;  // pending entries
  static constexpr size_t kToHeap = 128;
  void move_to_radix();
  void move_to_heap();

  bool radix_mode_ = false;
  int64_t last_time_ = 0;  // the time of the last entry taken out (ps)
  QuaternaryHeap heap_;
  RadixQueue radix_;
};

}  // namespace weft
