#include "workloads/serving/serving_sim.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <utility>

#include "sim/core/errors.h"

namespace weft {
namespace {

class ServingSimulation {
 public:
  // `sim` null: no fabric (not disaggregated), the run on `engine` alone.
  ServingSimulation(Simulation* sim, Engine& engine, const ServingSetup& setup, const std::vector<Request>& requests,
                    const std::function<bool(Time)>& poll)
      : sim_(sim), engine_(engine), setup_(setup), requests_(requests), poll_(poll) {
    run_.sequences.resize(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      const Request& q = requests[i];
      Sequence& s = run_.sequences[i];
      s.prompt = q.prompt, s.prefix = q.prefix, s.prefix_group = q.prefix_group, s.output = q.output;
      s.arrival = q.arrival;
    }
    for (uint32_t p = 0; p < setup.pools.size(); ++p) {
      const ServingPool& pool = setup.pools[p];
      for (uint32_t r = 0; r < pool.replicas; ++r) {
        replicas_.push_back(Replica(std::make_unique<ReplicaScheduler>(setup.limits, pool.kv_blocks, run_.sequences), p,
                                    r, pool.stages));
        replicas_.back().lockstep = pool.lockstep;
        run_.kv_blocks.push_back(pool.kv_blocks);
        run_.replica_gpus.push_back(pool.gpus_per_replica);
      }
    }
    run_.replicas = static_cast<uint32_t>(replicas_.size());
    if (disaggregated()) {
      run_.prefill_replicas = setup.pools[0].replicas;
      for (uint32_t r = 0; r < run_.prefill_replicas; ++r) replicas_[r].scheduler->hand_off_after_first_token();
      handoffs_.resize(requests.size());
      incoming_.resize(replicas_.size());
      routed_.assign(replicas_.size(), 0);
    }
  }

  ServingRun run() {
    if (!requests_.empty()) {
      run_.first_arrival = requests_.front().arrival;
      run_.last_arrival = requests_.back().arrival;
      engine_.schedule_at(requests_.front().arrival, [this] { arrive(0); });
    }
    if (sim_ != nullptr) sim_->run();
    if (sim_ == nullptr) engine_.run();
    run_.end = engine_.now();
    if (setup_.transport != nullptr) {
      run_.kv_transfers = setup_.transport->transfers();
      run_.kv_bytes = setup_.transport->bytes();
    }
    for (const Replica& r : replicas_) run_.prefix_hit_tokens += r.scheduler->prefix_hit_tokens();
    for (const ServingPool& pool : setup_.pools) {
      if (pool.activations == nullptr) continue;
      run_.stage_transfers += pool.activations->transfers();
      run_.stage_bytes += pool.activations->bytes();
    }
    return std::move(run_);
  }

 private:
  // A batch between entering its first stage and leaving its last, with each stage's time.
  struct InFlight {
    ScheduledBatch batch;
    std::vector<Time> stage_time;
  };
  struct Replica {
    Replica(std::unique_ptr<ReplicaScheduler> s, uint32_t p, uint32_t i, uint32_t n)
        : scheduler(std::move(s)), pool(p), index(i), stages(n), slots(n), queued(n), stage_busy(n, false) {
      for (uint32_t k = n; k > 0; --k) free_slots.push_back(k - 1);
    }
    std::unique_ptr<ReplicaScheduler> scheduler;
    uint32_t pool = 0;
    uint32_t index = 0;  // in its pool
    uint32_t stages = 1;
    uint32_t lockstep = 1;                     // engines of its expert-parallel group (ServingPool::lockstep)
    std::vector<InFlight> slots;               // batches in flight (at most one per stage)
    std::vector<uint32_t> free_slots;          // of slots
    std::vector<std::deque<uint32_t>> queued;  // by stage: slots whose activations arrived, waiting for it
    std::vector<bool> stage_busy;
    bool host_busy = false;  // pipelined: scheduling a batch
  };
  // A disaggregated sequence between its prefill and decode replicas.
  struct Handoff {
    uint32_t prefill = 0;  // replicas
    uint32_t decode = 0;
    uint32_t held_blocks = 0;  // on the prefill replica until the cache has left
    uint32_t pushes = 0;       // layerwise pushes in flight
    bool prefilled = false;
    Time first_token;
  };

  bool disaggregated() const { return setup_.pools.size() > 1; }
  bool pushes_layers(const Replica& r) const {
    return disaggregated() && r.pool == 0 && setup_.transfer == KvTransferMode::layerwise;
  }
  const IterationModel& model_of(const Replica& r, uint32_t stage = 0) const {
    return setup_.pools[r.pool].model_of(r.index, stage);
  }

