// Whole-run benchmark: the nccl-tests-style sweep of issue 5 (`weft collective --system dgx-h100
// --nodes 16 -b 8 -e 8G -f 2`, flow fabric), one row per size with the simulated time and what the
// simulation cost: wall seconds, transfers, engine events, max-min solves.
// Usage: weft_collective_sweep_scale [SYSTEM] [NODES] [MIN_BYTES] [MAX_BYTES] [FABRIC] [OP].
#include <sys/resource.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "collectives/collective_op.h"
#include "collectives/plan.h"
#include "collectives/simulate.h"
#include "topologies/clusters.h"
#include "topologies/systems.h"

int main(int argc, char** argv) {
  std::string system = argc > 1 ? argv[1] : "dgx-h100";
  int nodes = argc > 2 ? std::atoi(argv[2]) : 16;
  uint64_t min_bytes = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 8;
  uint64_t max_bytes = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : (8ULL << 30);
  std::string fabric = argc > 5 ? argv[5] : "flow";
  weft::CollectiveOp op = weft::parse_collective_op(argc > 6 ? argv[6] : "all_reduce");
  using Clock = std::chrono::steady_clock;
  weft::ClusterSpec spec = weft::system_spec(system);
  spec.nodes = nodes;
  weft::Topology topology = weft::build_cluster(spec);
  double total_s = 0;
  for (uint64_t size = min_bytes; size <= max_bytes; size *= 2) {
    // As the sweep rounds it: whole floats.
    weft::Bytes bytes(std::max<uint64_t>(size / 4, 1) * 4);
    auto t0 = Clock::now();
    weft::CollectivePlan plan = weft::plan_collective(op, bytes, topology, spec);
    auto t1 = Clock::now();
    weft::SimulationResult r = weft::simulate(plan.schedule, topology, {fabric, 1, {}});
    auto t2 = Clock::now();
    double plan_s = std::chrono::duration<double>(t1 - t0).count();
    double run_s = std::chrono::duration<double>(t2 - t1).count();
    total_s += plan_s + run_s;
    std::printf("bytes=%llu algorithm=%s time_us=%.6f transfers=%llu events=%llu solves=%llu plan_s=%.3f run_s=%.3f\n",
                static_cast<unsigned long long>(bytes.count()), plan.label.c_str(), r.time.seconds() * 1e6,
                static_cast<unsigned long long>(r.transfers), static_cast<unsigned long long>(r.events),
                static_cast<unsigned long long>(r.fabric.rate_solves), plan_s, run_s);
    std::fflush(stdout);
    if (size > UINT64_MAX / 2) break;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("system=%s nodes=%d fabric=%s total_s=%.3f peak_rss_MiB=%.1f\n", system.c_str(), nodes, fabric.c_str(),
              total_s, static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
