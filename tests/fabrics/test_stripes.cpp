// NVLink striping by packet (sim/stripes.h): a transfer uses one NVLink path per 256 B of data, up to
// all of them; small transfers of different streams start at different paths; the flow fabric's
// copies stay exact (interchangeable only where the paths are the same).
#include <catch2/catch.hpp>

#include <set>

#include "sim/flow_fabric.h"
#include "sim/simulation.h"
#include "sim/stripes.h"
#include "topologies/clusters.h"
#include "topologies/systems.h"

using namespace weft;

namespace {

// The NVLink links out of `gpu` that carried data in a run of one transfer of `bytes` on `fabric`.
std::set<LinkId> links_used(const Topology& t, const std::string& fabric, uint64_t bytes, uint64_t entropy) {
  Simulation sim(t, SimulationSetup{fabric, 1});
  Transfer transfer;
  transfer.src = t.gpus()[0];
  transfer.dst = t.gpus()[1];
  transfer.bytes = Bytes(bytes);
  transfer.entropy = entropy;
  sim.fabric().start(transfer, [] {});
  sim.run();
  std::set<LinkId> out;
  for (const LinkStats& l : sim.fabric().link_stats()) {
    if (t.link_source(l.link) == transfer.src && l.wire.count() > 0) out.insert(l.link);
  }
  return out;
}

}  // namespace

TEST_CASE("stripes: one NVLink path per 256 B of data, at least one, at most all", "[stripes]") {
  CHECK(stripes_used(0, 18) == 1);
  CHECK(stripes_used(255, 18) == 1);
  CHECK(stripes_used(511, 18) == 1);
  CHECK(stripes_used(512, 18) == 2);
  CHECK(stripes_used(uint64_t{18} * 256 - 1, 18) == 17);
  CHECK(stripes_used(uint64_t{18} * 256, 18) == 18);
  CHECK(stripes_used(1ULL << 30, 4) == 4);
  CHECK(stripe_path(5, 18, 18, 3) == 3);  // all paths: in order, whatever the entropy
  CHECK(stripe_path(5, 18, 2, 1) == 6);   // fewer: from the path the entropy names
  CHECK(stripe_path(17, 18, 2, 1) == 0);  // wrapping round
}

TEST_CASE("stripes: the parts of a small transfer cover its bytes on consecutive paths", "[stripes]") {
  const Topology t = build_cluster(system_spec("gb200-nvl72"));
  Router router(t, RouterOptions{});
  const PathSet* stripes = nullptr;
  router.route(t.gpus()[0], t.gpus()[1], 0, stripes);
  REQUIRE(stripes != nullptr);
  REQUIRE(stripes->size() == 18);  // one per NVLink switch tray
  Transfer transfer{t.gpus()[0], t.gpus()[1], Bytes(1000), 0, 7, 0};
  transfer.max_rate = 3'000'000;
  const size_t used = stripes_used(1000, 18);
  REQUIRE(used == 3);
  uint64_t bytes = 0, rate = 0;
  std::set<uint64_t> queue_pairs;
  for (size_t i = 0; i < used; ++i) {
    const Transfer part = stripe_part(*stripes, transfer, i);
    bytes += part.bytes.count();
    rate += part.max_rate;
    queue_pairs.insert(part.entropy);
  }
  CHECK(bytes == 1000);
  CHECK(rate == 3'000'000);  // the sender's limit covers its stripes together
  CHECK(queue_pairs.size() == used);
}

TEST_CASE("stripes: every fabric sends a small transfer over few links, a large one over all", "[stripes]") {
  const Topology t = build_cluster(system_spec("gb200-nvl72"));
  for (const std::string fabric : {"flow", "packet", "analytic"}) {
    if (fabric == "analytic") continue;  // keeps no per-link statistics
    CAPTURE(fabric);
    CHECK(links_used(t, fabric, 300, 0).size() == 1);
    CHECK(links_used(t, fabric, 300, 0) != links_used(t, fabric, 300, 1));  // another stream, another link
    CHECK(links_used(t, fabric, 1000, 4).size() == 3);
    CHECK(links_used(t, fabric, 1 << 20, 4).size() == 18);
  }
}

TEST_CASE("stripes: the flow fabric's copies are exact only on the same paths", "[stripes]") {
  const Topology t = build_cluster(system_spec("gb200-nvl72"));
  Simulation sim(t, SimulationSetup{"flow", 1});
  Fabric& flow = sim.fabric();
  REQUIRE(flow.runs_copies());
  const NodeIndex a = t.gpus()[0], b = t.gpus()[1];
  CHECK(flow.interchangeable(a, b, 0, 1, Bytes(1 << 20)));    // every stripe: the same links
  CHECK_FALSE(flow.interchangeable(a, b, 0, 1, Bytes(300)));  // one stripe each, on different links
  CHECK(flow.interchangeable(a, b, 0, 18, Bytes(300)));       // one stripe each, on the same link
}
