#include "workloads/serving/serving_sim.h"

#include <algorithm>
#include <deque>
#include <memory>

#include "sim/core/errors.h"

namespace weft {
namespace {

float prefill_share(const IterationModel& model, const BatchShape& shape) {
  if (shape.prefill_tokens == 0) return 0;
  if (shape.decode_seqs == 0) return 1;
  BatchShape prefill = shape, decode;
  prefill.decode_seqs = 0;
  prefill.decode_context = 0;
  prefill.sampled = shape.sampled - shape.decode_seqs;
  prefill.seqs = shape.seqs - shape.decode_seqs;
  decode.decode_seqs = shape.decode_seqs;
  decode.decode_context = shape.decode_context;
  decode.sampled = shape.decode_seqs;
  decode.seqs = shape.decode_seqs;
  const double p = static_cast<double>(model.cost(prefill).total().ps());
  const double d = static_cast<double>(model.cost(decode).total().ps());
  return static_cast<float>(p / (p + d));
}

class ServingSimulation {
 public:
  ServingSimulation(const SchedulerLimits& limits, uint32_t replicas, uint32_t max_concurrency, uint64_t kv_blocks,
                    const std::vector<Request>& requests,
                    const std::function<const IterationModel&(uint32_t)>& model_of,
                    const std::function<bool(Time)>& poll)
      : requests_(requests), model_of_(model_of), poll_(poll), max_concurrency_(max_concurrency) {
    run_.replicas = replicas;
    run_.kv_blocks = kv_blocks;
    run_.sequences.resize(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      Sequence& s = run_.sequences[i];
      s.prompt = requests[i].prompt;
      s.output = requests[i].output;
      s.arrival = requests[i].arrival;
    }
    for (uint32_t r = 0; r < replicas; ++r) {
      replicas_.push_back(Replica{std::make_unique<ReplicaScheduler>(limits, kv_blocks, run_.sequences), {}, false});
    }
  }

  ServingRun run() {
    if (!requests_.empty()) {
      run_.first_arrival = requests_.front().arrival;
      run_.last_arrival = requests_.back().arrival;
      engine_.schedule_at(requests_.front().arrival, [this] { arrive(0); });
    }
    engine_.run();
    run_.end = engine_.now();
    return std::move(run_);
  }

 private:
  struct Replica {
    std::unique_ptr<ReplicaScheduler> scheduler;
    ScheduledBatch batch;  // the iteration in flight
    bool busy = false;
  };

  void arrive(uint32_t i) {
    if (i + 1 < requests_.size()) engine_.schedule_at(requests_[i + 1].arrival, [this, i] { arrive(i + 1); });
    if (max_concurrency_ > 0 && in_flight_ >= max_concurrency_) {
      held_.push_back(i);
    } else {
      send(i);
    }
    if (i + 1 == requests_.size()) {
      run_.waiting_at_last_arrival = held_.size();
      for (const Replica& r : replicas_) run_.waiting_at_last_arrival += r.scheduler->waiting();
    }
  }

  // To the replica with the fewest unfinished requests.
  void send(uint32_t i) {
    run_.sequences[i].arrival = engine_.now();
    ++in_flight_;
    uint32_t best = 0;
    for (uint32_t r = 1; r < replicas_.size(); ++r) {
      if (replicas_[r].scheduler->unfinished() < replicas_[best].scheduler->unfinished()) best = r;
    }
    replicas_[best].scheduler->add(i);
    if (!replicas_[best].busy) start(best);
  }

  void start(uint32_t r) {
    Replica& replica = replicas_[r];
    replica.batch = replica.scheduler->schedule();
    replica.busy = !replica.batch.empty();
    if (!replica.busy) return;
    const IterationCost cost = model_of_(r).cost(replica.batch.shape);
    run_.flops_per_gpu += model_of_(r).flops(replica.batch.shape);
    const Time duration = cost.total();
    const BatchShape& shape = replica.batch.shape;
    run_.iterations.push_back({engine_.now(), duration, r, shape.tokens(),
                               static_cast<uint32_t>(replica.batch.items.size()),
                               static_cast<uint32_t>(replica.scheduler->waiting()),
                               static_cast<uint32_t>(replica.scheduler->running()), replica.scheduler->blocks_used(),
                               shape.prefill_tokens, cost.communication, prefill_share(model_of_(r), shape)});
    if (poll_ && run_.iterations.size() % 4096 == 0 && !poll_(engine_.now())) {
      throw RunStopped("run stopped");
    }
    engine_.schedule_in(duration, [this, r] { end(r); });
  }

  void end(uint32_t r) {
    Replica& replica = replicas_[r];
    in_flight_ -= replica.scheduler->complete(replica.batch, engine_.now(), run_.token_gaps);
    start(r);
    while (!held_.empty() && in_flight_ < max_concurrency_) {
      const uint32_t i = held_.front();
      held_.pop_front();
      send(i);
    }
  }

  const std::vector<Request>& requests_;
  const std::function<const IterationModel&(uint32_t)>& model_of_;
  const std::function<bool(Time)>& poll_;
  uint32_t max_concurrency_ = 0;
  uint32_t in_flight_ = 0;
  std::deque<uint32_t> held_;  // arrived, not sent (the client's concurrency limit)
  Engine engine_;
  std::vector<Replica> replicas_;
  ServingRun run_;
};

}  // namespace

ServingRun simulate_serving(const SchedulerLimits& limits, uint32_t replicas, uint32_t max_concurrency,
                            uint64_t kv_blocks, const std::vector<Request>& requests,
                            const std::function<const IterationModel&(uint32_t)>& model_of,
                            const std::function<bool(Time)>& poll) {
  WEFT_ASSERT(std::is_sorted(requests.begin(), requests.end(),
                             [](const Request& a, const Request& b) { return a.arrival < b.arrival; }));
  return ServingSimulation(limits, replicas, max_concurrency, kv_blocks, requests, model_of, poll).run();
}

}  // namespace weft
