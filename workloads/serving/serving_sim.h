// A serving run on the Engine of a fabric Simulation: requests arrive (each routed to the replica with
// the fewest unfinished requests, ties to the lowest index), each replica's scheduler forms an
// iteration's batch whenever the replica is idle and has work, the iteration takes the IterationModel's
// time, and at its end tokens are sampled and finished requests leave. Disaggregated, a request is
// routed on arrival to a prefill replica and a decode replica (as a P/D proxy does); after its first
// token its KV cache crosses the fabric (KvTransport, contending with the other transfers in flight)
// and the decode replica generates the rest.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "sim/simulation.h"
#include "workloads/serving/iteration_cost.h"
#include "workloads/serving/kv_transport.h"
#include "workloads/serving/requests.h"
#include "workloads/serving/scheduler.h"
#include "workloads/serving/stage_transport.h"

namespace weft {

// One batch. A pipelined replica's batches overlap: `duration` is then the busy time of one of its GPUs
// over the batch (its stages' times over the stages), and the batch leaves `start` later than that.
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
  std::vector<uint64_t> kv_blocks;                   // by replica (prefill replicas first)
  std::vector<uint32_t> replica_gpus;                // by replica
  double flops = 0;                                  // the model's FLOPs all GPUs computed, summed over every iteration
  uint32_t replicas = 1;
  uint32_t prefill_replicas = 0;  // disaggregated: replicas [0, this) prefill, the rest decode
  // Disaggregated: per sequence handed off, from its first token to its KV cache's arrival at the
  // decode replica (waiting for blocks, then the transfer; layerwise: what the push left to do).
  std::vector<Time> kv_waits;
  uint64_t kv_transfers = 0;  // fabric transfers
  double kv_bytes = 0;
  uint64_t prefix_hit_tokens = 0;  // prompt tokens the prefix caches served (not computed)
  uint64_t stage_transfers = 0;    // pipelined: activations between stages, fabric transfers
  double stage_bytes = 0;
  Time first_arrival, last_arrival, end;
  uint64_t waiting_at_last_arrival = 0;  // all replicas
};

// Replicas of one kind: mixed (prefill and decode), or one side of a disaggregated pair.
struct ServingPool {
  uint32_t replicas = 1;
  uint32_t gpus_per_replica = 1;
  uint64_t kv_blocks = 0;  // per replica
  // By replica of the pool and pipeline stage.
  std::function<const IterationModel&(uint32_t replica, uint32_t stage)> model_of;
  // Pipelined replicas (stages > 1): up to `stages` batches in flight, the activations carried between
  // stages by `activations` (on the fabric).
  uint32_t stages = 1;
  StageTransport* activations = nullptr;
  // Expert parallelism: replicas in groups of this many (an EP replica's engines, one per GPU) form
  // their batches together and end together (every MoE layer exchanges their tokens); an idle one runs
  // a dummy batch. One stage only.
  uint32_t lockstep = 1;
};

struct ServingSetup {
  SchedulerLimits limits;
  // The client's limit on requests in flight (0: none): a request is sent only when fewer are
  // unfinished, and its Sequence::arrival is when it was sent.
  uint32_t max_concurrency = 0;
  std::vector<ServingPool> pools;  // one (mixed), or prefill then decode
  // Disaggregated only: how the caches move, and the model's layers (a layerwise push starts when the
  // first layer is done and cannot outrun the rest).
  KvTransferMode transfer = KvTransferMode::layerwise;
  KvTransport* transport = nullptr;
  uint32_t layers = 1;
};

// Requests must be sorted by arrival. Runs `sim` (its engine and fabric) to the end. Stops
// (RunStopped) when `poll`, called every 4,096 iterations with the simulated time, returns false.
ServingRun simulate_serving(Simulation& sim, const ServingSetup& setup, const std::vector<Request>& requests,
                            const std::function<bool(Time)>& poll = {});
// One pool of one stage without a fabric (tests, or models whose collectives are timed elsewhere), on
// an Engine of its own.
ServingRun simulate_serving(const ServingSetup& setup, const std::vector<Request>& requests,
                            const std::function<bool(Time)>& poll = {});

}  // namespace weft
