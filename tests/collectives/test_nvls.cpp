// NVLS: in-switch reduction and multicast through NVSwitch generation 3, on the flow fabric.
#include <algorithm>
#include <catch2/catch.hpp>

#include "collectives/nvls.h"
#include "collectives/simulate.h"
#include "sim/core/errors.h"
#include "topologies/systems.h"

using namespace weft;

TEST_CASE("nvls: each rank's bytes go up once and come down once", "[nvls]") {
  // All-reduce of S over n ranks: a rank is a source of every reduce group (its share of all n
  // chunks: S in all) and the source of its own chunk's multicast (S/n): S(1 + 1/n) out.
  const uint32_t n = 8;
  const uint64_t size = 64ULL << 20;
  Schedule s = nvls_schedule(CollectiveOp::all_reduce, n, Bytes(size), {16, Bytes(uint64_t{128} * 1024)});
  validate(s);
  for (uint64_t sent : bytes_sent_by_rank(s)) CHECK(sent == size + size / n);
  Schedule gather = nvls_schedule(CollectiveOp::all_gather, n, Bytes(size), {});
  for (uint64_t sent : bytes_sent_by_rank(gather)) CHECK(sent == size / n);
  CHECK_THROWS_WITH(nvls_schedule(CollectiveOp::broadcast, n, Bytes(size)), Catch::Contains("ring"));
}

TEST_CASE("nvls: a DGX H100 all-reduce is bound by S(1 + 1/n) over each GPU's NVLink", "[nvls][validation]") {
  // Each GPU moves 9/8 S each way over its 18 NVLink4 links (goodput 18 x 25 GB/s x 256/272 =
  // 423.5 GB/s): at best 1 GiB x 9/8 / 423.5 GB/s = 2.85 ms; max-min sharing between the reduce
  // and multicast stripes keeps it within 30 % of that.
  Topology t = build_cluster(system_spec("dgx-h100"));
  const uint64_t size = 1ULL << 30;
  Schedule s = nvls_schedule(CollectiveOp::all_reduce, 8, Bytes(size));
  double time = simulate(s, t, {"flow"}).time.seconds();
  double bound = size * 9.0 / 8 * 8 / (18 * 25e9 * 8 * 256 / 272);
  CHECK(time >= bound);
  CHECK(time < 1.3 * bound);
}

TEST_CASE("nvls: the scatter and gather warps' copies add a pipeline fill and drain", "[nvls]") {
  // A channel's copy of one loop's input, 8 heads x 32 KiB at 370.8 / 16 = 23.175 GB/s, takes
  // 11.31 us, less than the loop's in-switch steps (16 MiB on one DGX H100: 4 loops in ~52 us), so
  // the copies keep pace: an all-reduce pays one scatter before its first reduction and one gather
  // after its last multicast; reduce-scatter only the scatter, all-gather only the gather.
  Topology t = build_cluster(system_spec("dgx-h100"));
  const Bandwidth rate = Bandwidth::bps(static_cast<uint64_t>(370.8 / 16 * 8e9));
  const Bytes size(16ULL << 20), chunk(32768);
  const double copy = transmit_time(Bytes(8 * chunk.count()), rate).microseconds();
  CHECK(copy == Approx(11.31).epsilon(1e-3));
  for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather}) {
    Schedule plain = nvls_schedule(op, 8, size, {16, chunk});
    Schedule copies = nvls_schedule(op, 8, size, {16, chunk, rate});
    validate(copies);
    const size_t phases = op == CollectiveOp::all_reduce ? 4 : 2;
    CHECK(copies.streams.size() == 16 * 8 * phases);
    CHECK(bytes_sent_by_rank(copies) == bytes_sent_by_rank(plain));
    const double fill = (op == CollectiveOp::all_reduce ? 2 : 1) * copy;
    CHECK(simulate(copies, t, {"flow"}).time.microseconds() ==
          Approx(simulate(plain, t, {"flow"}).time.microseconds() + fill).margin(0.01));
  }
}

TEST_CASE("nvls: needs reducing switches; analytic runs it too, never slower than flow", "[nvls]") {
  Schedule s = nvls_schedule(CollectiveOp::all_reduce, 8, Bytes(1 << 20));
  Topology a100 = build_cluster(system_spec("dgx-a100"));  // NVSwitch gen 2: no in-switch reduction
  CHECK_THROWS_WITH(simulate(s, a100, {"flow"}), Catch::Contains("NVSwitch generation 3"));
  // Analytic stripes a group over its reducing switches as flow does, without sharing: no slower.
  Topology h100 = build_cluster(system_spec("dgx-h100"));
  CHECK(simulate(s, h100, {"analytic"}).time <= simulate(s, h100, {"flow"}).time);
}