  void arrive(uint32_t i) {
    if (i + 1 < requests_.size()) engine_.schedule_at(requests_[i + 1].arrival, [this, i] { arrive(i + 1); });
    setup_.max_concurrency > 0 && in_flight_ >= setup_.max_concurrency ? held_.push_back(i) : send(i);
    if (i + 1 == requests_.size()) {
      run_.waiting_at_last_arrival = held_.size();
      for (const Replica& r : replicas_) run_.waiting_at_last_arrival += r.scheduler->waiting();
    }
  }

  // The replica of [first, last) with the fewest unfinished requests (counting those routed to it).
  uint32_t least_loaded(uint32_t first, uint32_t last) const {
    auto load = [&](uint32_t r) { return replicas_[r].scheduler->unfinished() + (routed_.empty() ? 0 : routed_[r]); };
    uint32_t best = first;
    for (uint32_t r = first + 1; r < last; ++r) best = load(r) < load(best) ? r : best;
    return best;
  }

  void send(uint32_t i) {
    run_.sequences[i].arrival = engine_.now();
    ++in_flight_;
    const auto n = static_cast<uint32_t>(replicas_.size());
    const uint32_t entry = least_loaded(0, disaggregated() ? run_.prefill_replicas : n);
    if (disaggregated() && run_.sequences[i].output > 1) {  // one token: done on the prefill replica
      const uint32_t d = least_loaded(run_.prefill_replicas, n);
      handoffs_[i].prefill = entry;
      handoffs_[i].decode = d;
      ++routed_[d];
    }
    replicas_[entry].scheduler->add(i);
    start(entry);
  }

  // One stage: a new batch starts when the last one has ended. Pipelined: as vLLM V1's batch queue, the
  // host schedules the next batch as soon as fewer than `stages` are in flight and it is not busy
  // scheduling one; the batch then waits for the first stage.
  void start(uint32_t r) {
    Replica& replica = replicas_[r];
    if (replica.lockstep > 1) {
      start_group(r - replica.index % replica.lockstep);
      return;
    }
    const bool pipelined = replica.stages > 1;
    if ((pipelined ? replica.host_busy : replica.stage_busy[0]) || replica.free_slots.empty()) return;
    ScheduledBatch batch = replica.scheduler->schedule();
    if (batch.empty()) return;
    const uint32_t slot = replica.free_slots.back();
    replica.free_slots.pop_back();
    InFlight& f = replica.slots[slot];
    f.batch = std::move(batch);
    f.stage_time.clear();
    const BatchShape& shape = f.batch.shape;
    const uint32_t gpus_per_stage = setup_.pools[replica.pool].gpus_per_replica / replica.stages;
    IterationCost first;
    Time busy, communication;
    for (uint32_t s = 0; s < replica.stages; ++s) {
      const IterationModel& model = model_of(replica, s);
      const IterationCost cost = model.cost(shape);
      if (s == 0) first = cost;
      f.stage_time.push_back(cost.total());
      busy += cost.total();
      communication += cost.communication;
      run_.flops += model.flops(shape) * gpus_per_stage;
    }
    const Time duration = Time::ps(busy.ps() / replica.stages);
    record(r, f.batch, duration, Time::ps(communication.ps() / replica.stages), model_of(replica).prefill_share(shape));
    if (pushes_layers(replica)) push_layers(f.batch, first, duration);
    if (!pipelined) {
      run_stage(r, slot, 0);
      return;
    }
    f.stage_time[0] = f.stage_time[0] - first.host;  // the host's part, before the batch reaches the GPUs
    replica.host_busy = true;
    engine_.schedule_in(first.host, [this, r, slot] {
      replicas_[r].host_busy = false;
      enter(r, slot, 0);
      start(r);
    });
  }

  // Pipelined, the first stage's model prices the prompts' share (every stage splits alike but the last,
  // whose logits are the sampled sequences').
  void record(uint32_t r, const ScheduledBatch& batch, Time duration, Time communication, float prefill_share) {
    const Replica& replica = replicas_[r];
    const BatchShape& shape = batch.shape;
    run_.iterations.push_back({engine_.now(), duration, r, shape.tokens(), static_cast<uint32_t>(batch.items.size()),
                               static_cast<uint32_t>(replica.scheduler->waiting()),
                               static_cast<uint32_t>(replica.scheduler->running()), replica.scheduler->blocks_used(),
                               shape.prefill_tokens, communication, prefill_share});
    if (poll_ && run_.iterations.size() % 4096 == 0 && !poll_(engine_.now())) throw RunStopped("run stopped");
  }

