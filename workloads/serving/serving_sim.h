// A serving run on weft's Engine: requests arrive (each routed to the replica with the fewest
// unfinished requests, ties to the lowest index), each replica's scheduler forms an iteration's batch
// whenever the replica is idle and has work, the iteration takes the IterationModel's time, and at its
// end tokens are sampled and finished requests leave. Replicas share nothing but the arrivals.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "sim/core/engine.h"
#include "workloads/serving/iteration_cost.h"
#include "workloads/serving/requests.h"
#include "workloads/serving/scheduler.h"

namespace weft {

struct IterationSample {
  Time start;
  Time duration;
  uint32_t replica = 0;
  uint32_t tokens = 0;   // computed (prefill and decode)
  uint32_t seqs = 0;     // in the batch
  uint32_t waiting = 0;  // queued at the start (after this batch's admissions)
  uint32_t running = 0;  // admitted and unfinished at the start
  uint64_t blocks = 0;   // KV blocks in use at the start (after this batch's allocation)
  uint32_t prefill_tokens = 0;
  Time communication;  // of duration
  // The prompts' part of the iteration: its prefill alone over its prefill and decodes alone (1 for a
  // prefill-only batch, 0 for decodes only), to split the cost between input and output tokens.
  float prefill_share = 0;
};

struct ServingRun {
  std::vector<Sequence> sequences;  // one per request, in request order
  std::vector<IterationSample> iterations;
  std::unordered_map<int64_t, uint64_t> token_gaps;  // ps between two tokens of a sequence -> count
  uint64_t kv_blocks = 0;                            // per replica
  double flops_per_gpu = 0;  // the model's FLOPs one GPU of a replica computed, summed over every iteration
  uint32_t replicas = 1;
  Time first_arrival, last_arrival, end;
  uint64_t waiting_at_last_arrival = 0;  // all replicas
};

// `model_of(r)` is replica r's iteration model. Requests must be sorted by arrival. With
// `max_concurrency` > 0 a request is sent only when fewer are unfinished (its Sequence::arrival is when
// it was sent). Stops (RunStopped) when `poll`, called every 4,096 iterations with the simulated time,
// returns false.
ServingRun simulate_serving(const SchedulerLimits& limits, uint32_t replicas, uint32_t max_concurrency,
                            uint64_t kv_blocks, const std::vector<Request>& requests,
                            const std::function<const IterationModel&(uint32_t)>& model_of,
                            const std::function<bool(Time)>& poll = {});

}  // namespace weft
