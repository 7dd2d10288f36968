#include "workloads/serving/scheduler.h"

#include <algorithm>

#include "sim/core/errors.h"

namespace weft {

ReplicaScheduler::ReplicaScheduler(const SchedulerLimits& limits, uint64_t kv_blocks, std::vector<Sequence>& sequences)
    : limits_(limits), blocks_total_(kv_blocks), blocks_free_(kv_blocks), seqs_(sequences) {}

void ReplicaScheduler::add_with_blocks(uint32_t id) {
  const auto first_without =
      std::find_if(waiting_.begin(), waiting_.end(), [&](uint32_t w) { return seqs_[w].blocks == 0; });
  waiting_.insert(first_without, id);
}

// Blocks for `tokens` more beyond what is computed; false (nothing taken) when too few are free.
bool ReplicaScheduler::allocate(Sequence& s, uint32_t tokens) {
  const uint64_t need = (static_cast<uint64_t>(s.computed) + tokens + limits_.block_tokens - 1) / limits_.block_tokens;
  const uint64_t held = static_cast<uint64_t>(s.blocks) + s.shared_blocks;
  const uint64_t more = need > held ? need - held : 0;
  if (!evict_for(more)) return false;
  blocks_free_ -= more;
  s.blocks += static_cast<uint32_t>(more);
  return true;
}

bool ReplicaScheduler::evict_for(uint64_t blocks) {
  while (blocks_free_ < blocks && idle_cached_ > 0) {
    auto lru = prefixes_.end();
    for (auto it = prefixes_.begin(); it != prefixes_.end(); ++it) {
      if (it->second.users == 0 && (lru == prefixes_.end() || it->second.last_used < lru->second.last_used)) lru = it;
    }
    idle_cached_ -= lru->second.blocks;
    blocks_free_ += lru->second.blocks;
    prefixes_.erase(lru);
  }
  return blocks_free_ >= blocks;
}

// A sequence about to compute its prompt from the start takes its group's cached blocks, if any.
bool ReplicaScheduler::use_cached_prefix(Sequence& s) {
  if (!limits_.prefix_caching || s.computed > 0 || s.prefix < limits_.block_tokens) return false;
  const auto it = prefixes_.find(s.prefix_group);
  if (it == prefixes_.end()) return false;
  CachedPrefix& p = it->second;
  if (p.users++ == 0) idle_cached_ -= p.blocks;
  s.shared_blocks = p.blocks;
  s.computed = p.blocks * limits_.block_tokens;
  return true;
}

void ReplicaScheduler::release_prefix(Sequence& s) {
  if (s.shared_blocks == 0) return;
  CachedPrefix& p = prefixes_.at(s.prefix_group);
  if (--p.users == 0) {
    idle_cached_ += p.blocks;
    p.last_used = ++releases_;
  }
  s.shared_blocks = 0;
}

// The sequence has just computed its prefix's full blocks here, and its group has none cached: they
// become the cache's (a group cached meanwhile by another sequence leaves this copy its own).
void ReplicaScheduler::cache_prefix(Sequence& s, uint32_t computed_before) {
  const uint32_t blocks = s.prefix / limits_.block_tokens;
  const uint32_t tokens = blocks * limits_.block_tokens;
  if (!limits_.prefix_caching || blocks == 0 || s.shared_blocks > 0 || computed_before >= tokens ||
      s.computed < tokens || prefixes_.count(s.prefix_group) > 0) {
    return;
  }
  prefixes_[s.prefix_group] = {blocks, 1, 0};
  s.blocks -= blocks;
  s.shared_blocks = blocks;
}

// Index in running_ of the most recently admitted sequence not in a batch in flight.
size_t ReplicaScheduler::last_idle() const {
  size_t j = running_.size();
  while (j > 0 && seqs_[running_[j - 1]].in_flight) --j;
  WEFT_ASSERT(j > 0);
  return j - 1;
}

void ReplicaScheduler::preempt(size_t index) {
  const uint32_t id = running_[index];
  running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(index));
  Sequence& s = seqs_[id];
  blocks_free_ += s.blocks;
  s.blocks = 0;
  release_prefix(s);
  s.computed = 0;
  ++s.preemptions;
  waiting_.push_front(id);
}

