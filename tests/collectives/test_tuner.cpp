// NCCL's cost model and tuner (collectives/nccl_model.h, collectives/tuner.h). Expected values are
// derived by hand from shared/reference/nccl_model.md (§n) in the comments beside them.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "collectives/communicator.h"
#include "collectives/tuner.h"
#include "sim/core/errors.h"
#include "topologies/systems.h"

using namespace weft;

namespace {

constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

// A DGX H100 cluster as NCCL sees it: 18 NVLink4 links x SM90_NVLINK_BW 20.6 = 370.8 GB/s per GPU,
// one 400G CX-7 per GPU = 50 GB/s (§5), NVSwitch gen 3 (NVLS), Intel hosts, 16 channels.
TunerInput dgx_h100(int nodes, CollectiveOp op, uint64_t bytes) {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = nodes;
  return describe_for_tuner(spec, op, Bytes(bytes));
}

Choice find(const std::vector<Choice>& all, Algorithm a, Protocol p) {
  for (const Choice& c : all) {
    if (c.algorithm == a && c.protocol == p) return c;
  }
  FAIL("pair missing");
  return {};
}

std::string label(const Choice& c) { return fmt::format("{}/{}", to_string(c.algorithm), to_string(c.protocol)); }

}  // namespace

TEST_CASE("tuner: names parse in NCCL's spellings, case-insensitively", "[tuner]") {
  CHECK(parse_algorithm("Ring") == Algorithm::ring);
  CHECK(parse_algorithm("NVLSTree") == Algorithm::nvls_tree);
  CHECK(parse_algorithm("nvls_tree") == Algorithm::nvls_tree);
  CHECK(parse_algorithm("CollnetDirect") == Algorithm::collnet_direct);
  CHECK(parse_algorithm("COLLNETCHAIN") == Algorithm::collnet_chain);
  CHECK(parse_algorithm("pat") == Algorithm::pat);
  CHECK(parse_protocol("ll") == Protocol::ll);
  CHECK(parse_protocol("LL128") == Protocol::ll128);
  CHECK(parse_protocol("SIMPLE") == Protocol::simple);
  for (Algorithm a : all_algorithms()) CHECK(parse_algorithm(to_string(a)) == a);
  for (Protocol p : all_protocols()) CHECK(parse_protocol(to_string(p)) == p);
  CHECK_THROWS_WITH(parse_algorithm("rign", "--algo"),
                    Catch::Contains("Ring, Tree, NVLS") && Catch::Contains("--algo"));
  CHECK_THROWS_WITH(parse_protocol("ll64"), Catch::Contains("LL, LL128, Simple"));
}

TEST_CASE("tuner: versions by name, newest by default, unknown ones listed", "[tuner]") {
  CHECK(nccl_version("").name == "2.30.7");
  CHECK(nccl_version("head").name == "2.30.7");
  CHECK(nccl_version("2.21").name == "2.21.5");
  CHECK(nccl_version("v2.27.7").name == "2.27.7");
  CHECK(nccl_version("2.18.3").name == "2.18.3");
  // Releases whose src/graph/tuning.cc is the same file as a modelled one's take its constants; a
  // release whose tuning.cc differs (2.20.5 from 2.21.5: NVLS hops, Hopper llMaxBw) is not guessed.
  CHECK(nccl_version("2.18.5").name == "2.18.3");
  CHECK(nccl_version("v2.27.6").name == "2.27.7");
  CHECK_THROWS_AS(nccl_version("2.20.5"), ConfigError);
  CHECK_THROWS_WITH(nccl_version("2.99.1"), Catch::Contains("2.30.7") && Catch::Contains("2.21.5"));
  TunerInput in = dgx_h100(1, CollectiveOp::all_reduce, 8);
  in.version = "1.0";
  CHECK_THROWS_AS(tune(in), ConfigError);
}

TEST_CASE("tuner: describe_for_tuner reads a DGX H100 cluster", "[tuner]") {
  TunerInput in = dgx_h100(2, CollectiveOp::all_reduce, 8);
  CHECK(in.nodes == 2);
  CHECK(in.gpus_per_node == 8);
  CHECK(in.ranks() == 16);
  CHECK(in.arch == GpuArch::hopper);
  CHECK(in.intra == IntraLink::nvlink);
  CHECK(in.bw_intra_GBps == Approx(18 * 20.6));  // §5 SM90_NVLINK_BW x 18 links
  CHECK(in.bw_inter_GBps == Approx(50.0));       // 400 Gb/s / 8 (§5 NIC speed_mbps / 8000), one NIC per GPU
  CHECK(in.nics_per_node == 8);
  CHECK(in.nvls);
  CHECK_FALSE(in.collnet);
  ClusterSpec a100 = system_spec("dgx-a100");
  CHECK_FALSE(describe_for_tuner(a100, CollectiveOp::all_reduce, Bytes(8)).nvls);  // NVSwitch gen 2
}

