#include "sim/core/radix_queue.h"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace weft {
namespace {
// A type of its own (not a function pointer), so that std::sort inlines it.
struct Before {
  bool operator()(const QueueEntry& a, const QueueEntry& b) const { return a.order < b.order; }
};
}  // namespace

void RadixQueue::insert_current(Entry e) {
  const auto first = current_.begin() + static_cast<std::ptrdiff_t>(head_);
  current_.insert(std::upper_bound(first, current_.end(), e, Before{}), e);
}

void RadixQueue::reset(int64_t now) {
  for (auto& bucket : buckets_) bucket.clear();
  current_.clear();
  head_ = 0;
  nonempty_ = 0;
  size_ = 0;
  now_ = now;
}

int RadixQueue::lowest_nonempty() const { return nonempty_ == 0 ? -1 : __builtin_ctzll(nonempty_); }

int64_t RadixQueue::least_time(int b) const {
  int64_t least = buckets_[b][0].time;
  for (const Entry& e : buckets_[b]) least = std::min(least, e.time);
  return least;
}

void RadixQueue::advance(int b, int64_t least) {
  std::vector<Entry>& bucket = buckets_[b];
  now_ = least;
  current_.clear();
  head_ = 0;
  nonempty_ &= ~(uint64_t{1} << b);
  // The others share the least time's bits above b, so each lands in a bucket below b.
  for (const Entry& e : bucket) {
    if (e.time == least) {
      current_.push_back(e);
    } else {
      add(e);
    }
  }
  bucket.clear();
  // Buckets keep the order entries came in, and most came in order: on a 256-rank packet ring,
  // 105 of 33 M entries were out of place.
  if (!std::is_sorted(current_.begin(), current_.end(), Before{})) {
    std::sort(current_.begin(), current_.end(), Before{});
  }
}

bool RadixQueue::advance_until(int64_t until) {
  const int b = lowest_nonempty();
  if (b < 0) return false;
  const int64_t least = least_time(b);
  if (least > until) return false;
  advance(b, least);
  return true;
}

int64_t RadixQueue::min_time() const {
  if (head_ < current_.size()) return now_;
  const int b = lowest_nonempty();
  return b < 0 ? std::numeric_limits<int64_t>::max() : least_time(b);
}

}  // namespace weft
