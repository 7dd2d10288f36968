// The discrete-event engine: an object (never a singleton), integer-picosecond time, events ordered
// by (time, insertion sequence) so that every run is reproducible bit for bit.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/core/event_queue.h"
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
  Engine() = default;
  // For tests: sequences are renumbered (renumber()) after `sequence_limit` of them instead of 2^36.
  explicit Engine(uint64_t sequence_limit) : sequence_limit_(sequence_limit) {}

  Time now() const { return now_; }
  uint64_t events_processed() const { return processed_; }
  // Queued entries, including cancelled ones not yet reached (they are skipped then).
  size_t pending() const { return queue_.size(); }

  // Schedules `cb` (a callable, or an EventCallback) at absolute time `at` (not before now()). A
  // template, so that the callable is built in its slot: no copy of it on the way.
  template <class F>
  EventId schedule_at(Time at, F&& cb) {
    if (at < now_) refuse_past(at);
    return enqueue(at, reserve_sequence(), std::forward<F>(cb));
  }
  template <class F>
  EventId schedule_in(Time delay, F&& cb) {
    return schedule_at(now_ + delay, std::forward<F>(cb));
  }
  // Returns true when the event was still pending and is now cancelled.
  bool cancel(EventId id);

  // Reserved places in the order (for events that are often not needed: a credit coming back to a
  // port that is busy anyway). reserve_sequence() takes the place an event scheduled now would
  // get; schedule_at_sequence() schedules one there later, so it runs exactly where it would have
  // run had it been scheduled at once. Its (at, sequence) must come after the running event's.
  uint64_t reserve_sequence();
  template <class F>
  EventId schedule_at_sequence(Time at, uint64_t sequence, F&& cb) {
    check_place(at, sequence);
    return enqueue(at, sequence, std::forward<F>(cb));
  }
  // The running event's sequence: with now(), its place in the order.
  uint64_t current_sequence() const { return current_sequence_; }
  // Whoever keeps reserved sequences registers, so that a renumbering (see renumber()) moves
  // them with the queue's: sequences() lists them, renumber() maps each through renumbered().
  class SequenceHolder {
   public:
    virtual void sequences(std::vector<uint64_t>& out) const = 0;
    virtual void renumber(const Engine& engine) = 0;

   protected:
    ~SequenceHolder() = default;
  };
  void hold_sequences(SequenceHolder& holder) { holders_.push_back(&holder); }
  // During SequenceHolder::renumber: the new sequence of a reserved one.
  uint64_t renumbered(uint64_t old) const;

  // Runs events with time <= until; returns how many ran. With a finite `until`, now() ends at `until`,
  // unless the poll stopped the run (then now() is the last event's time and stopped() is true).
  uint64_t run(Time until = Time::max());
  // Calls `poll` after every `every_events` processed events (counted over all runs); when it returns
  // false, run() returns at once, leaving the remaining events pending. For progress reports and
  // Ctrl-C. Unset, it costs one integer compare per event.
  void set_poll(InlineFunction<bool()> poll, uint64_t every_events);
  // Whether the last run() was stopped by the poll.
  bool stopped() const { return stopped_; }
  // Time of the earliest pending entry (possibly a cancelled one), Time::max() when none: lets an
  // outside clock (the SimGrid fabric) interleave with this engine.
  Time next_time() const { return Time::ps(queue_.min_time()); }  // INT64_MAX (Time::max()) when empty

 private:
  struct Slot {
    EventCallback callback;
    uint32_t generation = 0;
    bool cancelled = false;  // its entry is still queued: the slot is freed when that pops
  };
  // A queue entry: the time (ps), then (insertion sequence << kSlotBits | slot), so that entries
  // are ordered by (time, sequence) as one 128-bit integer.
  using Entry = QueueEntry;
  static constexpr int kSlotBits = 28;  // up to 268 M pending events
  static constexpr uint64_t kSlotMask = (uint64_t{1} << kSlotBits) - 1;

  uint32_t take_slot();
  void release_slot(uint32_t slot);
  // Takes a slot for `cb` and queues it at (at, sequence).
  template <class F>
  EventId enqueue(Time at, uint64_t sequence, F&& cb) {
    const uint32_t s = take_slot();
    slots_[s].callback.emplace(std::forward<F>(cb));
    queue_.push(Entry{at.ps(), sequence << kSlotBits | s});
    return EventId{s, slots_[s].generation};
  }
  [[noreturn]] void refuse_past(Time at) const;
  // Throws unless (at, sequence) comes after the running event and was reserved.
  void check_place(Time at, uint64_t sequence) const;
  void renumber();

  Time now_;
  uint64_t current_sequence_ = 0;
  std::vector<SequenceHolder*> holders_;
  std::vector<uint64_t> renumber_old_;  // during renumber(): every sequence outstanding, sorted
  uint64_t next_sequence_ = 0;
  uint64_t sequence_limit_ = uint64_t{1} << (64 - kSlotBits);
  uint64_t processed_ = 0;
  InlineFunction<bool()> poll_;
  uint64_t poll_every_ = 0;
  uint64_t next_poll_ = UINT64_MAX;  // the value of processed_ at which poll_ runs next; never when unset
  bool stopped_ = false;
  EventQueue queue_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
};

// A run stopped on request (its poll said stop, e.g. after Ctrl-C): not an error of the user or of
// the model. Thrown by the layers that own an Engine (replay) so a half-finished run never looks
// like a result.
class RunStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace weft