  // An expert-parallel group from `first`: once all its engines are idle and one has work, each forms
  // its batch (empty: a dummy batch) and all end when the slowest does (each MoE layer waits for every
  // engine's tokens). Busy until all have completed, so none starts alone.
  void start_group(uint32_t first) {
    const uint32_t n = replicas_[first].lockstep;
    const auto members = replicas_.begin() + first;
    if (std::any_of(members, members + n, [](const Replica& m) { return m.stage_busy[0]; })) return;
    ExpertGroupLoad load;
    bool work = false;
    for (uint32_t m = first; m < first + n; ++m) {
      const ScheduledBatch& batch = replicas_[m].slots[0].batch = replicas_[m].scheduler->schedule();
      work = work || !batch.empty();
      load.add(batch.shape);
    }
    if (!work) return;
    // The engines' prompts' share of the iteration, weighted by each engine's own time: an engine kept
    // waiting for another's prompts owes that wait to them.
    std::vector<IterationCost> costs;
    Time duration;
    double own = 0, prompts = 0;
    for (uint32_t m = first; m < first + n; ++m) {
      const BatchShape& shape = replicas_[m].slots[0].batch.shape;
      costs.push_back(model_of(replicas_[m]).cost(shape, &load));
      duration = std::max(duration, costs.back().total());
      own += static_cast<double>(costs.back().total().ps());
      prompts += model_of(replicas_[m]).prefill_share(shape) * static_cast<double>(costs.back().total().ps());
    }
    for (uint32_t m = first; m < first + n; ++m) {
      Replica& replica = replicas_[m];
      replica.stage_busy[0] = true;
      if (replica.slots[0].batch.empty()) continue;
      replica.free_slots.pop_back();  // slot 0, the only one
      run_.flops += model_of(replica).flops(replica.slots[0].batch.shape);
      if (pushes_layers(replica)) push_layers(replica.slots[0].batch, costs[m - first], duration);
      record(m, replica.slots[0].batch, duration, costs[m - first].communication, static_cast<float>(prompts / own));
    }
    engine_.schedule_in(duration, [this, first, n] {
      for (uint32_t m = first; m < first + n; ++m) {
        if (!replicas_[m].slots[0].batch.empty()) end(m, 0);
      }
      for (uint32_t m = first; m < first + n; ++m) replicas_[m].stage_busy[0] = false;
      start_group(first);
    });
  }

  void run_stage(uint32_t r, uint32_t slot, uint32_t stage) {
    replicas_[r].stage_busy[stage] = true;
    engine_.schedule_in(replicas_[r].slots[slot].stage_time[stage],
                        [this, r, slot, stage] { stage_done(r, slot, stage); });
  }

  void stage_done(uint32_t r, uint32_t slot, uint32_t stage) {
    Replica& replica = replicas_[r];
    replica.stage_busy[stage] = false;
    if (stage + 1 == replica.stages) {
      end(r, slot);  // which starts the next batch
    } else {
      const IterationModel& model = model_of(replica, stage);
      const BatchShape& shape = replica.slots[slot].batch.shape;
      const uint32_t graph = model.graph_tokens(shape);
      setup_.pools[replica.pool].activations->send(replica.index, stage, graph > 0 ? graph : shape.tokens(),
                                                   [this, r, slot, stage] { enter(r, slot, stage + 1); });
    }
    if (!replica.queued[stage].empty()) run_stage(r, take_next(replica, stage), stage);
  }

  // The activations of the batch in `slot` reached `stage`: it runs there once the stage is free.
  void enter(uint32_t r, uint32_t slot, uint32_t stage) {
    Replica& replica = replicas_[r];
    replica.queued[stage].push_back(slot);
    if (!replica.stage_busy[stage]) run_stage(r, take_next(replica, stage), stage);
  }

  static uint32_t take_next(Replica& replica, uint32_t stage) {
    const uint32_t slot = replica.queued[stage].front();
    replica.queued[stage].pop_front();
    return slot;
  }

  // Layerwise: each prompt chunk's KV leaves as its layers are computed: all but the last layer from
  // the end of the first, no faster than the layers produce it, then the last layer's at the end.
  void push_layers(const ScheduledBatch& batch, const IterationCost& cost, Time duration) {
    const uint32_t layers = std::max<uint32_t>(1, setup_.layers);
    const Time first_layer = Time::ps(cost.gpu.ps() / layers);
    const double early = static_cast<double>(layers - 1) / layers;
    for (const ScheduledSequence& item : batch.items) {
      if (run_.sequences[item.id].output <= 1) continue;  // finishes on the prefill replica
      handoffs_[item.id].pushes += early > 0 ? 2 : 1;
      if (early > 0) push(item, early, cost.host + first_layer, cost.gpu - first_layer);
      push(item, 1 - early, duration, Time());
    }
  }