TEST_CASE("tuner: one DGX H100, all-reduce: LL for 8 B, NVLS for 1 GiB", "[tuner]") {
  // 8 B: latency only. Ring/LL = 6.6 + 14 x 0.6 = 15.0 us beats Tree/LL 15.2 and NVLS 25 (§10).
  Choice small = tune(dgx_h100(1, CollectiveOp::all_reduce, 8));
  CHECK(small.algorithm == Algorithm::ring);
  CHECK(small.protocol == Protocol::ll);
  CHECK(small.predicted_us == Approx(15.0).epsilon(1e-3));
  CHECK(small.channels == 1);  // 8 B < nc x 512 threads x 64 B (Ring LL threshold 8 x 8 ranks, §8)

  // 1 GiB: NVLS per channel = min(23.175 x 0.85 x 15/16 x 2, bwInter 46.35) = 36.94 GB/s, busBw
  // 16 x 36.94 = 590.9, algbw = 590.9 x 8/14 = 337.7 GB/s (§3, §4); 2^30 B / 337.7e3 B/us + 25 us
  // = 3204.6 us. Ring/Simple: busBw 370.8, algbw 211.9, 5067.6 + 56 = 5123.6 us.
  Choice big = tune(dgx_h100(1, CollectiveOp::all_reduce, kGiB));
  CHECK(big.algorithm == Algorithm::nvls);
  CHECK(big.protocol == Protocol::simple);
  CHECK(big.channels == 16);
  CHECK(big.bandwidth_GBps == Approx(337.69).epsilon(1e-3));
  CHECK(big.predicted_us == Approx(3204.6).epsilon(1e-3));
  Choice ring = find(candidates(dgx_h100(1, CollectiveOp::all_reduce, kGiB)), Algorithm::ring, Protocol::simple);
  CHECK(ring.predicted_us == Approx(5123.6).epsilon(1e-3));
  CHECK_THAT(big.why, Catch::Contains("Ring/Simple"));
}

TEST_CASE("tuner: small-message latencies match the worked examples of nccl_model.md §10", "[tuner]") {
  // §10, 1 node x 8 H100, HEAD constants: Ring/LL 15.0, Ring/LL128 40.6, Ring/Simple 56.0,
  // Tree/LL 15.2, NVLS/Simple 25 us.
  auto one = candidates(dgx_h100(1, CollectiveOp::all_reduce, 8));
  CHECK(find(one, Algorithm::ring, Protocol::ll).latency_us == Approx(15.0));
  CHECK(find(one, Algorithm::ring, Protocol::ll128).latency_us == Approx(40.6));
  CHECK(find(one, Algorithm::ring, Protocol::simple).latency_us == Approx(56.0));
  CHECK(find(one, Algorithm::tree, Protocol::ll).latency_us == Approx(15.2));
  CHECK(find(one, Algorithm::nvls, Protocol::simple).latency_us == Approx(25.0));
  // §10, 2 nodes x 8, Intel (netOverhead 1.0): Ring/LL = 6.6 + 28 x max(0.6, 1.0) + 2 x 2.7 = 40.0;
  // Tree/LL = 6.8 + 2 x (7 x 0.6 + 1 x 5.0) = 25.2 us.
  auto two = candidates(dgx_h100(2, CollectiveOp::all_reduce, 8));
  CHECK(find(two, Algorithm::ring, Protocol::ll).latency_us == Approx(40.0));
  CHECK(find(two, Algorithm::tree, Protocol::ll).latency_us == Approx(25.2));
  // Ring/Simple: 8.4 + 28 x max(3.4, 3 x 1.0) + 2 x 14 = 131.6 us; x1.4 "plateau" once the message
  // has 64 B per channel and rank (16 x 16 x 64 = 16 KiB, §1).
  CHECK(find(two, Algorithm::ring, Protocol::simple).latency_us == Approx(131.6));
  auto two_16k = candidates(dgx_h100(2, CollectiveOp::all_reduce, 16 * kKiB));
  CHECK(find(two_16k, Algorithm::ring, Protocol::simple).latency_us == Approx(131.6 * 1.4));
}

