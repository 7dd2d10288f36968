#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "sim/core/errors.h"
#include "topologies/builders.h"
#include "topologies/route_table.h"
#include "topologies/routing.h"

using namespace weft;

namespace {
const LinkSpec kLink{LinkKind::generic, Bandwidth::gbps(400), Time::ns(500)};
}

TEST_CASE("single switch: two hops through the switch, full duplex", "[topology]") {
  Topology t = single_switch(4, kLink);
  CHECK(t.gpus().size() == 4);
  CHECK(t.node_count() == 5);
  CHECK(t.link_count() == 8);  // 4 cables x 2 directions
  Router r(t, 1);
  const PathSet& p = r.paths(t.gpus()[0], t.gpus()[3]);
  REQUIRE(p.size() == 1);
  CHECK(p[0].links.size() == 2);
  CHECK(p[0].latency == Time::us(1));
  CHECK(p[0].bottleneck == Bandwidth::gbps(400));
  // The reverse direction uses the other two directed links.
  const PathSet& back = r.paths(t.gpus()[3], t.gpus()[0]);
  CHECK(back[0].links != p[0].links);
  CHECK(t.link_source(p[0].links[0]) == t.gpus()[0]);
  CHECK(t.link_target(p[0].links[1]) == t.gpus()[3]);
}

TEST_CASE("ring: shortest paths, and both directions for the opposite node (ECMP)", "[topology]") {
  Topology t = ring(6, kLink);
  CHECK(t.link_count() == 12);
  Router r(t, 1);
  CHECK(r.paths(t.gpus()[0], t.gpus()[1]).size() == 1);
  CHECK(r.paths(t.gpus()[0], t.gpus()[2]).size() == 1);
  CHECK(r.paths(t.gpus()[0], t.gpus()[2])[0].links.size() == 2);
  const PathSet& opposite = r.paths(t.gpus()[0], t.gpus()[3]);
  REQUIRE(opposite.size() == 2);
  CHECK(opposite[0].links.size() == 3);
  std::set<const Path*> chosen;
  for (uint64_t entropy = 0; entropy < 64; ++entropy) chosen.insert(&r.route(t.gpus()[0], t.gpus()[3], entropy));
  CHECK(chosen.size() == 2);  // hashing spreads flows over both
  // Same seed, same entropy: same path (cached sets, deterministic hash).
  Router again(t, 1);
  CHECK(again.route(t.gpus()[0], t.gpus()[3], 5).links == r.route(t.gpus()[0], t.gpus()[3], 5).links);
}

TEST_CASE("a two-GPU ring is one cable", "[topology]") {
  Topology t = ring(2, kLink);
  CHECK(t.link_count() == 2);
}

TEST_CASE("unreachable nodes and bad builder input are errors", "[topology]") {
  Topology t;
  NodeIndex a = t.add_node({NodeKind::gpu, "a"});
  NodeIndex b = t.add_node({NodeKind::gpu, "b"});
  Router r(t, 1);
  CHECK_THROWS_AS(r.paths(a, b), ModelError);
  CHECK_THROWS_AS(ring(1, kLink), ConfigError);
  CHECK_THROWS_AS(single_switch(0, kLink), ConfigError);
  CHECK_THROWS_WITH(build_topology("torus", 4, kLink), Catch::Contains("single-switch"));
}

TEST_CASE("copied and moved topologies keep their links", "[topology]") {
  Topology original = single_switch(3, kLink);
  Topology copy = original;
  Topology moved = std::move(original);
  for (const Topology* t : {&copy, &moved}) {
    REQUIRE(t->link_count() == 6);
    for (LinkId l = 0; l < t->link_count(); ++l) CHECK(t->link(l).id == l);
    Router r(*t, 1);
    CHECK(r.paths(t->gpus()[0], t->gpus()[2])[0].latency == Time::us(1));
  }
}

// The Router's route cache: every key keeps its path through the table's growth, colliding keys
// stay apart, and a key seen before is found, not added again.
TEST_CASE("route table: keys keep their paths as the table grows", "[unit][routing]") {
  RouteTable table;
  std::vector<Path> paths(5000);
  // Every hash ends in the same 4 bits, so keys collide in runs of probes at every size.
  const auto hash = [](uint32_t i) { return static_cast<uint64_t>(i) << 4; };
  for (uint32_t i = 0; i < paths.size(); ++i) {
    const Path*& slot = table.find_or_add(i % 7, i, i * 3ULL, hash(i));
    REQUIRE(slot == nullptr);
    slot = &paths[i];
  }
  CHECK(table.size() == paths.size());
  for (uint32_t i = 0; i < paths.size(); ++i) CHECK(table.find_or_add(i % 7, i, i * 3ULL, hash(i)) == &paths[i]);
  CHECK(table.size() == paths.size());
  // The same hash with another entropy is another key.
  CHECK(table.find_or_add(0, 0, 1, hash(0)) == nullptr);
  CHECK(table.size() == paths.size() + 1);
}
