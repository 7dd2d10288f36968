// PAT (all-gather / reduce-scatter in log2(n) steps) and CollNet (all-reduce through SHARP switches):
// schedule shapes, closed forms on the flow fabric, plans and bad input.
#include <catch2/catch.hpp>

#include "collectives/algorithm_util.h"
#include "collectives/collnet.h"
#include "collectives/pat.h"
#include "collectives/plan.h"
#include "collectives/simulate.h"
#include "sim/core/errors.h"
#include "tests/one_gpu_hosts.h"
#include "topologies/routing.h"
#include "topologies/systems.h"

using namespace weft;

namespace {

// 4 DGX H100 on a 2-tier fat-tree of 16-port NDR switches with SHARP: each node's 8 NICs fill one
// leaf (8 ports down, 8 up: non-blocking), and the leaves meet at 2 spines.
ClusterSpec sharp_fat_tree(int nodes = 4) {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = nodes;
  spec.network.shape = NetworkShape::fat_tree;
  spec.network.radix = 16;
  spec.network.tiers = 2;
  spec.network.sharp = true;
  return spec;
}

// Payload bytes of a link from the flow fabric's statistics (wire minus the headers it added).
uint64_t payload(const Topology& t, const LinkStats& l) {
  return l.wire.count() - l.packets * t.link(l.link).header_bytes;
}

// Goodput of a node's outgoing links of one kind, summed (bit/s).
double out_goodput(const Topology& t, NodeIndex n, LinkKind kind) {
  double sum = 0;
  for (LinkId l = 0; l < t.link_count(); ++l) {
    if (t.link_source(l) == n && t.link(l).kind == kind) sum += static_cast<double>(t.link(l).goodput().bps());
  }
  return sum;
}

}  // namespace

