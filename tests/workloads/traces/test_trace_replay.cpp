// Traces replayed on the fabrics: ASTRA-sim's ring all-reduce written as point-to-point ETs against
// weft's own ring all-reduce schedule.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "collectives/ring.h"
#include "collectives/simulate.h"
#include "topologies/systems.h"
#include "trace_test_files.h"
#include "workloads/replayer.h"
#include "workloads/traces/trace.h"

using namespace weft;

TEST_CASE("Replay: ASTRA-sim's point-to-point ring all-reduce takes weft's one-channel ring time", "[unit][traces]") {
  const ClusterSpec cluster = system_spec("dgx-h100");
  const Topology topo = build_cluster(cluster);
  // The ETs' 7 COMP nodes stand for the reductions (ASTRA-sim charges them); weft's ring schedule
  // charges no compute for reducing a chunk, so the comparison leaves them out (compute_scale 0).
  const Workload ring = read_trace({.pattern = test::astra_ring(), .compute_scale = 0.0});
  const ReplayResult p2p = replay(ring, topo, cluster);
  // weft's ring all-reduce algorithm on one channel: 2 (n - 1) = 14 steps of S/n = 128 KiB, each
  // rank sending to the next, as in the ETs, on the same flow fabric. (Through NCCL's model a
  // collective also pays NCCL's launch and protocol latency and one channel's copy speed, which a
  // trace's bare sends do not: that is the calibration layer, not the algorithm.)
  // Each step one whole block, as the ETs send it (the Simple protocol's slices would overlap them).
  const Schedule own = ring_all_reduce(8, Bytes(1 << 20), {.channels = 1, .simple = false});
  const SimulationResult direct = simulate(own, topo);
  INFO("p2p ring " << p2p.step_time.microseconds() << " us; weft ring " << direct.time.microseconds() << " us");
  CHECK(p2p.step_time.seconds() == Approx(direct.time.seconds()).epsilon(0.01));
  // Bytes: each rank sends 14 x 131,072 B in both forms.
  CHECK(p2p.fabric.bytes_delivered == direct.fabric.bytes_delivered);
  CHECK(p2p.fabric.bytes_delivered == Bytes(8 * 14 * 131072));
}

TEST_CASE("Replay: DLRM's uneven all-to-alls run as the uniform all-to-all of the largest", "[unit][traces]") {
  const Workload w = read_trace({.files = test::dlrm_files()});
  const ClusterSpec cluster = system_spec("dgx-h100");
  const ReplayResult r = replay(w, build_cluster(cluster), cluster);
  CHECK(r.step_time > Time());
  // The k-th all-to-all of every rank is one instance; it runs at the largest size any rank gave it.
  std::vector<uint64_t> largest;
  for (const Program& p : w.programs) {
    size_t k = 0;
    for (const Op& op : p.ops) {
      if (op.kind != OpKind::collective || op.collective != CollectiveOp::all_to_all) continue;
      if (largest.size() <= k) largest.resize(k + 1, 0);
      largest[k] = std::max(largest[k], op.bytes.count());
      ++k;
    }
  }
  REQUIRE(largest.size() == 5);  // 5 per rank
  std::multiset<uint64_t> expected(largest.begin(), largest.end()), ran;
  for (const CollectiveStat& c : r.collectives) {
    for (uint64_t i = 0; c.op == CollectiveOp::all_to_all && i < c.count; ++i) ran.insert(c.bytes.count());
  }
  CHECK(ran == expected);
}