  void push(const ScheduledSequence& item, double share, Time in, Time produced_over) {
    engine_.schedule_in(in, [this, id = item.id, tokens = item.tokens, share, produced_over] {
      const Handoff& h = handoffs_[id];
      setup_.transport->send(h.prefill, h.decode - run_.prefill_replicas, tokens, share, produced_over, [this, id] {
        --handoffs_[id].pushes;
        deliver_if_ready(id);
      });
    });
  }

  void end(uint32_t r, uint32_t slot) {
    Replica& replica = replicas_[r];
    in_flight_ -= replica.scheduler->complete(replica.slots[slot].batch, engine_.now(), run_.token_gaps);
    replica.free_slots.push_back(slot);
    start(r);
    if (disaggregated() && replica.pool == 0) {
      for (uint32_t id : replica.scheduler->take_handed_off()) hand_off(id);
    }
    if (disaggregated() && replica.pool == 1) reserve_incoming(r);
    while (!held_.empty() && in_flight_ < setup_.max_concurrency) {
      const uint32_t i = held_.front();
      held_.pop_front();
      send(i);
    }
  }

  void hand_off(uint32_t id) {
    Sequence& s = run_.sequences[id];
    Handoff& h = handoffs_[id];
    h.held_blocks = std::exchange(s.blocks, 0);
    h.prefilled = true;
    h.first_token = engine_.now();
    if (setup_.transfer == KvTransferMode::layerwise) {
      deliver_if_ready(id);
    } else {
      incoming_[h.decode].push_back(id);
      reserve_incoming(h.decode);
    }
  }

  // after_prefill: the decode replica takes blocks for its incoming caches, first come first served,
  // and pulls each one whose blocks it has.
  void reserve_incoming(uint32_t d) {
    std::deque<uint32_t>& queue = incoming_[d];
    while (!queue.empty() && replicas_[d].scheduler->reserve(run_.sequences[queue.front()])) {
      const uint32_t id = queue.front();
      queue.pop_front();
      const Handoff& h = handoffs_[id];
      setup_.transport->send(h.prefill, d - run_.prefill_replicas, run_.sequences[id].computed, 1, Time(),
                             [this, id] { arrive_at_decode(id); });
    }
  }

  void deliver_if_ready(uint32_t id) {
    const Handoff& h = handoffs_[id];
    if (h.prefilled && h.pushes == 0) arrive_at_decode(id);
  }

  void arrive_at_decode(uint32_t id) {
    Handoff& h = handoffs_[id];
    Replica& prefill = replicas_[h.prefill];
    prefill.scheduler->release(std::exchange(h.held_blocks, 0));
    start(h.prefill);
    run_.kv_waits.push_back(engine_.now() - h.first_token);
    --routed_[h.decode];
    Replica& decode = replicas_[h.decode];
    if (run_.sequences[id].blocks > 0) {
      decode.scheduler->add_with_blocks(id);  // after_prefill: its blocks were reserved
    } else {
      decode.scheduler->add(id);
    }
    start(h.decode);
  }

  Simulation* sim_;
  Engine& engine_;
  const ServingSetup& setup_;
  const std::vector<Request>& requests_;
  const std::function<bool(Time)>& poll_;
  uint32_t in_flight_ = 0;
  std::deque<uint32_t> held_;  // arrived, not sent (the client's concurrency limit)
  std::vector<Replica> replicas_;
  std::vector<Handoff> handoffs_;               // by sequence (disaggregated)
  std::vector<std::deque<uint32_t>> incoming_;  // by replica: caches waiting for decode blocks
  std::vector<uint32_t> routed_;                // by replica: routed to decode there, not yet arrived
  ServingRun run_;
};

}  // namespace

ServingRun simulate_serving(Simulation& sim, const ServingSetup& setup, const std::vector<Request>& requests,
                            const std::function<bool(Time)>& poll) {
  WEFT_ASSERT(std::is_sorted(requests.begin(), requests.end(),
                             [](const Request& a, const Request& b) { return a.arrival < b.arrival; }));
  WEFT_ASSERT(setup.pools.size() == 1 || (setup.pools.size() == 2 && setup.transport != nullptr));
  for (const ServingPool& pool : setup.pools) WEFT_ASSERT(pool.stages == 1 || pool.activations != nullptr);
  return ServingSimulation(&sim, sim.engine(), setup, requests, poll).run();
}

ServingRun simulate_serving(const ServingSetup& setup, const std::vector<Request>& requests,
                            const std::function<bool(Time)>& poll) {
  WEFT_ASSERT(setup.pools.size() == 1 && setup.pools[0].stages == 1);
  Engine engine;
  return ServingSimulation(nullptr, engine, setup, requests, poll).run();
}

}  // namespace weft
