#include "sim/core/quaternary_heap.h"

#include <algorithm>

namespace weft {
namespace {
constexpr size_t kArity = 4;
}

// Sift with a hole: the entry goes up while it comes before its parent.
void QuaternaryHeap::push_new(QueueEntry e) {
  size_t i = heap_.size();
  heap_.push_back(e);
  const auto key = e.key();
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (heap_[parent].key() <= key) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void QuaternaryHeap::sift_down(size_t i, QueueEntry e) {
  const size_t n = heap_.size();
  const auto key = e.key();
  for (;;) {
    const size_t first = kArity * i + 1;
    if (first >= n) break;
    size_t least = first;
    auto least_key = heap_[first].key();
    const size_t end = std::min(first + kArity, n);
    for (size_t c = first + 1; c < end; ++c) {
      const auto k = heap_[c].key();
      if (k < least_key) {
        least = c;
        least_key = k;
      }
    }
    if (key <= least_key) break;
    heap_[i] = heap_[least];
    i = least;
  }
  heap_[i] = e;
}

void QuaternaryHeap::remove_root() {
  stale_ = false;
  const QueueEntry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0, last);
}

int64_t QuaternaryHeap::peek_time() const {
  if (!stale_) return heap_.empty() ? INT64_MAX : heap_.front().time;
  int64_t least = INT64_MAX;  // the root is gone: the least of its children
  for (size_t c = 1; c < std::min<size_t>(1 + kArity, heap_.size()); ++c) {
    least = std::min(least, heap_[c].time);
  }
  return least;
}

}  // namespace weft
