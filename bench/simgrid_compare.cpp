// weft's flow fabric against SimGrid 3.32 (pure CM02 max-min) on the same ring all-reduce: 1 GiB,
// one switch, 400 Gb/s and 1 us per link. Prints both wall times, their ratio and the relative
// difference of the simulated times. Usage: weft_vs_simgrid RANKS [BYTES]. SimGrid's engine is a
// singleton: one size per process.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "bench/simgrid_ring.h"
#include "collectives/ring.h"
#include "collectives/simulate.h"
#include "topologies/builders.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s RANKS [BYTES]\n", argv[0]);
    return 2;
  }
  auto ranks = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  uint64_t bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (1ULL << 30);
  const double rate_bps = 400e9;
  const double latency_s = 1e-6;

  auto t0 = std::chrono::steady_clock::now();
  weft::Topology topology =
      weft::single_switch(ranks, {weft::LinkKind::generic, weft::Bandwidth::gbps(400), weft::Time::us(1)});
  // One loop (chunk = whole buffer), each block sent whole (not in Simple's two slices) and one step
  // in flight: the algorithm SimGrid's actors run.
  weft::Schedule schedule = weft::ring_all_reduce(ranks, weft::Bytes(bytes), {1, weft::Bytes(bytes), 0, false});
  schedule.max_in_flight = 1;
  weft::SimulationResult ours = weft::simulate(schedule, topology, {"flow", 1, {}});
  double weft_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  weft::bench::SimgridRingResult theirs =
      weft::bench::simgrid_ring_all_reduce(static_cast<int>(ranks), static_cast<double>(bytes), rate_bps, latency_s);

  double rel = (ours.time.seconds() - theirs.simulated_seconds) / theirs.simulated_seconds;
  std::printf(
      "ranks=%u bytes=%llu weft_simulated_s=%.9f simgrid_simulated_s=%.9f relative_difference=%.2e "
      "weft_wall_s=%.3f simgrid_wall_s=%.3f speedup=%.1fx\n",
      ranks, static_cast<unsigned long long>(bytes), ours.time.seconds(), theirs.simulated_seconds, rel, weft_wall,
      theirs.wall_seconds, theirs.wall_seconds / weft_wall);
  return 0;
}
