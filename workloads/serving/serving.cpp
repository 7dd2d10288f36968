#include "workloads/serving/serving.h"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>

#include "sim/core/errors.h"
#include "topologies/node_checks.h"
#include "workloads/serving/replica_collectives.h"
#include "workloads/serving/stage_transport.h"

namespace weft {
namespace {

std::vector<uint32_t> replica_gpus(uint32_t first, uint32_t tp) {
  std::vector<uint32_t> gpus(tp);
  for (uint32_t i = 0; i < tp; ++i) gpus[i] = first + i;
  return gpus;
}

}  // namespace

uint64_t longest_request(const ServingSpec& spec, const std::vector<Request>& requests) {
  uint64_t longest = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const uint64_t need = static_cast<uint64_t>(requests[i].prompt) + requests[i].output;
    if (spec.model.max_seq > 0 && need > spec.model.max_seq) {
      throw ConfigError(
          fmt::format("request {} needs {} tokens of context ({} prompt + {} output), above {}'s {} "
                      "(max_seq): bound the lengths (max:)",
                      i, need, requests[i].prompt, requests[i].output, spec.model.name, spec.model.max_seq));
    }
    longest = std::max(longest, need);
  }
  return longest;
}

namespace {

// Each pool's replicas on consecutive GPUs (the prefill pool's first), stage-major within a replica;
// each stage's collectives on the fabric.
struct PoolModels {
  std::vector<std::vector<uint32_t>> gpus;  // by engine: a replica, or one GPU of an expert-parallel one
  std::vector<std::unique_ptr<ReplicaCollectives>> collectives;
  std::vector<std::unique_ptr<IterationModel>> models;  // by replica x stage
  std::unique_ptr<StageTransport> activations;          // pipelined
};

// DeepEP's ranks are node-major: an expert-parallel replica's GPUs fill whole nodes, or share one evenly.
void check_placement(const ServingSpec& pool, uint32_t first_gpu, uint32_t per_node) {
  if (pool.ep <= 1) return;
  if (per_node % pool.ep != 0 && pool.ep % per_node != 0) {
    throw ConfigError(
        fmt::format("ep: {} GPUs per replica neither divide a node's {} GPUs nor fill whole nodes", pool.ep, per_node));
  }
  if (first_gpu % std::min(pool.ep, per_node) != 0) {
    throw ConfigError(
        fmt::format("ep: the decode pool's replicas would start at GPU {}, inside a node of {}: give "
                    "the prefill pool whole nodes, or ep GPUs per replica that divide its GPUs",
                    first_gpu, per_node));
  }
}

PoolModels pool_models(const ServingInputs& in, const ServingSpec& pool, const catalogue::GpuSpec& gpu,
                       uint32_t& next_gpu, IsolatedTimer& timer) {
  check_placement(pool, next_gpu, static_cast<uint32_t>(in.cluster.node.gpus));
  PoolModels out;
  const Efficiencies eff = in.profile.resolve(gpu.name);
  const std::vector<uint32_t> layers = stage_layers(pool.model.layers, pool.pp);
  // Under expert parallelism a stage's collectives span the replica's ep GPUs (its DeepEP exchanges).
  const uint32_t stage_gpus = pool.tp * pool.ep;
  for (uint32_t r = 0; r < pool.replicas; ++r, next_gpu += stage_gpus * pool.pp) {
    for (uint32_t e = 0; e < pool.ep; ++e) {
      out.gpus.push_back(replica_gpus(next_gpu + e * pool.tp * pool.pp, pool.tp * pool.pp));
    }
    for (uint32_t s = 0; s < pool.pp; ++s) {
      out.collectives.push_back(std::make_unique<ReplicaCollectives>(
          in.topology, in.cluster, replica_gpus(next_gpu + s * stage_gpus, stage_gpus), timer));
      ReplicaCollectives& c = *out.collectives.back();
      const StageSpan span{pool.pp > 1 ? layers[s] : 0, s == 0, s + 1 == pool.pp};
      out.models.push_back(std::make_unique<IterationModel>(
          pool, gpu, eff, in.host, [&c](CollectiveOp op, Bytes bytes) { return c.time(op, bytes); }, span,
          [&c, &model = pool.model](EpKernel k, EpPhase p, uint32_t tokens) {
            return c.exchange(model, k, p, tokens);
          }));
    }
  }
  return out;
}

}  // namespace

ServingOutcome run_serving(const ServingInputs& in, const std::function<bool(Time)>& poll) {
  const auto wall_start = std::chrono::steady_clock::now();
  const ServingSpec& spec = in.spec;
  const catalogue::GpuSpec& gpu = node_spec::gpu_of(node_spec::resolved(in.cluster.node));
  check(spec, static_cast<uint32_t>(in.topology.gpus().size()), gpu);
  const std::vector<ServingSpec> pools = pool_specs(spec);
  ServingOutcome out;
  const uint64_t longest = longest_request(spec, in.requests);
  for (const ServingSpec& p : pools) {
    out.pool_kv.push_back(kv_capacity(p, gpu));
    require_room(out.pool_kv.back(), p, gpu, longest);
    if (p.tp > 1 || p.ep > 1)
      require_simulations(in.setup.fabric, 2, "fabrics", "serve with tp 1 and ep 1, or another fabric");
  }
  Simulation main(in.topology, in.setup);
  IsolatedTimer timer(main);
  ServingSetup setup{.limits = spec.limits, .max_concurrency = spec.max_concurrency};
  std::vector<PoolModels> models;
  uint32_t next_gpu = 0;
  for (size_t p = 0; p < pools.size(); ++p) {
    models.push_back(pool_models(in, pools[p], gpu, next_gpu, timer));
    const uint32_t pp = pools[p].pp;
    if (pp > 1) {
      models.back().activations =
          std::make_unique<StageTransport>(main.fabric(), in.topology, spec.model, pools[p].tp, models.back().gpus);
    }
    // By index: `models` may move its elements as it grows. An expert-parallel replica is ep engines of
    // one GPU each, sharing its model.
    const uint32_t ep = pools[p].ep;
    setup.pools.push_back({pools[p].replicas * ep, pools[p].tp * pp, out.pool_kv[p].blocks,
                           [&models, p, pp, ep](uint32_t r, uint32_t s) -> const IterationModel& {
                             return *models[p].models[(r / ep) * pp + s];
                           },
                           pp, models.back().activations.get(), ep});
  }
  std::unique_ptr<KvTransport> transport;
  if (spec.disaggregated.enabled()) {
    transport = std::make_unique<KvTransport>(main.fabric(), in.topology, spec.model, spec.kv, models[0].gpus,
                                              models[1].gpus, pools[0].pp, pools[1].pp);
    setup.transfer = spec.disaggregated.transfer;
    setup.transport = transport.get();
    setup.layers = spec.model.layers;
  }
  out.run = simulate_serving(main, setup, in.requests, poll);
  out.metrics = serving_metrics(out.run, spec.slo);
  const double gpu_seconds = out.metrics.duration.seconds() * static_cast<double>(serving_gpus(spec));
  if (gpu_seconds > 0) out.metrics.mfu = out.run.flops / (gpu_seconds * peak_flops(gpu, gemm_precision(spec.weights)));
  for (const PoolModels& m : models) {
    for (const auto& c : m.collectives) out.collective_sizes += c->distinct();
  }
  out.isolated_runs = timer.simulated();
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return out;
}

}  // namespace weft
