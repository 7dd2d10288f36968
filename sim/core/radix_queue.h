// The engine's queue of pending events, ordered by (time, order): a radix heap on time (Ahuja,
// Mehlhorn, Orlin, Tarjan, "Faster algorithms for the shortest path problem", JACM 1990) and, for
// the time being run, a list in order.
//
// It relies on what a discrete-event run guarantees: nothing is queued before the time of the last
// entry taken out. So each later entry lives in the bucket named by the highest bit in which its
// time differs from that time, every entry of one time shares a bucket, and the least time is in
// the lowest non-empty bucket. Reaching it moves that bucket's entries to lower buckets (never back
// up), and those of the least time into the list of the current time, sorted once. A push at the
// current time has the newest order, so it appends; one behind it (a reserved order) is inserted.
// Why: in lock-step runs (rings, all-to-alls) hundreds of events share a picosecond, and a 4-ary
// heap paid a mispredicted compare at each of its levels on every pop (perf: 42 % of a packet ring).
// With few events pending a heap is cheaper (event_queue.h chooses).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/queue_entry.h"

namespace weft {

class RadixQueue {
 public:
  using Entry = QueueEntry;

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // `e` must not come before the last entry taken out (the engine refuses the past).
  void push(Entry e) {
    ++size_;
    if (e.time != now_) {
      add(e);
    } else if (head_ == current_.size() || current_.back().order < e.order) {
      current_.push_back(e);
    } else {
      insert_current(e);
    }
  }
  // Takes out the least entry into `out` when its time is at most `until`; false (and nothing
  // taken) when the queue is empty or the least entry is later.
  bool pop_until(int64_t until, Entry& out) {
    if (head_ == current_.size()) {
      if (!advance_until(until)) return false;
    } else if (now_ > until) {
      return false;
    }
    out = current_[head_++];
    --size_;
    return true;
  }
  // The least entry's time, INT64_MAX when empty; changes nothing.
  int64_t min_time() const;
  // Empties the queue; the next entries may come from `now` on (ps).
  void reset(int64_t now);
  // Every entry, in no particular order: `f` may change orders as long as it keeps their order
  // relative to one another (renumbering).
  template <class F>
  void for_each(F&& f) {
    for (size_t i = head_; i < current_.size(); ++i) f(current_[i]);
    for (auto& bucket : buckets_) {
      for (Entry& e : bucket) f(e);
    }
  }

 private:
  static constexpr int kBuckets = 64;  // bucket b: the time's highest bit differing from now_ is b
  void add(Entry e) {
    const int b = 63 - __builtin_clzll(static_cast<uint64_t>(e.time ^ now_));
    buckets_[b].push_back(e);
    nonempty_ |= uint64_t{1} << b;
  }
  int lowest_nonempty() const;
  int64_t least_time(int bucket) const;
  // A push at now_ behind an entry already there (its order was reserved earlier).
  void insert_current(Entry e);
  // With the current list used up: makes the least time's entries the current list, if that
  // time is at most `until`.
  bool advance_until(int64_t until);
  // Moves the bucket of the least time `least` down; the entries of that time become the current list.
  void advance(int bucket, int64_t least);

  int64_t now_ = 0;  // the time of the last entry taken out
  size_t size_ = 0;
  std::vector<Entry> current_;  // entries at now_, in order from head_ on
  size_t head_ = 0;
  uint64_t nonempty_ = 0;  // bit b: buckets_[b] has entries
  std::array<std::vector<Entry>, kBuckets> buckets_;
};

}  // namespace weft
