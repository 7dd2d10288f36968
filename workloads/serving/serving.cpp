#include "workloads/serving/serving.h"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>

#include "sim/core/errors.h"
#include "topologies/node_checks.h"
#include "workloads/serving/replica_collectives.h"

namespace weft {
namespace {

std::vector<uint32_t> replica_gpus(uint32_t replica, uint32_t tp) {
  std::vector<uint32_t> gpus(tp);
  for (uint32_t i = 0; i < tp; ++i) gpus[i] = replica * tp + i;
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

ServingOutcome run_serving(const ServingInputs& in, const std::function<bool(Time)>& poll) {
  const auto wall_start = std::chrono::steady_clock::now();
  const ServingSpec& spec = in.spec;
  const catalogue::GpuSpec& gpu = node_spec::gpu_of(node_spec::resolved(in.cluster.node));
  check(spec, static_cast<uint32_t>(in.topology.gpus().size()), gpu);
  ServingOutcome out;
  out.kv = kv_capacity(spec, gpu);
  require_room(out.kv, spec, gpu, longest_request(spec, in.requests));
  if (spec.tp > 1) require_simulations(in.setup.fabric, 2, "fabrics", "serve with tp 1, or another fabric");
  Simulation main(in.topology, in.setup);
  IsolatedTimer timer(main);
  std::vector<std::unique_ptr<ReplicaCollectives>> collectives;
  std::vector<std::unique_ptr<IterationModel>> models;
  const Efficiencies eff = in.profile.resolve(gpu.name);
  for (uint32_t r = 0; r < spec.replicas; ++r) {
    collectives.push_back(
        std::make_unique<ReplicaCollectives>(in.topology, in.cluster, replica_gpus(r, spec.tp), timer));
    ReplicaCollectives& c = *collectives.back();
    models.push_back(std::make_unique<IterationModel>(
        spec, gpu, eff, in.host, [&c](CollectiveOp op, Bytes bytes) { return c.time(op, bytes); }));
  }
  out.run = simulate_serving(
      spec.limits, spec.replicas, spec.max_concurrency, out.kv.blocks, in.requests,
      [&models](uint32_t r) -> const IterationModel& { return *models[r]; }, poll);
  out.metrics = serving_metrics(out.run, spec.slo);
  const double gpu_seconds = out.metrics.duration.seconds() * spec.replicas;
  if (gpu_seconds > 0) {
    out.metrics.mfu = out.run.flops_per_gpu / (gpu_seconds * peak_flops(gpu, gemm_precision(spec.weights)));
  }
  for (const auto& c : collectives) out.collective_sizes += c->distinct();
  out.isolated_runs = timer.simulated();
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return out;
}

}  // namespace weft
