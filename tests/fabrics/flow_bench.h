// The flow fabric tests' bench: one simulation (engine, router, a flow fabric with its invariant
// check on, or the analytic fabric) over a topology, and the small helpers the random tests share.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "sim/analytic_fabric.h"
#include "sim/core/recorder.h"
#include "sim/flow_fabric.h"
#include "topologies/builders.h"
#include "topologies/clusters.h"
#include "topologies/systems.h"

namespace weft::testing {

// One simulation: engine, router and a fabric over `topology`, with every transfer recorded.
struct Bench {
  explicit Bench(Topology t, bool flow = true) : topology(std::move(t)), router(topology, 1) {
    recorder.add_sink(sink);
    if (flow) {
      fabric = std::make_unique<FlowFabric>(engine, router, recorder, FlowFabricConfig{true});
    } else {
      fabric = std::make_unique<AnalyticFabric>(engine, router, recorder);
    }
  }
  void send(uint32_t from, uint32_t to, uint64_t bytes, Time at = Time()) {
    engine.schedule_at(at, [this, from, to, bytes] {
      fabric->start({topology.gpus()[from], topology.gpus()[to], Bytes(bytes)}, [] {});
    });
  }
  Topology topology;
  Engine engine;
  Router router;
  Recorder recorder;
  MemorySink sink;
  std::unique_ptr<Fabric> fabric;
};

// A xorshift generator of the random tests: next(n) is in [0, n).
struct Xorshift {
  uint64_t state;
  uint64_t next(uint64_t n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state % n;
  }
};

// Two DGX H100 on their catalogue fabric: NVLink-striped routes inside a host, ECMP ones across.
inline Topology two_dgx_h100() {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 2;
  return build_cluster(spec);
}

inline LinkSpec link(uint64_t gbps, Time latency) { return {LinkKind::generic, Bandwidth::gbps(gbps), latency}; }

}  // namespace weft::testing