TEST_CASE("pat: ceil(log2 n) steps, each rank sends (n-1)/n of the buffer", "[unit][pat]") {
  for (uint32_t n : {2u, 3u, 4u, 5u, 6u, 7u, 8u, 12u, 13u, 16u, 64u}) {
    std::vector<PatStep> steps = pat_steps(n);
    CHECK(steps.size() == detail::ceil_log2(n));
    uint32_t blocks = 0;
    for (const PatStep& step : steps) blocks += step.blocks;
    CHECK(blocks == n - 1);  // every other rank's block arrives exactly once
    // 3 x 64 KiB per rank over 2 channels: 96 KiB per channel, a 64 KiB chunk and a 32 KiB tail.
    const uint64_t size = uint64_t{n} * 3 * 65536;
    for (CollectiveOp op : {CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
      Schedule s = pat_schedule(op, n, Bytes(size), {.channels = 2});
      validate(s);
      for (uint64_t sent : bytes_sent_by_rank(s)) CHECK(sent == size / n * (n - 1));
    }
  }
  // Powers of two: the farthest step first with one block, then half the distance, twice the blocks.
  std::vector<PatStep> eight = pat_steps(8);
  REQUIRE(eight.size() == 3);
  CHECK((eight[0].distance == 4 && eight[0].blocks == 1));
  CHECK((eight[1].distance == 2 && eight[1].blocks == 2));
  CHECK((eight[2].distance == 1 && eight[2].blocks == 4));
  Schedule one_loop =
      pat_schedule(CollectiveOp::all_gather, 16, Bytes(16 << 20), {.channels = 1, .chunk = Bytes(1 << 20)});
  for (const Stream& stream : one_loop.streams) CHECK(step_count(stream) == 4);
  CHECK_THROWS_WITH(pat_schedule(CollectiveOp::all_reduce, 8, Bytes(1 << 20)),
                    Catch::Contains("all_gather and reduce_scatter"));
}

TEST_CASE("pat: NCCL's chunk halves with the size down to 64 KiB", "[unit][pat]") {
  // 512 KiB while chunk x channels x 32 (all-gather) or x 16 (reduce-scatter) fits in the size.
  CHECK(pat_chunk(CollectiveOp::all_gather, Bytes(1ULL << 30), 16).count() == 512 * 1024);
  CHECK(pat_chunk(CollectiveOp::all_gather, Bytes(64ULL << 20), 16).count() == 128 * 1024);
  CHECK(pat_chunk(CollectiveOp::reduce_scatter, Bytes(64ULL << 20), 16).count() == 256 * 1024);
  CHECK(pat_chunk(CollectiveOp::all_gather, Bytes(1024), 2).count() == 64 * 1024);
}

TEST_CASE("pat: on one switch of one-GPU hosts each step is its blocks over the NIC plus a path latency",
          "[validation][pat]") {
  // In every step each host sends to one host and receives from another (r -> r + d), so each flow is
  // alone on its NIC links and runs at the path's bottleneck B (the 100 GbE NIC's goodput); a step
  // starts when the previous one arrived, so with one loop and one channel
  //   T = sum_j (ceil(blocks_j x S/n x 8 / B) + L),
  // L the GPU-to-GPU path latency (PCIe, NIC, cable, switch, cable, NIC, PCIe). n = 8: 1, 2, 4 blocks
  // (7/8 S in all); n = 6: 1, 1, 3. Reduce-scatter runs the same steps backwards: the same time.
  for (uint32_t n : {8u, 6u}) {
    Topology t = build_cluster(testing::one_gpu_hosts(static_cast<int>(n), NetworkShape::single_switch));
    const uint64_t size = uint64_t{n} << 20;
    Router router(t, 1);
    const Path& path = router.route(t.gpus()[0], t.gpus()[1], 0);
    Time expected;
    for (const PatStep& step : pat_steps(n))
      expected += transmit_time(Bytes(step.blocks * (size / n)), path.bottleneck) + path.latency;
    for (CollectiveOp op : {CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
      Schedule s = pat_schedule(op, n, Bytes(size), {.channels = 1, .chunk = Bytes(size)});
      CHECK(simulate(s, t, {"flow"}).time == expected);
    }
  }
}

TEST_CASE("pat: NCCL_ALGO=PAT at one GPU per node is simulated as PAT, and refused elsewhere", "[unit][pat]") {
  ClusterSpec spec = system_spec("pcie-4090x8");
  spec.node.gpus = 1;
  spec.nodes = 4;
  Topology t = build_cluster(spec);
  PlanOptions pat;
  pat.overrides.algorithm = Algorithm::pat;
  CollectivePlan p = plan_collective(CollectiveOp::all_gather, Bytes(1 << 20), t, spec, pat);
  CHECK(p.simulated == Algorithm::pat);
  CHECK(p.note.empty());
  validate(p.schedule);
  CHECK(simulate(p.schedule, t, {"flow"}).time > Time());
  CHECK_THROWS_WITH(plan_collective(CollectiveOp::all_reduce, Bytes(1 << 20), t, spec, pat),
                    Catch::Contains("PAT does not run all_reduce"));
  ClusterSpec eight = system_spec("pcie-4090x8");
  eight.nodes = 2;
  Topology t8 = build_cluster(eight);
  CHECK_THROWS_WITH(plan_collective(CollectiveOp::all_gather, Bytes(1 << 20), t8, eight, pat),
                    Catch::Contains("1 GPU per node") && Catch::Contains("available"));
}

TEST_CASE("collnet: schedules move S/heads through the switches per head and conserve bytes", "[unit][collnet]") {
  // Direct, 2 nodes x 4 GPUs, every GPU a head: a GPU sends 3/4 S to the other heads of its node and,
  // as a head, 3/4 S back to them, plus its S/4 shard as a source of the network group: 7/4 S.
  const uint64_t size = 4ULL << 20;
  Schedule direct = collnet_direct_all_reduce(2, 4, Bytes(size), {.channels = 2});
  validate(direct);
  for (uint64_t sent : bytes_sent_by_rank(direct)) CHECK(sent == size * 7 / 4);
  // Chain, 4 channels over 4 heads: a channel's S/4 goes up the chain (3 hops), across nodes from the
  // head, down the chain. Each GPU is the head once (S/4 into the network, S/4 down the chain), the
  // tail once (S/4 up the chain) and in the middle twice (S/4 up, S/4 down): 7 x S/4.
  Schedule chain = collnet_chain_all_reduce(2, 4, Bytes(size), {.channels = 4});
  validate(chain);
  for (uint64_t sent : bytes_sent_by_rank(chain)) CHECK(sent == size * 7 / 4);
  // One GPU per node: only the network step.
  Schedule single = collnet_direct_all_reduce(4, 1, Bytes(size), {.channels = 1});
  validate(single);
  for (uint64_t sent : bytes_sent_by_rank(single)) CHECK(sent == size);
  CHECK_THROWS_WITH(collnet_direct_all_reduce(1, 8, Bytes(size)), Catch::Contains("at least 2 nodes"));
  CHECK_THROWS_WITH(collnet_chain_all_reduce(2, 4, Bytes(size), {.heads = 8}),
                    Catch::Contains("8 heads but only 4 GPUs"));
}

TEST_CASE("collnet: on a SHARP fat-tree every byte crosses each NIC once each way", "[validation][collnet]") {
  // CollNet Direct all-reduce of S over 4 DGX H100 (8 heads per node, 16 channels): head k's shard is
  // S/8; the network step takes it up from each of the 4 heads k to the spines, which reduce (the
  // leaves under them too: a cable of the union carries it once) and multicast it back: S/8 on every
  // NIC cable each way, whatever the node count (a ring would move 2(n-1)/n S over the NICs).
  // Time: a GPU sends 7/8 S to the other heads of its node and 7/8 S of results back over its 18
  // NVLink4 links (goodput 18 x 25 GB/s x 256/272 = 423.5 GB/s): 7/4 S / 423.5 GB/s = 4.44 ms for 1
  // GiB, above the NIC's S/8 / 49.7 GB/s = 2.70 ms (NDR goodput: 400 Gb/s x 4096/4122), so NVLink
  // bounds it; the scatter, network and gather of successive chunks overlap and keep the NVLink busy,
  // so the schedule ends within 5 % of that bound.
  ClusterSpec spec = sharp_fat_tree();
  Topology t = build_cluster(spec);
  const uint64_t size = 1ULL << 30;
  Schedule s = collnet_direct_all_reduce(4, 8, Bytes(size), {});
  validate(s);
  SimulationOptions options{{"flow"}};
  options.link_stats = true;
  SimulationResult r = simulate(s, t, options);
  int up = 0, down = 0, spine = 0;
  for (const LinkStats& l : r.links) {
    const NodeProps& from = t.node(t.link_source(l.link));
    const NodeProps& to = t.node(t.link_target(l.link));
    if (from.kind == NodeKind::nic && to.kind == NodeKind::network_switch) {
      ++up;
      CHECK(payload(t, l) == size / 8);
    }
    if (from.kind == NodeKind::network_switch && to.kind == NodeKind::nic) {
      ++down;
      CHECK(payload(t, l) == size / 8);
    }
    if (from.kind == NodeKind::network_switch && to.kind == NodeKind::network_switch && to.tier == 2) ++spine;
  }
  CHECK(up == 32);
  CHECK(down == 32);
  CHECK(spine > 0);  // the nodes sit on different leaves: the tree is rooted at the spines
  const double nvlink = out_goodput(t, t.gpus()[0], LinkKind::nvlink) / 8;  // bytes/s
  const double bound = 1.75 * size / nvlink;
  CHECK(r.time.seconds() >= bound);
  CHECK(r.time.seconds() < 1.05 * bound);
}

TEST_CASE("collnet: a large all-reduce through SHARP beats the ring", "[.slow][validation][collnet]") {
  // A ring channel carries 2(n-1)/n of its share over every node boundary, through NICs of 49.7 GB/s;
  // CollNet puts S/8 on each NIC each way and is bound by NVLink instead (above): 3x faster at 256 MiB
  // on the flow fabric (4.3 ms against 1.34 ms), the chain between the two.
  ClusterSpec spec = sharp_fat_tree();
  Topology t = build_cluster(spec);
  const Bytes size(256ULL << 20);
  auto time_of = [&](Algorithm a) {
    PlanOptions o;
    o.overrides.algorithm = a;
    CollectivePlan p = plan_collective(CollectiveOp::all_reduce, size, t, spec, o);
    CHECK(p.simulated == a);
    CHECK(p.input.collnet);
    validate(p.schedule);
    return simulate(p.schedule, t, {"flow"}).time;
  };
  const Time ring = time_of(Algorithm::ring);
  CHECK(time_of(Algorithm::collnet_direct) * 2 < ring);
  CHECK(time_of(Algorithm::collnet_chain) < ring);
}

TEST_CASE("collnet: without SHARP switches the algorithm is refused, naming what is missing", "[unit][collnet]") {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  PlanOptions o;
  o.overrides.algorithm = Algorithm::collnet_direct;
  CHECK_THROWS_WITH(plan_collective(CollectiveOp::all_reduce, Bytes(1 << 20), t, spec, o),
                    Catch::Contains("SHARP switches") && Catch::Contains("available") && Catch::Contains("Ring"));
  // The schedule itself on a fabric without reducing network switches.
  Schedule s = collnet_direct_all_reduce(2, 8, Bytes(1 << 20), {.channels = 1});
  CHECK_THROWS_WITH(simulate(s, t, {"flow"}), Catch::Contains("SHARP"));
}

TEST_CASE("collnet: network.sharp is for InfiniBand switches from HDR on", "[unit][collnet]") {
  ClusterSpec roce = testing::one_gpu_hosts(4, NetworkShape::single_switch);
  roce.network.sharp = true;
  CHECK_THROWS_WITH(validate(roce), Catch::Contains("only in InfiniBand") && Catch::Contains("Quantum"));
  ClusterSpec edr = system_spec("dgx1-v100");  // 100G EDR: Switch-IB 2, no streaming aggregation
  edr.nodes = 2;
  set_field(edr, "network.sharp", "true");
  CHECK_THROWS_WITH(validate(edr), Catch::Contains("HDR"));
  CHECK_THROWS_WITH(set_field(edr, "network.sharp", "maybe"), Catch::Contains("true or false"));
  Topology t = build_cluster(sharp_fat_tree(2));
  int reducing = 0, plain = 0;
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    if (t.node(n).kind == NodeKind::network_switch) ++(t.node(n).reduces ? reducing : plain);
  }
  CHECK(reducing == 3);  // 2 leaves and a spine, all with SHARP
  CHECK(plain == 0);
}

TEST_CASE("collnet: the packet fabric runs the SHARP group steps too", "[collnet][packet]") {
  // 2 nodes under one spine; 1 MiB. The spine forwards packet k once it holds packet k from both heads;
  // store-and-forward of 4 KiB packets over NVLink, PCIe, NIC and two switch hops each way costs
  // some 16 % over the flow model here (18.2 against 15.6 us).
  ClusterSpec spec = sharp_fat_tree(2);
  Topology t = build_cluster(spec);
  Schedule s = collnet_direct_all_reduce(2, 8, Bytes(1 << 20), {.channels = 2});
  double flow = simulate(s, t, {"flow"}).time.seconds();
  SimulationOptions packet{{"packet"}};
  packet.fabric_options.check_invariants = true;
  SimulationResult r = simulate(s, t, packet);
  CHECK(r.fabric.drops == 0);
  CHECK(r.time.seconds() == Approx(flow).epsilon(0.25));
}