TEST_CASE("tuner: two DGX H100, all-reduce: Tree for small messages, Ring (or NVLSTree) for large", "[tuner]") {
  TunerInput in = dgx_h100(2, CollectiveOp::all_reduce, 8);
  in.nvls = false;  // as with NCCL_NVLS_ENABLE=0: the Tree / Ring contest alone
  Choice small = tune(in);
  CHECK(small.algorithm == Algorithm::tree);
  CHECK(small.protocol == Protocol::ll);
  CHECK(small.predicted_us == Approx(25.2).epsilon(1e-3));  // §10
  // 1 GiB: Ring/Simple busBw = 16 x min(23.175, 25) = 370.8, algbw x 16/30 = 197.8 GB/s, latency
  // 131.6 x 1.4 = 184.2: 5428.4 + 184.2 = 5613.8 us. Tree/Simple: min(370.8 x 0.92, 16 x 41.4) x 0.5
  // = 170.6 GB/s (no correction past the table's last entry), 6295 + 92.4 us.
  in.size = Bytes(kGiB);
  Choice big = tune(in);
  CHECK(big.algorithm == Algorithm::ring);
  CHECK(big.protocol == Protocol::simple);
  CHECK(big.predicted_us == Approx(5613.8).epsilon(1e-3));
  CHECK(find(candidates(in), Algorithm::tree, Protocol::simple).predicted_us == Approx(6387.5).epsilon(1e-3));

  // With NVLS (NVSwitch gen 3) NVLSTree takes large messages: per channel min(36.94, 2 x 25,
  // perChMaxNVLSTreeBw 57.7) = 36.94, busBw 590.9, algbw x 16/30 = 315.2 GB/s; latency 25 + 2 x 20.9.
  Choice nvls = tune(dgx_h100(2, CollectiveOp::all_reduce, kGiB));
  CHECK(nvls.algorithm == Algorithm::nvls_tree);
  CHECK(nvls.latency_us == Approx(66.8));
  CHECK(nvls.bandwidth_GBps == Approx(315.18).epsilon(1e-3));
  CHECK(tune(dgx_h100(2, CollectiveOp::all_reduce, 8)).algorithm == Algorithm::tree);
}

TEST_CASE("tuner: all-gather never picks Tree; broadcast is Ring only", "[tuner]") {
  for (int nodes : {1, 2, 4}) {
    for (uint64_t size = 8; size <= 4 * kGiB; size *= 8) {
      TunerInput in = dgx_h100(nodes, CollectiveOp::all_gather, size);
      CHECK(tune(in).algorithm != Algorithm::tree);
      CHECK_FALSE(find(candidates(in), Algorithm::tree, Protocol::ll).enabled);
      in.op = CollectiveOp::broadcast;
      CHECK(tune(in).algorithm == Algorithm::ring);
    }
  }
  TunerInput in = dgx_h100(2, CollectiveOp::all_gather, kMiB);
  CHECK_THROWS_WITH(
      tune(in, {.algorithm = Algorithm::tree}),
      Catch::Contains("Tree does not run all_gather") && Catch::Contains("available for all_gather here: Ring"));
}

TEST_CASE("tuner: NCCL_ALGO / NCCL_PROTO / channel overrides are honoured", "[tuner]") {
  TunerInput in = dgx_h100(1, CollectiveOp::all_reduce, 8);
  Choice forced = tune(in, {.algorithm = Algorithm::ring, .protocol = Protocol::simple});
  CHECK(forced.algorithm == Algorithm::ring);
  CHECK(forced.protocol == Protocol::simple);
  CHECK(forced.predicted_us == Approx(56.0));                                    // 8.4 + 14 x 3.4 (§10)
  CHECK(tune(in, {.protocol = Protocol::simple}).algorithm == Algorithm::nvls);  // 25 us beats Ring/Simple 56
  CHECK(tune(in, {.algorithm = Algorithm::tree}).protocol == Protocol::ll);

  in.size = Bytes(kGiB);
  // NCCL_MAX_NCHANNELS=4: per channel min(370.8 / 4, 60) = 60 GB/s (§5 sm90 speed cap): busBw 240.
  Choice four = tune(in, {.algorithm = Algorithm::ring, .protocol = Protocol::simple, .max_channels = 4});
  CHECK(four.channels == 4);
  CHECK(four.bandwidth_GBps == Approx(240.0 * 8 / 14));
  CHECK(tune(in, {.min_channels = 32}).channels == 32);
  CHECK_THROWS_WITH(tune(in, {.min_channels = 8, .max_channels = 4}), Catch::Contains("exceeds"));
  CHECK_THROWS_WITH(tune(in, {.max_channels = 65}), Catch::Contains("1..64"));
  // NVLS needs 2 channels (one is kept for synchronisation).
  CHECK(tune(in, {.max_channels = 1}).algorithm == Algorithm::ring);
  CHECK_THROWS_WITH(tune(in, {.algorithm = Algorithm::nvls, .max_channels = 1}), Catch::Contains("2 channels"));
}

