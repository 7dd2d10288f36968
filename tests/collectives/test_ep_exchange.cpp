// DeepEP-style MoE dispatch/combine: routing probabilities against their closed forms and against
// DeepEP's own routing drawn at random, the exchange's volumes, and its time on a switch.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <random>

#include "collectives/ep_exchange.h"
#include "collectives/simulate.h"
#include "sim/core/errors.h"
#include "topologies/builders.h"

using namespace weft;

namespace {

// DeepEP's test routing for one token (tests/legacy/test_internode.py): random scores, the top-g nodes
// by their best expert score, then the top-k experts of those nodes. Returns the experts.
std::vector<uint32_t> route(std::mt19937_64& rng, const EpRouting& r, uint32_t nodes) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> score(r.experts);
  for (double& s : score) s = u(rng);
  const uint32_t per_node = r.experts / nodes, g = r.topk_groups == 0 ? nodes : r.topk_groups;
  std::vector<uint32_t> node(nodes);
  std::iota(node.begin(), node.end(), 0);
  auto best = [&](uint32_t n) {
    const auto first = score.begin() + static_cast<std::ptrdiff_t>(n) * per_node;
    return *std::max_element(first, first + per_node);
  };
  std::partial_sort(node.begin(), node.begin() + g, node.end(),
                    [&](uint32_t a, uint32_t b) { return best(a) > best(b); });
  std::vector<uint32_t> eligible;
  for (uint32_t i = 0; i < g; ++i) {
    for (uint32_t e = node[i] * per_node; e < (node[i] + 1) * per_node; ++e) eligible.push_back(e);
  }
  std::partial_sort(eligible.begin(), eligible.begin() + r.topk, eligible.end(),
                    [&](uint32_t a, uint32_t b) { return score[a] > score[b]; });
  eligible.resize(r.topk);
  return eligible;
}

uint64_t bytes_from(const Schedule& s, uint32_t rank) {
  uint64_t total = 0;
  for (const Stream& st : s.streams) {
    if (st.rank == rank) total += st.runs.front().bytes.count();
  }
  return total;
}

}  // namespace

TEST_CASE("EP routing: closed forms on small shapes", "[ep]") {
  CHECK(ep_rank_probability({.experts = 8, .topk = 1}, 8, 1) == Approx(1.0 / 8));
  CHECK(ep_rank_probability({.experts = 8, .topk = 8}, 8, 1) == Approx(1.0));
  // 4 nodes of 2 ranks, 64 experts, one node group, top-2: the node is picked 1/4 of the time and
  // then holds both picks; a rank misses with C(8,2)/C(16,2).
  const EpRouting limited{.experts = 64, .topk = 2, .topk_groups = 1};
  CHECK(ep_node_probability(limited, 4) == Approx(0.25));
  CHECK(ep_rank_probability(limited, 8, 4) == Approx(0.25 * (1 - 28.0 / 120)));
}

TEST_CASE("EP routing: the probabilities match DeepEP's routing drawn at random", "[ep]") {
  const EpRouting r{.experts = 256, .topk = 8, .topk_groups = 2};
  const uint32_t nodes = 4, ranks = 32, tokens = 40000;
  std::mt19937_64 rng(7);
  uint32_t node0 = 0, rank0 = 0;
  for (uint32_t t = 0; t < tokens; ++t) {
    const std::vector<uint32_t> experts = route(rng, r, nodes);
    node0 += std::any_of(experts.begin(), experts.end(), [](uint32_t e) { return e < 64; });
    rank0 += std::any_of(experts.begin(), experts.end(), [](uint32_t e) { return e < 8; });
  }
  CHECK(node0 / double(tokens) == Approx(ep_node_probability(r, nodes)).epsilon(0.02));
  CHECK(rank0 / double(tokens) == Approx(ep_rank_probability(r, ranks, nodes)).epsilon(0.03));
}

TEST_CASE("EP exchange: volumes per rank as DeepEP's kernels move them", "[ep]") {
  const EpRouting r{.tokens = 128, .hidden = 7168, .experts = 256, .topk = 8};
  const double fp8 = 7168 + 7168.0 / 128 * 4 + 16;
  const EpExchange ll = ep_exchange(EpKernel::low_latency, EpPhase::dispatch, r, 16, 8);
  CHECK(ll.counted_bytes == Approx(128 * 8 * fp8));
  CHECK(bytes_from(ll.schedule, 3) == Approx(128 * 8 * fp8 * 15 / 16).epsilon(1e-6));
  // Normal kernel, 2 nodes: each rank sends T P(node) tokens to its peer on the other node and
  // N T P(rank) tokens to each of the 7 others on its own.
  const EpRouting n{.tokens = 4096, .hidden = 7168, .experts = 256, .topk = 8, .topk_groups = 4};
  const EpExchange x = ep_exchange(EpKernel::normal, EpPhase::combine, n, 16, 8);
  const double bf16 = 2 * 7168, p_node = ep_node_probability(n, 2), p_rank = ep_rank_probability(n, 16, 2);
  CHECK(bytes_from(x.schedule, 0) == Approx(4096 * bf16 * (p_node + 7 * 2 * p_rank)).epsilon(1e-6));
  CHECK(x.counted_bytes == Approx(2 * 4096 * p_node * bf16));
  CHECK(x.counted_as == "RDMA");
  CHECK(ep_exchange(EpKernel::normal, EpPhase::dispatch, n, 8, 8).counted_as == "NVLink");
}

TEST_CASE("EP exchange: the low-latency exchange on a switch takes its sends over one link", "[ep]") {
  const Bandwidth rate = Bandwidth::gbps(400);
  const Topology t = build_topology("single-switch", 8, {LinkKind::generic, rate, Time::us(1)});
  const EpRouting r{.tokens = 128, .hidden = 7168, .experts = 256, .topk = 8};
  const EpExchange x = ep_exchange(EpKernel::low_latency, EpPhase::combine, r, 8, 8);
  const double expected = bytes_from(x.schedule, 0) * 8.0 / rate.bps() + 2e-6;
  CHECK(simulate(x.schedule, t, {ep_simulation_setup("flow")}).time.seconds() == Approx(expected).epsilon(0.01));
}

TEST_CASE("EP exchange: shapes the routing cannot have are refused", "[ep]") {
  CHECK_THROWS_AS(ep_exchange(EpKernel::normal, EpPhase::dispatch, {.experts = 100}, 8, 8), ConfigError);
  CHECK_THROWS_AS(ep_exchange(EpKernel::normal, EpPhase::dispatch, {}, 12, 8), ConfigError);
  CHECK_THROWS_WITH(
      ep_exchange(EpKernel::normal, EpPhase::dispatch, {.experts = 256, .topk = 80, .topk_groups = 1}, 32, 8),
      "EP exchange: top-80 of the 64 experts a token may use");
}
