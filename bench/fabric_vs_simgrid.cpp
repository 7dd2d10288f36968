// One fabric on the NCCL-like ring all-reduce of 1 GiB (default RingOptions: 2 MiB chunks, 2 in
// flight) over single_switch(RANKS) at 400 Gb/s and 1 us per link, through simulate(): run it once
// with "flow" and once with "simgrid" (SimGrid's engine is a singleton: one run per process) and
// compare the lines. Usage: weft_fabric_vs_simgrid RANKS FABRIC [BYTES]
// Prints: ranks=… fabric=… simulated_s=… wall_s=… transfers=…
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "collectives/ring.h"
#include "collectives/simulate.h"
#include "topologies/builders.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s RANKS FABRIC [BYTES]   (FABRIC: flow, simgrid, analytic)\n", argv[0]);
    return 2;
  }
  const auto ranks = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  const std::string fabric = argv[2];
  const uint64_t bytes = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : (1ULL << 30);
  try {
    const weft::Topology topology =
        weft::single_switch(ranks, {weft::LinkKind::generic, weft::Bandwidth::gbps(400), weft::Time::us(1)});
    const weft::Schedule schedule = weft::ring_all_reduce(ranks, weft::Bytes(bytes));
    const auto t0 = std::chrono::steady_clock::now();
    const weft::SimulationResult result = weft::simulate(schedule, topology, {fabric, 1, {}});
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("ranks=%u fabric=%s simulated_s=%.9f wall_s=%.3f transfers=%llu\n", ranks, fabric.c_str(),
                result.time.seconds(), wall, static_cast<unsigned long long>(result.transfers));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}
