// Test helpers for the packet fabric: links with a set latency, flows started at given times on a
// packet fabric of their own, and an incast.
#pragma once

#include <algorithm>
#include <vector>

#include "sim/core/engine.h"
#include "sim/core/recorder.h"
#include "sim/packet/packet_fabric.h"
#include "topologies/catalogue/links.h"
#include "topologies/routing.h"

namespace weft::testing {

inline LinkSpec roce(int gbps, uint32_t mtu, Time latency) {
  LinkSpec link = catalogue::ethernet_link(gbps, mtu);
  link.latency = latency;
  return link;
}

inline LinkSpec ib_ndr(Time latency) {
  LinkSpec link = catalogue::infiniband_link("ndr");
  link.latency = latency;
  return link;
}

struct Flow {
  NodeIndex src, dst;
  uint64_t bytes;
  Time start;
  uint8_t priority = 0;
};

struct Run {
  std::vector<Time> finish;  // per flow
  FabricStats stats;
  Time makespan;
  uint64_t events = 0;  // the engine's
};

// Runs flows on a packet fabric over `t` and returns when each finished.
inline Run run_flows(const Topology& t, const std::vector<Flow>& flows, const packet::PacketConfig& config,
                     RouterOptions routing = {}) {
  Engine engine;
  Router router(t, routing);
  Recorder recorder;
  PacketFabric fabric(engine, router, recorder, config, /*check_invariants=*/true);
  Run run;
  run.finish.assign(flows.size(), Time::max());
  for (size_t i = 0; i < flows.size(); ++i) {
    engine.schedule_at(flows[i].start, [&, i] {
      Transfer tr{flows[i].src, flows[i].dst, Bytes(flows[i].bytes), flows[i].priority, i, i};
      fabric.start(tr, [&, i] { run.finish[i] = engine.now(); });
    });
  }
  fabric.run(engine);
  run.stats = fabric.stats();
  run.events = engine.events_processed();
  run.makespan = *std::max_element(run.finish.begin(), run.finish.end());
  return run;
}

// `senders` flows of `bytes` from GPUs 1.. to GPU 0, all at time 0.
inline std::vector<Flow> incast(const Topology& t, int senders, uint64_t bytes) {
  std::vector<Flow> flows;
  for (int i = 1; i <= senders; ++i) flows.push_back({t.gpus()[i], t.gpus()[0], bytes, Time()});
  return flows;
}

inline double seconds(Time t) { return t.seconds(); }

}  // namespace weft::testing
