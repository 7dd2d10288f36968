#include "sim/core/engine.h"

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace weft {
namespace {

bool later(int64_t ta, uint64_t sa, int64_t tb, uint64_t sb) { return ta != tb ? ta > tb : sa > sb; }

}  // namespace

uint32_t Engine::take_slot() {
  if (free_slots_.empty()) {
    slots_.emplace_back();
    return static_cast<uint32_t>(slots_.size() - 1);
  }
  uint32_t s = free_slots_.back();
  free_slots_.pop_back();
  return s;
}

void Engine::release_slot(uint32_t slot) {
  ++slots_[slot].generation;  // invalidates the heap entry and any EventId that names it
  free_slots_.push_back(slot);
}

EventId Engine::schedule_at(Time at, EventCallback cb) {
  if (at < now_) {
    throw ModelError(fmt::format("event scheduled in the past: at {} ps, now {} ps", at.ps(), now_.ps()));
  }
  uint32_t s = take_slot();
  slots_[s].callback = std::move(cb);
  push(Entry{at.ps(), next_sequence_++, s, slots_[s].generation});
  return EventId{s, slots_[s].generation};
}

bool Engine::cancel(EventId id) {
  if (id.slot >= slots_.size() || slots_[id.slot].generation != id.generation) return false;
  slots_[id.slot].callback.reset();
  release_slot(id.slot);
  return true;
}

// Binary heap by hand (sift with a hole) rather than std::push_heap: fewer moves of 24-byte entries.
void Engine::push(Entry e) {
  size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    const Entry& p = heap_[parent];
    if (!later(p.time, p.sequence, e.time, e.sequence)) break;
    heap_[i] = p;
    i = parent;
  }
  heap_[i] = e;
}

Engine::Entry Engine::pop() {
  Entry top = heap_.front();
  Entry last = heap_.back();
  heap_.pop_back();
  size_t n = heap_.size();
  if (n == 0) return top;
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n &&
        later(heap_[child].time, heap_[child].sequence, heap_[child + 1].time, heap_[child + 1].sequence)) {
      ++child;
    }
    if (!later(last.time, last.sequence, heap_[child].time, heap_[child].sequence)) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = last;
  return top;
}

void Engine::set_poll(InlineFunction<bool()> poll, uint64_t every_events) {
  poll_ = std::move(poll);
  poll_every_ = every_events;
  next_poll_ = poll_ && every_events > 0 ? processed_ + every_events : UINT64_MAX;
}

uint64_t Engine::run(Time until) {
  const uint64_t first = processed_;
  stopped_ = false;
  while (!heap_.empty() && heap_.front().time <= until.ps()) {
    Entry e = pop();
    Slot& slot = slots_[e.slot];
    if (slot.generation != e.generation) continue;  // cancelled
    EventCallback cb = std::move(slot.callback);
    release_slot(e.slot);  // before the call, so the callback may reuse the slot
    now_ = Time::ps(e.time);
    cb();
    if (++processed_ == next_poll_) {  // the only cost of the poll when unset: this compare
      next_poll_ += poll_every_;
      if (!poll_()) {
        stopped_ = true;
        break;
      }
    }
  }
  if (!stopped_ && until != Time::max() && now_ < until) now_ = until;
  return processed_ - first;
}

}  // namespace weft
