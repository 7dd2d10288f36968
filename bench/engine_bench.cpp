// Engine throughput: schedule + pop with a steady population of pending events.
#include <benchmark/benchmark.h>

#include "sim/core/engine.h"
#include "sim/core/rng.h"

namespace {

// Each event reschedules itself a pseudo-random delay ahead, keeping `population` events pending;
// the reported rate is events (schedule + pop + call) per second.
void BM_EngineScheduleAndPop(benchmark::State& state) {
  const auto population = static_cast<uint32_t>(state.range(0));
  const uint64_t events_per_iteration = 1'000'000;
  for (auto _ : state) {
    weft::Engine engine;
    weft::Rng rng(1, "bench");
    uint64_t remaining = events_per_iteration;
    struct Tick {
      weft::Engine* engine;
      weft::Rng* rng;
      uint64_t* remaining;
      void operator()() const {
        if (*remaining == 0) return;
        --*remaining;
        engine->schedule_in(weft::Time::ps(static_cast<int64_t>(1 + rng->uniform_below(1'000'000))), *this);
      }
    };
    for (uint32_t i = 0; i < population; ++i) engine.schedule_in(weft::Time::ps(i), Tick{&engine, &rng, &remaining});
    engine.run();
    benchmark::DoNotOptimize(engine.events_processed());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events_per_iteration));
}
BENCHMARK(BM_EngineScheduleAndPop)->Arg(1 << 10)->Arg(1 << 16)->Unit(benchmark::kMillisecond);

}  // namespace