TEST_CASE("tuner: overrides the system cannot run are errors naming what is missing", "[tuner]") {
  ClusterSpec a100 = system_spec("dgx-a100");
  TunerInput in = describe_for_tuner(a100, CollectiveOp::all_reduce, Bytes(kMiB));
  CHECK_THROWS_WITH(
      tune(in, {.algorithm = Algorithm::nvls}),
      Catch::Contains("NVSwitch generation 3") && Catch::Contains("available for all_reduce here: Ring, Tree"));
  TunerInput h100 = dgx_h100(2, CollectiveOp::all_reduce, kMiB);
  CHECK_THROWS_WITH(tune(h100, {.algorithm = Algorithm::collnet_direct}), Catch::Contains("SHARP"));
  CHECK_THROWS_WITH(tune(h100, {.algorithm = Algorithm::nvls}), Catch::Contains("CollNet (SHARP"));
  CHECK_THROWS_WITH(tune(h100, {.algorithm = Algorithm::nvls_tree, .protocol = Protocol::ll}),
                    Catch::Contains("Simple protocol only"));
  h100.op = CollectiveOp::all_gather;
  CHECK_THROWS_WITH(tune(h100, {.algorithm = Algorithm::pat}), Catch::Contains("1 GPU per node (there are 8)"));
  CHECK_THROWS_WITH(tune(dgx_h100(1, CollectiveOp::all_reduce, 8), {.algorithm = Algorithm::nvls_tree}),
                    Catch::Contains("more than one node"));
  // With SHARP, CollNet and multi-node NVLS open up.
  h100.op = CollectiveOp::all_reduce;
  h100.collnet = true;
  CHECK(tune(h100, {.algorithm = Algorithm::collnet_direct}).algorithm == Algorithm::collnet_direct);
  CHECK(tune(h100, {.algorithm = Algorithm::nvls}).algorithm == Algorithm::nvls);
}

TEST_CASE("tuner: predicted time never falls as the message grows", "[tuner]") {
  for (int nodes : {1, 2, 8}) {
    for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::broadcast}) {
      std::vector<double> last(kAlgorithms * kProtocols, 0.0);
      for (double size = 1; size <= 8.0 * kGiB; size *= 1.5) {
        auto all = candidates(dgx_h100(nodes, op, static_cast<uint64_t>(size)));
        for (size_t i = 0; i < all.size(); ++i) {
          if (!all[i].enabled) continue;
          INFO(nodes << " nodes, " << to_string(op) << ", " << label(all[i]) << ", " << size << " B");
          CHECK(all[i].predicted_us >= last[i]);
          last[i] = all[i].predicted_us;
        }
      }
    }
  }
}

TEST_CASE("tuner: per-version constants", "[tuner]") {
  // v2.21.5: Tree/Simple base 0 and 28 us per hop on NVLink and NET (§2):
  // 2 x (7 x 28 + 1 x 28) = 448 us on two nodes; HEAD 8.4 + 2 x (7 x 4 + 14) = 92.4 us.
  TunerInput in = dgx_h100(2, CollectiveOp::all_reduce, 8);
  CHECK(find(candidates(in), Algorithm::tree, Protocol::simple).latency_us == Approx(92.4));
  in.version = "2.21.5";
  CHECK(find(candidates(in), Algorithm::tree, Protocol::simple).latency_us == Approx(448.0));
  CHECK(tune(in).algorithm == Algorithm::tree);
  // v2.18.3 Hopper llMaxBw on one node: 87.7 GB/s (HEAD 141.0), Ring/LL algbw = 87.7 x 8/14 (§3).
  TunerInput one = dgx_h100(1, CollectiveOp::all_reduce, kMiB);
  one.version = "2.18.3";
  CHECK(find(candidates(one), Algorithm::ring, Protocol::ll).bandwidth_GBps == Approx(87.7 * 8 / 14));
  one.version = "";
  CHECK(find(candidates(one), Algorithm::ring, Protocol::ll).bandwidth_GBps == Approx(141.0 * 8 / 14));
}

