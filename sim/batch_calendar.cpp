#include "sim/batch_calendar.h"

namespace weft {

void BatchCalendar::add(Time at, uint64_t item) {
  int64_t t = at.ps();
  if (t != last_time_) {
    auto [it, inserted] = bucket_at_.try_emplace(t, 0);
    if (inserted) {
      if (free_buckets_.empty()) {
        buckets_.emplace_back();
        it->second = static_cast<uint32_t>(buckets_.size() - 1);
      } else {
        it->second = free_buckets_.back();
        free_buckets_.pop_back();
      }
      engine_.schedule_at(at, [this, t] { fire(t); });
    }
    last_time_ = t;
    last_bucket_ = it->second;
  }
  buckets_[last_bucket_].push_back(item);
}

void BatchCalendar::fire(int64_t at) {
  auto it = bucket_at_.find(at);
  uint32_t b = it->second;
  bucket_at_.erase(it);
  if (last_time_ == at) last_time_ = -1;  // items added from now on for `at` get a new bucket
  std::vector<uint64_t> items;
  items.swap(buckets_[b]);
  handler_(items);
  items.clear();
  buckets_[b].swap(items);  // keep the capacity for the next burst
  free_buckets_.push_back(b);
}

}  // namespace weft
