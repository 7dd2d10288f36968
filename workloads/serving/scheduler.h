// One replica's scheduler in the manner of vLLM's V1 engine (vllm/v1/core/sched/scheduler.py):
// continuous batching, each iteration within a token budget (max_batched_tokens) and a sequence
// limit (max_seqs). Running sequences go first, in admission order, each with its next tokens (one for
// a decode, the rest of its prompt, or a chunk of it, for a prefill); KV blocks are allocated as they
// grow, and when none is free the most recently admitted running sequence is preempted (its blocks
// freed, queued again at the front, its tokens recomputed later: vLLM's recompute mode). Only when
// nothing was preempted are waiting sequences admitted, first come first served, while the budget,
// the sequence limit and free blocks allow; without chunked prefill a prompt must fit the budget whole.
// A prefill replica of a disaggregated pair hands each sequence off once its first token is sampled
// (keeping its blocks until the KV cache has left: release); a decode replica takes sequences whose
// prompt is computed elsewhere, with their blocks reserved before the cache arrives (after_prefill) or
// allocated on admission (layerwise: the cache waits in a receive buffer). A pipelined replica runs up
// to pp batches at once; a sequence in one of them is neither scheduled again nor preempted until that
// batch completes (vLLM V1 skips a request whose next token is not back yet; weft also waits for a
// prompt's previous chunk, which V1 may schedule before it completes).
// With prefix caching (vLLM V1's default), the first sequence of a prefix group to compute its prefix's
// full blocks leaves them in the replica's cache; a later one of the group starts from them (its
// prefill skips those tokens but attends to them) while any sequence uses them, or after, until their
// blocks are needed: unused prefixes are evicted least recently used first, before any preemption
// (vLLM's free block queue keeps cached blocks until it hands them out).
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "workloads/serving/iteration_cost.h"
#include "workloads/serving/serving_spec.h"

namespace weft {

struct Sequence {
  uint32_t prompt = 0;
  uint32_t output = 0;
  uint32_t computed = 0;   // tokens whose K and V are in the cache
  uint32_t generated = 0;  // output tokens sampled so far
  uint32_t blocks = 0;     // KV blocks held
  uint32_t preemptions = 0;
  bool in_flight = false;  // in a batch not yet complete (pipelined replicas run several at once)
  uint32_t prefix = 0;     // leading prompt tokens shared with its prefix group (Request::prefix)
  uint32_t prefix_group = 0;
  uint32_t shared_blocks = 0;  // its prefix's blocks, used from the replica's prefix cache (not in `blocks`)
  Time arrival, first_token, last_token, finish;
  // Tokens known so far: the prompt and what was generated (a preempted sequence recomputes them all).
  uint32_t known() const { return prompt + generated; }
  bool finished() const { return generated >= output; }
};

struct ScheduledSequence {
  uint32_t id = 0;      // index into the sequences
  uint32_t tokens = 0;  // computed this iteration
};

struct ScheduledBatch {
  std::vector<ScheduledSequence> items;
  BatchShape shape;
  bool empty() const { return items.empty(); }
};

class ReplicaScheduler {
 public:
  // `sequences` is shared by every replica and outlives the scheduler.
  ReplicaScheduler(const SchedulerLimits& limits, uint64_t kv_blocks, std::vector<Sequence>& sequences);

  void add(uint32_t id) { waiting_.push_back(id); }
  // Prefill replica of a disaggregated pair: sequences leave after their first token (take_handed_off).
  void hand_off_after_first_token() { hands_off_ = true; }
  // Sequences that left since the last call; each keeps its blocks in Sequence::blocks until
  // release(blocks) gives them back here.
  std::vector<uint32_t> take_handed_off() { return std::exchange(handed_off_, {}); }
  void release(uint32_t blocks) { blocks_free_ += blocks; }
  // Decode replica: blocks for the computed tokens of a sequence arriving from a prefill replica and
  // the token it computes next; false (nothing taken) when too few are free.
  bool reserve(Sequence& s) { return allocate(s, 1); }
  // A sequence whose blocks are reserved, its cache arrived: queued ahead of those holding none (a
  // sequence preempted here waits behind it), after the others that arrived before it. Holding its
  // blocks already, it never waits for blocks at the head of the queue while others hold them all.
  void add_with_blocks(uint32_t id);
  // The next iteration's batch (empty when nothing can run).
  ScheduledBatch schedule();
  // The batch ran and ended at `now`: computed tokens advance; sequences that reached the end of their
  // known tokens sample one (the time since its previous token counted in `token_gaps`, ps -> count);
  // finished ones free their blocks. Returns how many finished.
  uint32_t complete(const ScheduledBatch& batch, Time now, std::unordered_map<int64_t, uint64_t>& token_gaps);

  size_t waiting() const { return waiting_.size(); }
  size_t running() const { return running_.size(); }
  uint64_t blocks_used() const { return blocks_total_ - blocks_free_ - idle_cached_; }  // cached unused: free
  uint64_t prefix_hit_tokens() const { return hit_tokens_; }  // prompt tokens served from the prefix cache
  uint64_t blocks_total() const { return blocks_total_; }
  uint64_t unfinished() const { return waiting_.size() + running_.size(); }

 private:
  bool allocate(Sequence& s, uint32_t tokens);
  bool evict_for(uint64_t blocks);  // unused cached prefixes, until `blocks` are free; false if they cannot be
  bool use_cached_prefix(Sequence& s);
  void release_prefix(Sequence& s);
  void cache_prefix(Sequence& s, uint32_t computed_before);
  size_t last_idle() const;
  void preempt(size_t index);
  void schedule_running(ScheduledBatch& batch, uint32_t& budget, bool& preempted);
  void admit_waiting(ScheduledBatch& batch, uint32_t& budget);
  void add_to_shape(BatchShape& shape, const Sequence& s, uint32_t tokens) const;

  SchedulerLimits limits_;
  uint64_t blocks_total_ = 0;
  uint64_t blocks_free_ = 0;
  std::vector<Sequence>& seqs_;
  std::deque<uint32_t> waiting_;
  std::vector<uint32_t> running_;  // in admission order
  bool hands_off_ = false;
  std::vector<uint32_t> handed_off_;
  struct CachedPrefix {
    uint32_t blocks = 0;
    uint32_t users = 0;      // sequences using it
    uint64_t last_used = 0;  // when the last user let go (the eviction order)
  };
  std::unordered_map<uint32_t, CachedPrefix> prefixes_;  // by prefix group
  uint64_t idle_cached_ = 0;                             // blocks of cached prefixes no sequence uses
  uint64_t releases_ = 0;                                // clock of last_used
  uint64_t hit_tokens_ = 0;
};

}  // namespace weft
