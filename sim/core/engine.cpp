#include "sim/core/engine.h"

#include <fmt/format.h>
#include <algorithm>

#include "sim/core/errors.h"

namespace weft {

uint32_t Engine::take_slot() {
  if (free_slots_.empty()) {
    if (slots_.size() > kSlotMask) {
      throw ModelError(fmt::format("engine: more than {} events pending at once", kSlotMask + 1));
    }
    slots_.emplace_back();
    return static_cast<uint32_t>(slots_.size() - 1);
  }
  uint32_t s = free_slots_.back();
  free_slots_.pop_back();
  return s;
}

void Engine::release_slot(uint32_t slot) {
  ++slots_[slot].generation;  // invalidates any EventId that names it
  free_slots_.push_back(slot);
}

void Engine::refuse_past(Time at) const {
  throw ModelError(fmt::format("event scheduled in the past: at {} ps, now {} ps", at.ps(), now_.ps()));
}

// The slot stays taken (its entry is queued) until the entry is reached; the id no longer names it.
bool Engine::cancel(EventId id) {
  if (id.slot >= slots_.size() || slots_[id.slot].generation != id.generation) return false;
  Slot& slot = slots_[id.slot];
  slot.callback.reset();
  slot.cancelled = true;
  ++slot.generation;
  return true;
}

uint64_t Engine::reserve_sequence() {
  if (next_sequence_ == sequence_limit_) renumber();
  return next_sequence_++;
}

void Engine::check_place(Time at, uint64_t sequence) const {
  if (at < now_ || (at == now_ && sequence <= current_sequence_) || sequence >= next_sequence_) {
    throw ModelError(
        fmt::format("event scheduled at a place already passed: at {} ps, sequence {}", at.ps(), sequence));
  }
}

uint64_t Engine::renumbered(uint64_t old) const {
  return static_cast<uint64_t>(std::lower_bound(renumber_old_.begin(), renumber_old_.end(), old) -
                               renumber_old_.begin());
}

// After 2^36 sequences they would run into the slot bits: every sequence still outstanding (the
// queue's, the running event's, the holders' reservations) gets its rank among them, which keeps
// every comparison between them.
void Engine::renumber() {
  renumber_old_.clear();
  queue_.for_each([&](const Entry& e) { renumber_old_.push_back(e.order >> kSlotBits); });
  renumber_old_.push_back(current_sequence_);
  for (const SequenceHolder* h : holders_) h->sequences(renumber_old_);
  std::sort(renumber_old_.begin(), renumber_old_.end());
  renumber_old_.erase(std::unique(renumber_old_.begin(), renumber_old_.end()), renumber_old_.end());
  queue_.for_each([&](Entry& e) { e.order = renumbered(e.order >> kSlotBits) << kSlotBits | (e.order & kSlotMask); });
  current_sequence_ = renumbered(current_sequence_);
  for (SequenceHolder* h : holders_) h->renumber(*this);
  next_sequence_ = renumber_old_.size();
  renumber_old_.clear();
  if (next_sequence_ >= sequence_limit_) throw ModelError("engine: too many pending events to renumber");
}

void Engine::set_poll(InlineFunction<bool()> poll, uint64_t every_events) {
  poll_ = std::move(poll);
  poll_every_ = every_events;
  next_poll_ = poll_ && every_events > 0 ? processed_ + every_events : UINT64_MAX;
}

uint64_t Engine::run(Time until) {
  const uint64_t first = processed_;
  stopped_ = false;
  Entry e;
  while (queue_.pop_until(until.ps(), e)) {
    const auto s = static_cast<uint32_t>(e.order & kSlotMask);
    Slot& slot = slots_[s];
    if (slot.cancelled) {
      slot.cancelled = false;
      free_slots_.push_back(s);  // its generation moved on when it was cancelled
      continue;
    }
    EventCallback cb = std::move(slot.callback);
    release_slot(s);  // before the call, so the callback may reuse the slot
    now_ = Time::ps(e.time);
    current_sequence_ = e.order >> kSlotBits;
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
