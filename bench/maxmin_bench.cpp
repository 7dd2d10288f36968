// Max-min solver speed on the two shapes that dominate collectives: an incast (one shared link) and
// an all-to-all through one switch (every flow shares its uplink and downlink).
#include <benchmark/benchmark.h>
#include <vector>

#include "sim/maxmin.h"

namespace {

void BM_MaxMinIncast(benchmark::State& state) {
  const auto senders = static_cast<uint32_t>(state.range(0));
  weft::MaxMinSolver solver;
  for (auto _ : state) {
    solver.clear();
    uint32_t shared = solver.add_link(400'000'000'000);
    for (uint32_t i = 0; i < senders; ++i) {
      uint32_t up = solver.add_link(400'000'000'000);
      std::vector<uint32_t> path{up, shared};
      solver.add_flow(path);
    }
    solver.solve();
    benchmark::DoNotOptimize(solver.rate(0));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * senders));
}
BENCHMARK(BM_MaxMinIncast)->Arg(64)->Arg(1024)->Arg(16384);

void BM_MaxMinAllToAll(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  weft::MaxMinSolver solver;
  for (auto _ : state) {
    solver.clear();
    for (uint32_t i = 0; i < 2 * n; ++i)
      solver.add_link(100'000'000'000 + 1'000'000'000ULL * (i % 7));  // uplinks, downlinks
    for (uint32_t i = 0; i < n; ++i) {
      for (uint32_t j = 0; j < n; ++j) {
        if (i == j) continue;
        std::vector<uint32_t> path{i, n + j};
        solver.add_flow(path);
      }
    }
    solver.solve();
    benchmark::DoNotOptimize(solver.rate(0));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n * (n - 1)));
}
BENCHMARK(BM_MaxMinAllToAll)->Arg(16)->Arg(64)->Arg(256);

}  // namespace
