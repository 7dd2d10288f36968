// The discrete-event engine: an object (never a singleton), integer-picosecond time, events ordered
// by (time, insertion sequence) so that every run is reproducible bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/inline_function.h"
#include "sim/core/units.h"

namespace weft {

using EventCallback = InlineFunction<void()>;

// Names one scheduled event; stays safe to cancel after the event ran (cancel then does nothing).
struct EventId {
  uint32_t slot = UINT32_MAX;
  uint32_t generation = 0;
};

class Engine {
 public:
  Time now() const { return now_; }
  uint64_t events_processed() const { return processed_; }
  // Heap entries, including cancelled ones not yet popped (they are skipped when reached).
  size_t pending() const { return heap_.size(); }

  // Schedules `cb` at absolute time `at` (not before now()).
  EventId schedule_at(Time at, EventCallback cb);
  EventId schedule_in(Time delay, EventCallback cb) { return schedule_at(now_ + delay, std::move(cb)); }
  // Returns true when the event was still pending and is now cancelled.
  bool cancel(EventId id);

  // Runs events with time <= until; returns how many ran. With a finite `until`, now() ends at `until`.
  uint64_t run(Time until = Time::max());
  // Time of the earliest pending entry (possibly a cancelled one), Time::max() when none: lets an
  // outside clock (the SimGrid fabric) interleave with this engine.
  Time next_time() const { return heap_.empty() ? Time::max() : Time::ps(heap_.front().time); }

 private:
  struct Slot {
    EventCallback callback;
    uint32_t generation = 0;
  };
  struct Entry {  // one heap element; 24 bytes, compared by (time, sequence)
    int64_t time;
    uint64_t sequence;
    uint32_t slot;
    uint32_t generation;
  };

  uint32_t take_slot();
  void release_slot(uint32_t slot);
  void push(Entry e);
  Entry pop();

  Time now_;
  uint64_t next_sequence_ = 0;
  uint64_t processed_ = 0;
  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
};

}  // namespace weft