TEST_CASE("tuner: PAT at one GPU per node, HEAD only", "[tuner]") {
  TunerInput in;
  in.op = CollectiveOp::all_gather;
  in.size = Bytes(8);
  in.nodes = 4;
  in.gpus_per_node = 1;
  in.bw_inter_GBps = 50;
  in.nics_per_node = 1;
  in.channels = 2;
  // 8 + log2(4) x (14 / 3.5) + 4 ranks x 2.8 = 27.2 us (§2; at ppn 1 the NET hop is Tree's 14 us).
  Choice pat = find(candidates(in), Algorithm::pat, Protocol::simple);
  REQUIRE(pat.enabled);
  CHECK(pat.latency_us == Approx(27.2));
  CHECK_FALSE(find(candidates(in), Algorithm::pat, Protocol::ll).enabled);
  in.op = CollectiveOp::all_reduce;
  CHECK_THROWS_WITH(tune(in, {.algorithm = Algorithm::pat}), Catch::Contains("PAT does not run all_reduce"));
  in.op = CollectiveOp::all_gather;
  in.version = "2.21.5";
  CHECK_THROWS_WITH(tune(in, {.algorithm = Algorithm::pat}), Catch::Contains("no constants in NCCL 2.21.5"));
}

TEST_CASE("tuner: inputs NCCL could not have are rejected", "[tuner]") {
  TunerInput in = dgx_h100(1, CollectiveOp::all_reduce, 8);
  in.gpus_per_node = 1;
  CHECK_THROWS_WITH(tune(in), Catch::Contains("at least 2 ranks"));
  in = dgx_h100(1, CollectiveOp::all_to_all, 8);
  CHECK_THROWS_WITH(tune(in), Catch::Contains("does not tune all_to_all"));
  in.op = CollectiveOp::reduce;  // Ring only, like broadcast (§7)
  CHECK(tune(in).algorithm == Algorithm::ring);
  in = dgx_h100(2, CollectiveOp::all_reduce, 8);
  in.bw_inter_GBps = 0;
  CHECK_THROWS_WITH(tune(in), Catch::Contains("no NIC"));
}

TEST_CASE("tuner: describe_for_tuner from a built topology sees NVLS", "[tuner]") {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  TunerInput in = describe_for_tuner(t, spec, CollectiveOp::all_reduce, Bytes(kGiB));
  CHECK(in.nvls);
  CHECK_FALSE(in.collnet);
  CHECK(in.ranks() == 16);
  CHECK(tune(in).algorithm == Algorithm::nvls_tree);
  ClusterSpec pcie = system_spec("dgx-a100");
  pcie.node.layout = NodeLayout::pcie;
  pcie.node.nvswitch_generation = 0;
  pcie.node.nvswitches = 0;
  TunerInput p = describe_for_tuner(pcie, CollectiveOp::all_reduce, Bytes(kMiB));
  CHECK(p.intra == IntraLink::pci);
  CHECK(p.bw_intra_GBps == Approx(24.0));                                      // PCIe gen 4 x16: 16 x 120 / 80 (§5)
  CHECK_FALSE(find(candidates(p), Algorithm::ring, Protocol::ll128).enabled);  // §7: LL128 needs NVLink
}

TEST_CASE("tuner: NVLS and NVLSTree need two of the communicator's GPUs in a node", "[tuner]") {
  // A data-parallel communicator across two DGX H100 with one GPU in each (TP and PP inside the
  // nodes): NVSwitch reduces, Hopper, 2 nodes, but one local rank has no NVLink group.
  TunerInput in;
  in.op = CollectiveOp::all_reduce;
  in.size = Bytes(64 << 20);
  in.nodes = 2;
  in.gpus_per_node = 1;
  in.nics_per_node = 1;
  in.nvswitch = true;
  in.nvls = true;
  in.arch = GpuArch::hopper;
  in.bw_inter_GBps = 50;
  in.bw_intra_GBps = 400;
  in.channels = 16;
  CHECK_FALSE(find(candidates(in), Algorithm::nvls_tree, Protocol::simple).enabled);
  CHECK_THROWS_WITH(tune(in, {.algorithm = Algorithm::nvls_tree}), Catch::Contains("one per node"));
  in.gpus_per_node = 8;
  in.nics_per_node = 8;
  CHECK(find(candidates(in), Algorithm::nvls_tree, Protocol::simple).enabled);
}

