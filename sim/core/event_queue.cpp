#include "sim/core/event_queue.h"

#include <limits>

namespace weft {

int64_t EventQueue::min_time() const {
  if (radix_mode_) return radix_.min_time();
  return heap_.peek_time();
}

void EventQueue::move_to_radix() {
  radix_.reset(last_time_);
  heap_.for_each([&](const QueueEntry& e) { radix_.push(e); });
  heap_.clear();
  radix_mode_ = true;
}

void EventQueue::move_to_heap() {
  radix_.for_each([&](const QueueEntry& e) { heap_.push(e); });
  radix_.reset(last_time_);
  radix_mode_ = false;
}

}  // namespace weft
