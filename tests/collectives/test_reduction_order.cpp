// The reduction order of an all-reduce (collectives/reduction_order.h) and its numbers
// (reduction_numerics.h): a ring's order is the ring's, a tree's is its tree, NVLS sums in the switch
// in a fixed order with one rounding, equal orders give bit-identical sums and different ones differ
// within the summation bound.
#include <catch2/catch.hpp>
#include <numeric>
#include <set>

#include "collectives/reduction_numerics.h"
#include "collectives/reduction_order.h"
#include "sim/core/errors.h"
#include "topologies/clusters.h"
#include "topologies/systems.h"

using namespace weft;

namespace {

std::vector<uint32_t> all_gpus(const Topology& t) {
  std::vector<uint32_t> gpus(t.gpus().size());
  std::iota(gpus.begin(), gpus.end(), 0u);
  return gpus;
}

CollectivePlan forced(Algorithm a, Protocol p, uint32_t channels, uint64_t bytes, const Topology& t,
                      const ClusterSpec& spec) {
  PlanOptions o;
  o.overrides.algorithm = a;
  o.overrides.protocol = p;
  o.overrides.min_channels = channels;
  o.overrides.max_channels = channels;
  return plan_collective(CollectiveOp::all_reduce, Bytes(bytes), t, spec, o);
}

// The leaves of a tree, left to right.
std::vector<uint32_t> leaves(const SumTree& t) {
  std::vector<uint32_t> out;
  for (const SumTree::Node& n : t.nodes) {
    if (n.rank >= 0) out.push_back(static_cast<uint32_t>(n.rank));
  }
  return out;
}

}  // namespace

TEST_CASE("reduction order: a ring sums chunk k from ring position k+1 around to k", "[reduction]") {
  const ClusterSpec spec = system_spec("dgx-h100");
  const Topology t = build_cluster(spec);
  const auto gpus = all_gpus(t);
  // 8 ranks, one channel, Simple: 2 MiB chunks; 1 MiB of fp32 is one loop of 8 chunks of 32,768 elements.
  const CollectivePlan plan = forced(Algorithm::ring, Protocol::simple, 1, 1 << 20, t, spec);
  const ReductionOrder order(plan, t, gpus, (1 << 20) / 4, 4);
  const std::vector<uint32_t> ring = channel_ranks(plan, t, gpus, 0);
  for (uint32_t k = 0; k < 8; ++k) {
    const uint64_t e = k * uint64_t{32768} + 5;
    std::vector<uint32_t> expected;
    for (uint32_t j = 1; j <= 8; ++j) expected.push_back(ring[(k + j) % 8]);
    CHECK(leaves(order.tree_of(e)) == expected);
    CHECK(order.run_end(e) == (k + 1) * uint64_t{32768});
    // Left-leaning: every addition's left operand is the partial before it.
    const SumTree& tree = order.tree_of(e);
    for (const SumTree::Node& n : tree.nodes) {
      if (n.rank < 0) CHECK(n.site == SumSite::gpu);
    }
  }
  CHECK(order.tree_of(0).text() == fmt::format("((((((({} + {}) + {}) + {}) + {}) + {}) + {}) + {})", ring[1], ring[2],
                                               ring[3], ring[4], ring[5], ring[6], ring[7], ring[0]));
}

TEST_CASE("reduction order: a tree adds each rank's children to its own value, every rank once", "[reduction]") {
  const ClusterSpec spec = resolve_system("dgx-h100", 4, {}, "--set");
  const Topology t = build_cluster(spec);
  const auto gpus = all_gpus(t);
  const CollectivePlan plan = forced(Algorithm::tree, Protocol::simple, 2, 1 << 20, t, spec);
  const ReductionOrder order(plan, t, gpus, (1 << 20) / 4, 4);
  REQUIRE(order.trees().size() == 2);  // one per channel, each channel on its own tree
  for (const SumTree& tree : order.trees()) {
    std::vector<uint32_t> l = leaves(tree);
    CHECK(l.size() == 32);
    CHECK(std::set<uint32_t>(l.begin(), l.end()).size() == 32);
  }
  // Channel 0's half of the buffer on tree 0, channel 1's on tree 1: the trees differ.
  CHECK(order.tree_of(0).text() != order.tree_of(order.count() - 1).text());
  // The root adds its own value first.
  const TreeLinks root_tree = tree_links(32, tree_options(plan))[0];
  CHECK(leaves(order.tree_of(0)).front() == channel_ranks(plan, t, gpus, 0)[root_tree.root]);
}

