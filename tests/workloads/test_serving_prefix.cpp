// Shared prompt prefixes and the prefix cache (requests.h, scheduler.h): the stream's prefixes, a
// prefix's blocks shared by the sequences of its group, kept after they finish and evicted least
// recently used before anything is preempted, and the time a hit saves.
#include <catch2/catch.hpp>

#include <unordered_map>

#include "tests/serving_runs.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/systems.h"

using namespace weft;

namespace {

Sequence with_prefix(uint32_t prompt, uint32_t output, uint32_t prefix, uint32_t group) {
  return Sequence{.prompt = prompt, .output = output, .prefix = prefix, .prefix_group = group};
}

// Runs the scheduler alone until nothing is left, each iteration 1 ms.
void drain(ReplicaScheduler& s, int& clock) {
  std::unordered_map<int64_t, uint64_t> gaps;
  for (ScheduledBatch b = s.schedule(); !b.empty(); b = s.schedule()) s.complete(b, Time::ms(++clock), gaps);
}

}  // namespace

TEST_CASE("a stream with shared prefixes puts one of them before each prompt", "[serving]") {
  RequestStreamSpec stream;
  stream.count = 400;
  stream.prompt = {LengthKind::lognormal, 300, 100, 1, 2000};
  const std::vector<Request> plain = generate_requests(stream, 9);
  stream.prefix_tokens = 1000;
  stream.prefixes = 5;
  const std::vector<Request> shared = generate_requests(stream, 9);
  std::vector<int> used(5, 0);
  for (size_t i = 0; i < shared.size(); ++i) {
    // The prefix is drawn from its own stream: arrivals and lengths stay those of the plain stream.
    CHECK(shared[i].prompt == plain[i].prompt + 1000);
    CHECK(shared[i].arrival == plain[i].arrival);
    CHECK(shared[i].prefix == 1000);
    REQUIRE(shared[i].prefix_group < 5);
    ++used[shared[i].prefix_group];
  }
  for (int n : used) CHECK(n > 40);  // about 80 each
  stream.prefixes = 0;
  CHECK_THROWS_AS(generate_requests(stream, 9), ConfigError);
}

TEST_CASE("the sequences of a prefix group share its cached blocks", "[serving]") {
  // Prefix 1000 tokens = 62 full blocks of 16 (992 tokens); the 8 left are computed by each sequence.
  std::vector<Sequence> seqs{with_prefix(1200, 2, 1000, 7), with_prefix(1100, 2, 1000, 7),
                             with_prefix(1100, 2, 1000, 3)};
  SchedulerLimits limits;
  ReplicaScheduler s(limits, 1000, seqs);
  int clock = 0;
  s.add(0);
  drain(s, clock);
  CHECK(s.prefix_hit_tokens() == 0);
  CHECK(s.blocks_used() == 0);  // the prefix stays cached, and counts as free
  s.add(1);
  s.add(2);
  const ScheduledBatch b = s.schedule();
  REQUIRE(b.items.size() == 2);
  CHECK(b.items[0].tokens == 1100 - 992);  // a hit: only the tokens after the cached blocks
  CHECK(b.items[1].tokens == 1100);        // another group: nothing cached
  CHECK(b.shape.prefill_context == 992);   // the hit's chunk attends to the cached tokens
  CHECK(seqs[1].shared_blocks == 62);
  CHECK(s.blocks_used() == 62 + (1100 - 992 + 15) / 16 + 1100 / 16 + 1);
  CHECK(s.prefix_hit_tokens() == 992);
  std::unordered_map<int64_t, uint64_t> gaps;
  s.complete(b, Time::ms(++clock), gaps);
  drain(s, clock);
  CHECK(s.blocks_used() == 0);
  limits.prefix_caching = false;
  std::vector<Sequence> again{with_prefix(1200, 2, 1000, 7), with_prefix(1100, 2, 1000, 7)};
  ReplicaScheduler off(limits, 1000, again);
  off.add(0);
  drain(off, clock);
  off.add(1);
  CHECK(off.schedule().items[0].tokens == 1100);
  CHECK(off.prefix_hit_tokens() == 0);
}

TEST_CASE("an unused cached prefix is evicted before anything is preempted", "[serving]") {
  // 100 blocks: a cached prefix of 62 leaves 38 free; a 1,500-token prompt of another group needs 94.
  std::vector<Sequence> seqs{with_prefix(1100, 2, 1000, 1), with_prefix(1500, 2, 0, 0), with_prefix(1100, 2, 1000, 1)};
  ReplicaScheduler s(SchedulerLimits{}, 100, seqs);
  int clock = 0;
  s.add(0);
  drain(s, clock);
  s.add(1);
  const ScheduledBatch b = s.schedule();
  REQUIRE(b.items.size() == 1);
  CHECK(b.items[0].tokens == 1500);
  CHECK(seqs[1].preemptions == 0);
  std::unordered_map<int64_t, uint64_t> gaps;
  s.complete(b, Time::ms(++clock), gaps);
  drain(s, clock);
  s.add(2);
  CHECK(s.schedule().items[0].tokens == 1100);  // evicted: group 1 computes its prefix again
  CHECK(s.prefix_hit_tokens() == 0);
}

TEST_CASE("a prefix cache hit shortens the time to first token on the fabric", "[serving]") {
  const ClusterSpec cluster = resolve_system("dgx-h100", 1, {}, "--set");
  const Topology topology = build_cluster(cluster);
  ServingSpec spec;
  spec.model = model("llama-3-8b");
  spec.tp = 2;
  // Two requests of one group, a second apart: the second finds the first's 4,000-token prefix.
  const std::vector<Request> two{{.id = 0, .arrival = Time(), .prompt = 4100, .output = 8, .prefix = 4000},
                                 {.id = 1, .arrival = Time::ms(1000), .prompt = 4100, .output = 8, .prefix = 4000}};
  const ServingOutcome on = weft::test::serve(topology, cluster, spec, two);
  spec.limits.prefix_caching = false;
  const ServingOutcome off = weft::test::serve(topology, cluster, spec, two);
  const auto ttft = [](const ServingOutcome& o, size_t i) {
    return o.run.sequences[i].first_token - o.run.sequences[i].arrival;
  };
  CHECK(on.run.prefix_hit_tokens == 4000);
  CHECK(ttft(on, 0) == ttft(off, 0));
  CHECK(ttft(off, 1) == ttft(off, 0));
  CHECK(ttft(on, 1) * 4 < ttft(on, 0));  // 100 tokens computed instead of 4,100 (plus the host's time)
}
