// isolation_key: communicators that are images of one another under the topology's symmetry share a
// key, and therefore one isolated simulation, on the fabrics that only see paths. Proven against
// the unaggregated run: every communicator of every catalogue system below is simulated on its own,
// and any two with the same key must take the same time to the picosecond.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <vector>

#include "collectives/executor.h"
#include "collectives/plan.h"
#include "sim/simulation.h"
#include "topologies/clusters.h"
#include "topologies/systems.h"
#include "workloads/collective_timer.h"
#include "workloads/isolation_key.h"

using namespace weft;

namespace {

// Tensor-parallel groups (consecutive GPUs of a host, `tp` each) and the data-parallel groups
// across them (GPU i of every TP group), as a training layout makes them.
std::vector<std::vector<uint32_t>> communicators(uint32_t gpus, uint32_t tp) {
  std::vector<std::vector<uint32_t>> out;
  for (uint32_t first = 0; first < gpus; first += tp) {
    std::vector<uint32_t>& group = out.emplace_back();
    for (uint32_t g = first; g < first + tp; ++g) group.push_back(g);
  }
  for (uint32_t i = 0; i < tp; ++i) {
    std::vector<uint32_t>& group = out.emplace_back();
    for (uint32_t g = i; g < gpus; g += tp) group.push_back(g);
  }
  return out;
}

std::vector<NodeIndex> nodes_of(const Topology& t, const std::vector<uint32_t>& gpus) {
  std::vector<NodeIndex> nodes;
  nodes.reserve(gpus.size());
  for (uint32_t g : gpus) nodes.push_back(t.gpus()[g]);
  return nodes;
}

// The unaggregated run: the schedule alone on a fresh simulation, rank r on nodes[r].
Time alone_on(const Schedule& schedule, const Topology& t, std::span<const NodeIndex> nodes,
              const std::string& fabric) {
  Simulation sim(t, SimulationSetup{fabric});
  ScheduleExecutor executor(sim.engine(), sim.fabric(), schedule, nodes, sim.recorder());
  executor.start();
  sim.run();
  return executor.end_time() - executor.start_time();
}

struct Checked {
  size_t communicators = 0;
  size_t keys = 0;
};

// Every (communicator, op, size) simulated alone; equal keys must mean equal times.
Checked check_system(const std::string& system, int nodes, uint32_t tp, const std::string& fabric) {
  ClusterSpec spec = system_spec(system);
  spec.nodes = nodes;
  const Topology t = build_cluster(spec);
  Simulation main(t, SimulationSetup{fabric});
  const IsolationKeying keying =
      main.fabric().path_determined() ? IsolationKeying::by_paths : IsolationKeying::by_nodes;
  std::map<std::string, Time> time_of_key;
  Checked checked;
  for (const std::vector<uint32_t>& gpus : communicators(static_cast<uint32_t>(t.gpus().size()), tp)) {
    for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather}) {
      for (Bytes size : {Bytes(uint64_t{64} << 10), Bytes(uint64_t{8} << 20)}) {
        const CollectivePlan plan = plan_collective(op, size, t, spec, gpus);
        const std::vector<NodeIndex> nodes = nodes_of(t, gpus);
        const std::string key = isolation_key(plan.schedule, nodes, main.router(), keying);
        const Time alone = alone_on(plan.schedule, t, nodes, fabric);
        auto [it, fresh] = time_of_key.emplace(key, alone);
        INFO(system << " " << fabric << " " << to_string(op) << " " << size.count() << " B on GPU " << gpus.front());
        CHECK(it->second == alone);
        ++checked.communicators;
        checked.keys += fresh ? 1 : 0;
      }
    }
  }
  return checked;
}

}  // namespace

TEST_CASE("isolation_key: symmetric communicators share a key, and equal keys take equal times", "[timer]") {
  constexpr size_t kRuns = 4;  // per communicator: 2 ops x 2 sizes
  // dgx-h100 x4, TP 4: the 8 TP groups are images of one another (one key per run); the 4 DP groups
  // cross rails through the spines, where ECMP may set them apart.
  CHECK(check_system("dgx-h100", 4, 4, "flow").keys <= kRuns * (1 + 4));
  CHECK(check_system("dgx-h100", 2, 4, "analytic").keys <= kRuns * (1 + 4));
  // One key for all TP groups and one for all DP groups: the DP groups stay on their rails (one leaf
  // each), inside one NVLink domain, or on a host's PCIe switches.
  CHECK(check_system("dgx-a100", 2, 8, "flow").keys == kRuns * 2);
  CHECK(check_system("gb200-nvl72", 1, 8, "flow").keys == kRuns * 2);
  CHECK(check_system("pcie-3090x8-nvlink", 2, 2, "flow").keys == kRuns * 2);
  // The packet fabric keeps per-port state: its key names the GPUs, one per communicator.
  const Checked packet = check_system("dgx-h100", 2, 8, "packet");
  CHECK(packet.keys == packet.communicators);
}

TEST_CASE("isolation_key: another order of the same GPUs or another link rate is another key", "[timer]") {
  ClusterSpec spec = system_spec("dgx-h100");
  spec.nodes = 2;
  Topology t = build_cluster(spec);
  Simulation main(t, SimulationSetup{"flow"});
  // Four GPUs on two hosts: ordered 0 1 8 9, the ring crosses the network twice; ordered 0 8 1 9,
  // every hop does.
  const std::vector<uint32_t> gpus{0, 1, 8, 9};
  const CollectivePlan plan = plan_collective(CollectiveOp::all_reduce, Bytes(1 << 20), t, spec, gpus);
  const std::vector<NodeIndex> forward{t.gpus()[0], t.gpus()[1], t.gpus()[8], t.gpus()[9]};
  const std::vector<NodeIndex> mixed{t.gpus()[0], t.gpus()[8], t.gpus()[1], t.gpus()[9]};
  const std::string key = isolation_key(plan.schedule, forward, main.router(), IsolationKeying::by_paths);
  CHECK(key == isolation_key(plan.schedule, forward, main.router(), IsolationKeying::by_paths));
  CHECK(key != isolation_key(plan.schedule, mixed, main.router(), IsolationKeying::by_paths));
  CHECK(key != isolation_key(plan.schedule, forward, main.router(), IsolationKeying::by_nodes));
  // The same GPUs on a network of 200G ports: the links are named alike, their rates are not.
  ClusterSpec slower_spec = spec;
  slower_spec.network.port_gbps = 200;
  const Topology slower = build_cluster(slower_spec);
  Router other(slower, router_options(main.setup()));
  CHECK(key != isolation_key(plan.schedule, forward, other, IsolationKeying::by_paths));
}
