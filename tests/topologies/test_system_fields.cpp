// The system field table (topologies/systems.cpp): every field's value shows and reads back in the
// one grammar, bad text fails naming the key, and README.md's table is the table.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/errors.h"
#include "tests/source_file.h"
#include "topologies/systems.h"

using namespace weft;

TEST_CASE("System fields: every value of every preset reads back as it shows", "[unit]") {
  for (const SystemPreset& p : system_presets()) {
    const ClusterSpec spec = p.spec();
    for (const Field<ClusterSpec>& f : system_fields()) {
      ClusterSpec copy = spec;
      set_field(copy, f.key, f.show(spec));
      CHECK(f.show(copy) == f.show(spec));
    }
  }
}

TEST_CASE("System fields: bad text fails naming the key and what was expected", "[unit]") {
  ClusterSpec spec = system_spec("dgx-h100");
  CHECK_THROWS_WITH(set_field(spec, "node.pcie_lanes", "x8"), "node.pcie_lanes: expected a whole number, got 'x8'");
  CHECK_THROWS_WITH(set_field(spec, "network.mtu", "-1"), "network.mtu: expected a whole number, got '-1'");
  CHECK_THROWS_WITH(set_field(spec, "node.p2p", "yes"), Catch::StartsWith("node.p2p: expected true or false"));
  CHECK_THROWS_WITH(set_field(spec, "node.layout", "ring"), Catch::Contains("nvswitch, cube-mesh, nvl-rack or pcie"));
  CHECK_THROWS_WITH(set_field(spec, "node.nicks", "4"), Catch::Contains("did you mean 'node.nics'"));
  set_field(spec, "network.oversubscription", "3/2");
  CHECK(spec.network.oversubscription == 1.5);
  set_field(spec, "network.shape", "fat-tree");
  CHECK(spec.network.shape == NetworkShape::fat_tree);
}

TEST_CASE("System fields: README.md's table lists every field with its unit and doc", "[unit]") {
  CHECK(source_file("README.md").find(markdown_table(system_fields())) != std::string::npos);
}
