// Groups items due at the same instant behind one engine event. Collectives start many transfers
// that end at the same picosecond (every rank of a ring step); one event for all of them keeps the
// engine's heap small and the run exact.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/core/engine.h"

namespace weft {

class BatchCalendar {
 public:
  // Called with the items due now, in the order they were added.
  using Handler = InlineFunction<void(const std::vector<uint64_t>& items), 16>;

  BatchCalendar(Engine& engine, Handler handler) : engine_(engine), handler_(std::move(handler)) {}
  BatchCalendar(const BatchCalendar&) = delete;
  BatchCalendar& operator=(const BatchCalendar&) = delete;

  void add(Time at, uint64_t item);

 private:
  void fire(int64_t at);

  Engine& engine_;
  Handler handler_;
  std::unordered_map<int64_t, uint32_t> bucket_at_;  // due time (ps) -> index in buckets_
  std::vector<std::vector<uint64_t>> buckets_;
  std::vector<uint32_t> free_buckets_;
  int64_t last_time_ = -1;  // the last bucket used, to skip the hash lookup in bursts
  uint32_t last_bucket_ = 0;
};

}  // namespace weft