TEST_CASE("nvls: the packet fabric reduces in the switch packet by packet, near the flow model", "[nvls][packet]") {
  // Each switch forwards packet k to the destinations once packet k arrived from every source; on
  // 64 MiB the store-and-forward of 4 KiB packets costs a few percent over the flow model.
  Topology t = build_cluster(system_spec("dgx-h100"));
  Schedule s = nvls_schedule(CollectiveOp::all_reduce, 8, Bytes(64ULL << 20));
  double flow = simulate(s, t, {"flow"}).time.seconds();
  SimulationOptions packet{{"packet"}};
  packet.fabric_options.check_invariants = true;  // buffers empty, credits back, nothing in flight
  SimulationResult r = simulate(s, t, packet);
  CHECK(r.time.seconds() == Approx(flow).epsilon(0.15));
  CHECK(r.fabric.drops == 0);
}

TEST_CASE("nvls tree: reduce in the node, a double binary tree across nodes, multicast back", "[nvls]") {
  // 2 nodes x 8 GPUs, 64 MiB, 16 channels: a rank's shard per channel is 64 MiB / 128 = 512 KiB in
  // 4 chunks of 128 KiB. It sends: to the 8 reduce groups of its node, 8 x its chunk per loop = S in
  // all (64 MiB); over the nodes its shard once per channel, up in one tree and down in the other
  // (ncclGetDtree on 2 nodes: 0 above 1, then 1 above 0), 16 x 512 KiB = S/8; its multicast, S/8.
  Schedule s = nvls_tree_all_reduce(2, 8, Bytes(64ULL << 20), {16, Bytes(uint64_t{128} * 1024)});
  validate(s);
  for (uint64_t sent : bytes_sent_by_rank(s)) CHECK(sent == (64ULL << 20) + (8ULL << 20) + (8ULL << 20));
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  CHECK(simulate(s, t, {"flow"}).time > Time());
  CHECK_THROWS_WITH(nvls_tree_all_reduce(1, 8, Bytes(1 << 20)), Catch::Contains("at least 2 nodes"));
}

TEST_CASE("nvls tree: each phase has warps of its own, so chunks overlap and the fabrics agree", "[nvls][packet]") {
  // NCCL's NVLS_TREE kernel splits its warps by phase (all_reduce.h), so the switch reduces chunk k + 1
  // while chunk k crosses the network. 2 nodes x 8 GPUs, 64 MiB: each NIC carries S / 8 = 8 MiB (at
  // NDR's goodput, 400 Gb/s x 4096 / 4174 B on the wire: 171 us) and each GPU's NVLink S out and S
  // in (423.5 GB/s: 158 us). Run one after the other, as when a chunk's phases took turns, they
  // would need the sum; overlapped, the step stays below it, on flow and on packet alike (the two
  // were 534 and 434 us apart, through the tuner, when the phases took turns).
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  const uint64_t size = 64ULL << 20;
  Schedule s = nvls_tree_all_reduce(2, 8, Bytes(size), {16, Bytes(uint64_t{128} * 1024)});
  const double nic = size / 8.0 / (400e9 / 8 * 4096 / 4174);
  const double nvlink = size / (18 * 25e9 * 256 / 272);
  double flow = simulate(s, t, {"flow"}).time.seconds();
  double packet = simulate(s, t, {"packet"}).time.seconds();
  CAPTURE(flow, packet, nic, nvlink);
  CHECK(flow > std::max(nic, nvlink));
  CHECK(flow < nic + nvlink);
  CHECK(packet == Approx(flow).epsilon(0.05));
}

TEST_CASE("nvls tree: the nodes' tree is NCCL's, channel c on tree c % 2", "[nvls]") {
  // 4 nodes: ncclGetDtree gives 0 -> 2 -> {1, 3} and its mirror 3 -> 1 -> {2, 0}. Over 2 channels
  // (one per tree) node 2's head sends its shard up in both trees and down twice in tree 0: 4 shards;
  // node 0's: down once (tree 0, the root) and up once (tree 1): 2. A ring over the nodes would send
  // 2 (N - 1) / N = 1.5 shards per channel, 3 over the two, from every node alike.
  const size_t nodes = 4, g = 2;
  const uint32_t channels = 2;
  const uint64_t size = uint64_t{g} * channels * (128 << 10);  // a shard of one 128 KiB chunk per rank and channel
  Schedule s = nvls_tree_all_reduce(static_cast<uint32_t>(nodes), static_cast<uint32_t>(g), Bytes(size),
                                    {channels, Bytes(uint64_t{128} << 10)});
  validate(s);
  std::vector<uint64_t> sent(nodes * g, 0);
  for (const Stream& stream : s.streams) {
    for (const StepRun& run : stream.runs) {
      if (run.kind == StepKind::send) sent[stream.rank] += run.count * run.bytes.count();
    }
  }
  const uint64_t shard = 128 << 10;
  CHECK(sent[0 * g] == 2 * shard);
  CHECK(sent[1 * g] == 4 * shard);  // node 1: leaf in tree 0 (up), inner in tree 1 (up, down to 2 and 0)
  CHECK(sent[2 * g] == 4 * shard);
  CHECK(sent[3 * g] == 2 * shard);
}