TEST_CASE("tuner: an EFA NIC brings aws-ofi-nccl's plugin latency to every network step", "[tuner]") {
  // aws-ofi-nccl reports props->latency = 75 us on p4d/p4de/p5 (src/platform-aws.cpp); NCCL adds it to
  // the NET hop latency (§2): Tree/LL on 2 nodes x 8 = 6.8 + 2 x (7 x 0.6 + 1 x (5.0 + 75)) us.
  ClusterSpec spec = system_spec("aws-p4de");
  spec.nodes = 2;
  TunerInput in = describe_for_tuner(spec, CollectiveOp::all_reduce, Bytes(8));
  CHECK(in.net_latency_us == Approx(75.0));
  in.platform_protocol.reset();  // the plugin's NCCL_PROTO=simple would leave LL without an estimate
  CHECK(find(candidates(in), Algorithm::tree, Protocol::ll).latency_us == Approx(6.8 + 2 * (7 * 0.6 + 80.0)));
  // NCCL's own InfiniBand transport leaves props->latency unset.
  CHECK(dgx_h100(2, CollectiveOp::all_reduce, 8).net_latency_us == 0.0);
}

TEST_CASE("tuner: an NVL72 rack is one node of 72 GPUs to NCCL", "[tuner]") {
  ClusterSpec spec = system_spec("gb200-nvl72");
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  std::vector<uint32_t> all(t.gpus().size());
  for (uint32_t r = 0; r < all.size(); ++r) all[r] = r;
  CommunicatorLayout racks = layout_of(t, all);
  CHECK(racks.nodes == 2);
  CHECK(racks.per_node == 72);
  CHECK(racks.uniform);
  // Within one rack: one node, so NVLS (not NVLSTree over the network) for a large all-reduce.
  std::vector<uint32_t> rack0(all.begin(), all.begin() + 72);
  TunerInput in = describe_communicator(t, spec, layout_of(t, rack0), CollectiveOp::all_reduce, Bytes(kGiB));
  CHECK(in.nodes == 1);
  CHECK(in.gpus_per_node == 72);
  CHECK(tune(in).algorithm == Algorithm::nvls);
  // DGX H100 hosts stay nodes of 8.
  ClusterSpec dgx = system_spec("dgx-h100");
  dgx.nodes = 2;
  Topology d = build_cluster(dgx);
  std::vector<uint32_t> sixteen(16);
  for (uint32_t r = 0; r < 16; ++r) sixteen[r] = r;
  CHECK(layout_of(d, sixteen).nodes == 2);
}

TEST_CASE("tuner: on two nodes the tree graph's raised bwIntra makes Tree beat the NICs' bound", "[tuner]") {
  // Two p4de (§5): NVLink3 12 x 20 = 240 GB/s and 4 x 100G EFA = 6.25 GB/s per GPU, 16 channels. Per
  // channel: intra min(240 / 16, 40) = 15, inter 6.25 x 8 / 16 = 3.125; both graphs start at 3.125,
  // and pass 2 of the search raises the tree graph's bwIntra to min(15, 2 x 3.125) = 6.25.
  ClusterSpec spec = system_spec("aws-p4de");
  spec.nodes = 2;
  TunerInput in = describe_for_tuner(spec, CollectiveOp::all_reduce, Bytes(kGiB));
  // On <= 2 nodes the tuner reads bwIntra. Ring/Simple: 16 x 3.125 x 16/30 = 26.67 GB/s. Tree/Simple:
  // 16 x 6.25 x 0.92 x 0.5 = 46 GB/s (perChMaxTreeBw does not bind), so NCCL runs Tree.
  CHECK(find(candidates(in), Algorithm::ring, Protocol::simple).bandwidth_GBps == Approx(26.667).epsilon(1e-3));
  CHECK(find(candidates(in), Algorithm::tree, Protocol::simple).bandwidth_GBps == Approx(46.0).epsilon(1e-3));
  CHECK(tune(in).algorithm == Algorithm::tree);
  // From 3 nodes the tuner reads bwInter, the same for both graphs: Tree 16 x 3.125 x 0.92 x 0.5 = 23 GB/s
  // against Ring's 16 x 3.125 x 24/46 = 26.09 GB/s.
  spec.nodes = 3;
  in = describe_for_tuner(spec, CollectiveOp::all_reduce, Bytes(kGiB));
  CHECK(find(candidates(in), Algorithm::tree, Protocol::simple).bandwidth_GBps == Approx(23.0).epsilon(1e-3));
  CHECK(tune(in).algorithm == Algorithm::ring);
}
