#include "sim/core/quaternary_heap.h"

#include <algorithm>

namespace weft {
namespace {
constexpr size_t kArity = 4;
}

// Sift with a hole: the entry goes up while it comes before its parent.
void QuaternaryHeap::push(QueueEntry e) {
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

QueueEntry QuaternaryHeap::pop() {
  const QueueEntry top = heap_.front();
  const QueueEntry last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return top;
  const auto key = last.key();
  size_t i = 0;
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
  heap_[i] = last;
  return top;
}

}  // namespace weft
