// What tests of the replay share: a DGX H100 cluster of `nodes` hosts, and the check that two
// replays of one step ran every op of every rank at the same instants, to the picosecond.
#pragma once

#include <catch2/catch.hpp>

#include "topologies/systems.h"
#include "workloads/replayer.h"

namespace weft::test {

inline ClusterSpec dgx_h100(int nodes) {
  ClusterSpec c = system_spec("dgx-h100");
  c.nodes = nodes;
  return c;
}

inline void check_same_ops(const ReplayResult& a, const ReplayResult& b) {
  REQUIRE(a.ops.timings().size() == b.ops.timings().size());
  for (size_t r = 0; r < a.ops.timings().size(); ++r) {
    REQUIRE(a.ops.timings()[r].size() == b.ops.timings()[r].size());
    for (size_t i = 0; i < a.ops.timings()[r].size(); ++i) {
      CHECK(a.ops.timings()[r][i].started == b.ops.timings()[r][i].started);
      CHECK(a.ops.timings()[r][i].ended == b.ops.timings()[r][i].ended);
    }
  }
}

}  // namespace weft::test
