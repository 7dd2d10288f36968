// NCCL's cost model and tuner (collectives/nccl_model.h, collectives/tuner.h). Expected values are
// derived by hand from shared/reference/nccl_model.md (§n) in the comments beside them.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fmt/format.h>

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
  CHECK_THROWS_WITH(parse_algorithm("rign", "--algo"), Catch::Contains("Ring, Tree, NVLS") && Catch::Contains("--algo"));
  CHECK_THROWS_WITH(parse_protocol("ll64"), Catch::Contains("LL, LL128, Simple"));
}

TEST_CASE("tuner: versions by name, newest by default, unknown ones listed", "[tuner]") {
  CHECK(nccl_version("").name == "2.30.7");
  CHECK(nccl_version("head").name == "2.30.7");
  CHECK(nccl_version("2.21").name == "2.21.5");
  CHECK(nccl_version("2.18.3").name == "2.18.3");
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

TEST_CASE("tuner: dump", "[.tuner-dump]") {
  for (int mode : {0, 1}) {
    for (uint64_t size = 1; size <= 4 * kGiB; size *= 2) {
      TunerInput in = dgx_h100(2, CollectiveOp::all_reduce, size);
      in.nvls = false;
      if (mode == 1) { in.nvls = true; in.collnet = true; }
      Choice best = tune(in);
      std::printf("mode %d %llu -> %s ch %u %.2f us\n", mode, static_cast<unsigned long long>(size), label(best).c_str(),
                  best.channels, best.predicted_us);
    }
  }
}