void ReplicaScheduler::add_to_shape(BatchShape& shape, const Sequence& s, uint32_t tokens) const {
  const uint32_t p = s.computed;
  const bool samples = p + tokens >= s.known();
  ++shape.seqs;
  shape.sampled += samples ? 1 : 0;
  if (tokens == 1 && p >= s.prompt && samples) {  // a decode: one token from the cache
    ++shape.decode_seqs;
    shape.decode_context += p + 1;
    return;
  }
  shape.prefill_tokens += tokens;
  shape.prefill_pairs += static_cast<double>(tokens) * (p + (tokens + 1) / 2.0);
  shape.prefill_context += p;
}

void ReplicaScheduler::schedule_running(ScheduledBatch& batch, uint32_t& budget, bool& preempted) {
  for (size_t i = 0; i < running_.size() && budget > 0;) {
    const uint32_t id = running_[i];
    Sequence& s = seqs_[id];
    if (s.in_flight) {
      ++i;
      continue;
    }
    const uint32_t tokens = std::min(s.known() - s.computed, budget);
    bool scheduled = true;
    while (!allocate(s, tokens)) {
      const size_t victim = last_idle();
      const bool self = running_[victim] == id;
      preempt(victim);
      preempted = true;
      if (self) {
        scheduled = false;
        break;
      }
    }
    if (!scheduled) break;
    add_to_shape(batch.shape, s, tokens);
    batch.items.push_back({id, tokens});
    budget -= tokens;
    ++i;
  }
}

void ReplicaScheduler::admit_waiting(ScheduledBatch& batch, uint32_t& budget) {
  while (!waiting_.empty() && budget > 0 && running_.size() < limits_.max_seqs) {
    const uint32_t id = waiting_.front();
    Sequence& s = seqs_[id];
    const bool hit = use_cached_prefix(s);
    const uint32_t left = s.known() - s.computed;
    const uint32_t tokens = std::min(left, budget);
    if ((!limits_.chunked_prefill && left > budget) || !allocate(s, tokens)) {
      if (hit) {  // not admitted: the prefix goes back to the cache
        release_prefix(s);
        s.computed = 0;
      }
      break;
    }
    if (hit) hit_tokens_ += s.computed;
    waiting_.pop_front();
    running_.push_back(id);
    add_to_shape(batch.shape, s, tokens);
    batch.items.push_back({id, tokens});
    budget -= tokens;
  }
}

ScheduledBatch ReplicaScheduler::schedule() {
  ScheduledBatch batch;
  uint32_t budget = limits_.max_batched_tokens;
  bool preempted = false;
  schedule_running(batch, budget, preempted);
  if (!preempted) admit_waiting(batch, budget);
  for (const ScheduledSequence& item : batch.items) seqs_[item.id].in_flight = true;
  return batch;
}

uint32_t ReplicaScheduler::complete(const ScheduledBatch& batch, Time now,
                                    std::unordered_map<int64_t, uint64_t>& token_gaps) {
  uint32_t finished = 0;
  for (const ScheduledSequence& item : batch.items) {
    Sequence& s = seqs_[item.id];
    s.in_flight = false;
    const uint32_t before = s.computed;
    s.computed += item.tokens;
    cache_prefix(s, before);
    if (s.computed < s.known()) continue;  // a prefill chunk short of the end samples nothing
    if (s.generated == 0) {
      s.first_token = now;
    } else {
      ++token_gaps[(now - s.last_token).ps()];
    }
    s.last_token = now;
    ++s.generated;
    if (!s.finished()) {
      if (hands_off_) {
        release_prefix(s);  // the cache keeps the prefix; the sequence's own blocks wait for release()
        running_.erase(std::find(running_.begin(), running_.end(), item.id));
        handed_off_.push_back(item.id);
      }
      continue;
    }
    s.finish = now;
    blocks_free_ += s.blocks;
    s.blocks = 0;
    release_prefix(s);
    running_.erase(std::find(running_.begin(), running_.end(), item.id));
    ++finished;
  }
  return finished;
}

}  // namespace weft