TEST_CASE("reduction order: NVLS sums in the switch, bf16 accumulated in fp32 and rounded once", "[reduction]") {
  const ClusterSpec spec = system_spec("dgx-h100");
  const Topology t = build_cluster(spec);
  const auto gpus = all_gpus(t);
  const CollectivePlan plan = plan_collective(CollectiveOp::all_reduce, Bytes(1 << 30), t, spec);
  REQUIRE(plan.simulated == Algorithm::nvls);
  const ReductionOrder order(plan, t, gpus, 4096, 2);
  CHECK(order.tree_of(0).text() == "nvswitch(0 + 1 + 2 + 3 + 4 + 5 + 6 + 7)");
  const RankValues x = reduction_inputs(8, 4096, true, 3, SumFormat::bf16);
  const std::vector<float> sums = sum_in_order(order, x, SumFormat::bf16);
  for (uint64_t e = 0; e < 4096; ++e) {
    float wide = x[0][e];
    for (uint32_t r = 1; r < 8; ++r) wide += x[r][e];
    REQUIRE(sums[e] == round_bf16(wide));
  }
  CHECK_THROWS_AS(ReductionOrder(plan_collective(CollectiveOp::all_gather, Bytes(1 << 20), t, spec), t, gpus, 16, 4),
                  ConfigError);
}

TEST_CASE("reduction numerics: equal orders are bit-identical, different ones differ within the bound", "[reduction]") {
  const ClusterSpec spec = system_spec("dgx-h100");
  const Topology t = build_cluster(spec);
  const auto gpus = all_gpus(t);
  const uint64_t n = 8192;
  const RankValues x = reduction_inputs(8, n, false, 1, SumFormat::fp32);
  CHECK(x == reduction_inputs(8, n, false, 1, SumFormat::fp32));  // deterministic by seed
  const std::vector<double> scale = magnitudes(x);
  const std::vector<float> exact = exact_sum(x, SumFormat::fp32);
  // One LL channel: a buffer smaller than a loop is cut into 8 chunks of an eighth of it each, so
  // 32 KiB (chunks of 1,024 elements) and 64 KiB (2,048) sum element 1,500 from different ring positions.
  const CollectivePlan a = forced(Algorithm::ring, Protocol::ll, 1, 32768, t, spec);
  const CollectivePlan b = forced(Algorithm::ring, Protocol::ll, 1, 65536, t, spec);
  const ReductionOrder order_a(a, t, gpus, 32768 / 4, 4), order_a_again(a, t, gpus, 32768 / 4, 4);
  const ReductionOrder order_b(b, t, gpus, 65536 / 4, 4);
  const std::vector<float> sum_a = sum_in_order(order_a, x, SumFormat::fp32);
  CHECK(sum_a == sum_in_order(order_a_again, x, SumFormat::fp32));
  CHECK(order_a.tree_of(1500).text() != order_b.tree_of(1500).text());
  const std::vector<float> sum_b = sum_in_order(order_b, x, SumFormat::fp32);
  const SumDifference ab = difference(sum_a, sum_b, scale, SumFormat::fp32);
  CHECK(ab.differing > 0);
  // Each recursive summation of 8 terms is within 7 u sum|x| of the exact sum (u = half an ulp), so two
  // orders differ by at most 7 ulps of sum|x|; the rounded exact sum is within half an ulp of it.
  CHECK(ab.max_ulps <= 7);
  CHECK(difference(sum_a, exact, scale, SumFormat::fp32).max_ulps <= 7.5);
  // bf16: the same bound in bf16's ulps.
  const RankValues y = reduction_inputs(8, n, false, 1, SumFormat::bf16);
  const SumDifference bf = difference(sum_in_order(order_b, y, SumFormat::bf16), exact_sum(y, SumFormat::bf16),
                                      magnitudes(y), SumFormat::bf16);
  CHECK(bf.differing > 0);
  CHECK(bf.max_ulps <= 7.5);
}

TEST_CASE("reduction numerics: bf16 rounding and the exact sum's closed forms", "[reduction]") {
  CHECK(round_bf16(1.0f + 0x1.0p-8f) == 1.0f);                          // a tie goes to the even neighbour
  CHECK(round_bf16(1.0f + 0x1.8p-8f) == 1.0f + 0x1.0p-7f);              // above the tie: up
  CHECK(round_bf16(1.0f + 0x1.0p-7f + 0x1.0p-8f) == 1.0f + 0x1.0p-6f);  // a tie to the even one above
  const RankValues cancel{{1e8f}, {1.0f}, {-1e8f}};
  CHECK(exact_sum(cancel, SumFormat::fp32)[0] == 1.0f);  // a naive float sum gives 0
  CHECK(ulp(1.0, SumFormat::bf16) == 0x1.0p-7);
  CHECK(ulp(3.0, SumFormat::fp32) == 0x1.0p-22);
}

TEST_CASE("reduction order: CollNet (SHARP) is not described, and says so", "[reduction]") {
  const std::vector<std::string> sharp{"network.sharp=true"};
  const ClusterSpec spec = resolve_system("dgx-h100", 4, sharp, "--set");
  const Topology t = build_cluster(spec);
  const auto gpus = all_gpus(t);
  const CollectivePlan plan = forced(Algorithm::collnet_direct, Protocol::simple, 16, 128 << 20, t, spec);
  REQUIRE(plan.simulated == Algorithm::collnet_direct);
  CHECK_FALSE(ReductionOrder::describes(plan));
  CHECK_THROWS_WITH(ReductionOrder(plan, t, gpus, 1024, 4), Catch::Contains("is not described yet"));
  CHECK(ReductionOrder::describes(plan_collective(CollectiveOp::all_reduce, Bytes(1024), t, spec)));
}
