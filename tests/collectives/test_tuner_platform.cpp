// The NCCL_PROTO a platform's own net plugin sets (node.nccl_proto) and how the tuner takes it.
#include <catch2/catch.hpp>

#include "collectives/tuner.h"
#include "sim/core/errors.h"
#include "topologies/systems.h"

using namespace weft;

namespace {

TunerInput p4de(int nodes, uint64_t bytes) {
  ClusterSpec spec = system_spec("aws-p4de");
  spec.nodes = nodes;
  return describe_for_tuner(spec, CollectiveOp::all_reduce, Bytes(bytes));
}

}  // namespace

TEST_CASE("tuner: aws-ofi-nccl's NCCL_PROTO=simple on p4de leaves Simple only", "[tuner]") {
  // aws-ofi-nccl sets NCCL_PROTO=simple at init on p4d/p4de (EFA cannot deliver 128-byte aligned
  // writes in order), so NCCL runs Simple at every size, on one node as on several: without it the
  // tuner takes LL below a few MiB (Tree/LL at 8 B on two nodes).
  for (int nodes : {1, 2}) {
    for (uint64_t bytes : {uint64_t{8}, uint64_t{1} << 20, uint64_t{1} << 30}) {
      TunerInput in = p4de(nodes, bytes);
      REQUIRE(in.platform_protocol == Protocol::simple);
      CHECK(tune(in).protocol == Protocol::simple);
      in.platform_protocol.reset();
      if (bytes == 8) CHECK(tune(in).protocol == Protocol::ll);
    }
  }
  // The plugin sets the variable only when the user left it unset: NCCL_PROTO=LL still runs LL.
  TunerOverrides ll;
  ll.protocol = Protocol::ll;
  CHECK(tune(p4de(2, 8), ll).protocol == Protocol::ll);
  // --explain says why LL is off.
  for (const Choice& c : candidates(p4de(2, 8))) {
    if (c.protocol != Protocol::simple) CHECK_THAT(c.why, Catch::Contains("node.nccl_proto"));
  }
  // Other presets leave NCCL's default (aws-p5's plugin runs LL and LL128 over its RDMA protocol).
  CHECK_FALSE(describe_for_tuner(system_spec("aws-p5"), CollectiveOp::all_reduce, Bytes(8)).platform_protocol);
}

TEST_CASE("tuner: an unknown node.nccl_proto names the key and the protocols", "[tuner]") {
  ClusterSpec spec = system_spec("aws-p4de");
  spec.node.nccl_proto = "LL64";
  CHECK_THROWS_WITH(describe_for_tuner(spec, CollectiveOp::all_reduce, Bytes(8)),
                    Catch::Contains("node.nccl_proto") && Catch::Contains("LL128"));
}
