// Whole-run benchmark: ring all-reduce of 1 GiB on one switch (400 Gb/s, 1 us per hop) on the flow
// fabric. Usage: weft_ring_scale RANKS [BYTES] [FABRIC]. Run one size per process so that the peak
// memory (getrusage maxrss) belongs to that size.
#include <sys/resource.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "collectives/ring.h"
#include "collectives/simulate.h"
#include "topologies/builders.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s RANKS [BYTES] [FABRIC]\n", argv[0]);
    return 2;
  }
  auto ranks = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  uint64_t bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (1ULL << 30);
  std::string fabric = argc > 3 ? argv[3] : "flow";
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  weft::Topology topology =
      weft::single_switch(ranks, {weft::LinkKind::generic, weft::Bandwidth::gbps(400), weft::Time::us(1)});
  weft::Schedule schedule = weft::ring_all_reduce(ranks, weft::Bytes(bytes));
  auto t1 = Clock::now();
  weft::SimulationResult r = weft::simulate(schedule, topology, {fabric, 1, {}});
  auto t2 = Clock::now();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  double build_s = std::chrono::duration<double>(t1 - t0).count();
  double run_s = std::chrono::duration<double>(t2 - t1).count();
  std::printf(
      "ranks=%u bytes=%llu fabric=%s transfers=%llu events=%llu simulated_s=%.9f build_s=%.3f run_s=%.3f "
      "transfers_per_s=%.3g peak_rss_MiB=%.1f\n",
      ranks, static_cast<unsigned long long>(bytes), fabric.c_str(), static_cast<unsigned long long>(r.transfers),
      static_cast<unsigned long long>(r.events), r.time.seconds(), build_s, run_s,
      static_cast<double>(r.transfers) / run_s, static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
