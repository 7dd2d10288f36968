#include "collectives/ep_exchange.h"

#include <fmt/format.h>
#include <cmath>
#include <utility>

#include "collectives/algorithm_util.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

// C(pool - taken, k) / C(pool, k): the chance that k distinct draws from `pool` all miss `taken`.
double all_miss(uint32_t pool, uint32_t taken, uint32_t k) {
  double p = 1;
  for (uint32_t i = 0; i < k; ++i) {
    if (pool - taken <= i) return 0;
    p *= static_cast<double>(pool - taken - i) / static_cast<double>(pool - i);
  }
  return p;
}

uint32_t groups_of(const EpRouting& r, uint32_t nodes) {
  return r.topk_groups == 0 || r.topk_groups > nodes ? nodes : r.topk_groups;
}

// P(a given set of `owned` experts, inside one node, gets at least one of a token's picks).
double picked(const EpRouting& r, uint32_t nodes, uint32_t owned) {
  const uint32_t g = groups_of(r, nodes);
  const uint32_t eligible = g * (r.experts / nodes);
  return static_cast<double>(g) / nodes * (1 - all_miss(eligible, owned, r.topk));
}

void check(const EpRouting& r, uint32_t ranks, uint32_t gpus_per_node) {
  if (ranks == 0 || gpus_per_node == 0 || ranks % gpus_per_node != 0) {
    throw ConfigError(fmt::format("EP exchange: {} ranks are not whole nodes of {} GPUs", ranks, gpus_per_node));
  }
  if (r.experts == 0 || r.experts % ranks != 0) {
    throw ConfigError(fmt::format("EP exchange: {} experts do not divide over {} ranks", r.experts, ranks));
  }
  const uint32_t nodes = ranks / gpus_per_node;
  const uint32_t eligible = groups_of(r, nodes) * (r.experts / nodes);
  if (r.topk == 0 || r.topk > eligible) {
    throw ConfigError(fmt::format("EP exchange: top-{} of the {} experts a token may use", r.topk, eligible));
  }
}

void add_send(Schedule& s, uint32_t from, uint32_t to, double bytes) {
  const auto whole = static_cast<uint64_t>(std::llround(bytes));
  if (whole == 0 || from == to) return;
  Stream stream{from, static_cast<uint32_t>(s.streams.size()), {}};
  stream.runs.push_back(StepRun{.kind = StepKind::send, .peer = to, .bytes = Bytes(whole)});
  s.streams.push_back(std::move(stream));
}

}  // namespace

double ep_token_bytes(EpKernel kernel, EpPhase phase, uint32_t hidden) {
  const double h = hidden;
  if (phase == EpPhase::combine) return 2 * h;
  return kernel == EpKernel::normal ? h * (1 + 4.0 / 128) : h + h / 128 * 4 + 16;
}

double ep_node_probability(const EpRouting& routing, uint32_t nodes) {
  return picked(routing, nodes, routing.experts / nodes);
}

double ep_rank_probability(const EpRouting& routing, uint32_t ranks, uint32_t nodes) {
  return picked(routing, nodes, routing.experts / ranks);
}

EpExchange ep_exchange(EpKernel kernel, EpPhase phase, const EpRouting& routing, uint32_t ranks,
                       uint32_t gpus_per_node) {
  check(routing, ranks, gpus_per_node);
  const uint32_t nodes = ranks / gpus_per_node;
  const double token = ep_token_bytes(kernel, phase, routing.hidden);
  const double tokens = routing.tokens;
  EpExchange x;
  const auto name = fmt::format("ep_{}/{}", phase == EpPhase::dispatch ? "dispatch" : "combine",
                                kernel == EpKernel::normal ? "normal" : "low_latency");
  x.schedule = detail::empty_schedule(name, ranks, Bytes(static_cast<uint64_t>(tokens * token)), 1);
  if (kernel == EpKernel::low_latency) {
    const double per_rank = tokens * routing.topk / ranks * token;
    for (uint32_t a = 0; a < ranks; ++a) {
      for (uint32_t b = 0; b < ranks; ++b) add_send(x.schedule, a, b, per_rank);
    }
    x.counted_bytes = tokens * routing.topk * token;
    x.counted_as = "RDMA";
    return x;
  }
  const double p_rank = ep_rank_probability(routing, ranks, nodes);
  const double p_node = ep_node_probability(routing, nodes);
  for (uint32_t a = 0; a < ranks; ++a) {
    const uint32_t node = a / gpus_per_node, local = a % gpus_per_node;
    for (uint32_t j = 0; j < gpus_per_node; ++j) {  // direct and forwarded tokens to the node's ranks
      add_send(x.schedule, a, node * gpus_per_node + j, nodes * tokens * p_rank * token);
    }
    for (uint32_t n = 0; n < nodes; ++n) {  // one RDMA copy per picked node, to the same local index
      if (n != node) add_send(x.schedule, a, n * gpus_per_node + local, tokens * p_node * token);
    }
  }
  x.counted_bytes = nodes == 1 ? ranks * tokens * p_rank * token : nodes * tokens * p_node * token;
  x.counted_as = nodes == 1 ? "NVLink" : "RDMA";
  return x;
}

SimulationSetup ep_simulation_setup(std::string fabric, uint64_t seed) {
  SimulationSetup setup{std::move(fabric), seed};
  setup.fabric_options.pxn = false;
  return setup;
}

}  // namespace weft
