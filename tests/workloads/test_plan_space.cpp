// The parallel plans of a training step (workloads/plan_space.h): every plan uses all GPUs, runs
// (check()) and fits (training_memory); tp stays in the NVLink domain; the counts add up.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "sim/core/errors.h"
#include "tests/small_model.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/model.h"
#include "workloads/plan_space.h"

using namespace weft;

namespace {

TrainingSpec small_step(uint32_t global_batch) {
  TrainingSpec s;
  s.model = test::small_model();
  s.global_batch = global_batch;
  s.seq_len = 1024;
  return s;
}

}  // namespace

TEST_CASE("plan space: every plan runs, fits and uses every GPU; tp stays in the NVLink domain", "[unit][plan]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  const PlanSpace space = parallel_plans(small_step(16), h100, {16, 8});
  REQUIRE(!space.plans.empty());
  CHECK(space.considered == space.plans.size() + space.impossible + space.too_big);
  std::set<std::string> names;
  for (const TrainingSpec& s : space.plans) {
    CHECK(s.parallel.world() == 16);
    CHECK(s.parallel.tp <= 8);
    CHECK(s.sequence_parallel == (s.parallel.tp > 1));
    CHECK_NOTHROW(check(s, 16, h100));
    CHECK(training_memory(s, h100).fits());
    names.insert(plan_name(s));
  }
  CHECK(names.size() == space.plans.size());  // no plan twice
  // The small model fits everywhere; what is left out cannot run: 16 heads allow tp up to 8 here,
  // 4 layers pp up to 4, and the batch of 16 limits dp x micro-batch.
  CHECK(space.too_big == 0);
  CHECK(names.count("tp 8 pp 2 dp 1 cp 1 ep 1 zero 0 recompute off mb 1 vs 1 sp on") == 1);
  CHECK(names.count("tp 1 pp 1 dp 16 cp 1 ep 1 zero 3 recompute on mb 1 vs 1 sp off") == 1);
  CHECK(names.count("tp 1 pp 8 dp 2 cp 1 ep 1 zero 0 recompute off mb 1 vs 1 sp off") == 0);  // 4 layers
}

TEST_CASE("plan space: context parallelism only while each rank keeps min_cp_tokens of a sequence", "[unit][plan]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  TrainingSpec step = small_step(16);
  auto most_cp = [&](uint32_t min_cp_tokens) {
    uint32_t most = 0;
    for (const TrainingSpec& s : parallel_plans(step, h100, {16, 8, true, true, min_cp_tokens}).plans) {
      most = std::max(most, s.parallel.cp);
    }
    return most;
  };
  CHECK(most_cp(4096) == 1);  // 1,024 tokens: too short to split
  CHECK(most_cp(512) == 2);
  CHECK(most_cp(0) == 16);  // every cp the GPUs allow
  step.seq_len = 8192;
  CHECK(most_cp(4096) == 2);  // NeMo's Llama 3.1 70B recipe: 8,192 tokens over cp 2
}

TEST_CASE("plan space: fixed ZeRO and recompute keep the base plan's", "[unit][plan]") {
  TrainingSpec base = small_step(16);
  base.sharding = Sharding::zero1;
  base.recompute = true;
  const PlanSpace space = parallel_plans(base, catalogue::gpu("h100-sxm"), {16, 8, false, false});
  REQUIRE(!space.plans.empty());
  for (const TrainingSpec& s : space.plans) {
    CHECK(s.sharding == Sharding::zero1);
    CHECK(s.recompute);
  }
}

TEST_CASE("plan space: the base plan is a candidate even where the grid does not hold it, once", "[unit][plan]") {
  const catalogue::GpuSpec& h100 = catalogue::gpu("h100-sxm");
  TrainingSpec base = small_step(48);
  base.parallel = {.tp = 2, .dp = 8};
  base.micro_batch = 3;  // no power of two: the grid's micro-batches are 1, 2
  base.sequence_parallel = false;
  const PlanSpace space = parallel_plans(base, h100, {16, 8});
  REQUIRE(!space.plans.empty());
  CHECK(plan_name(space.plans.back()) == "tp 2 pp 1 dp 8 cp 1 ep 1 zero 0 recompute off mb 3 vs 1 sp off");
  base.micro_batch = 2;  // in the grid, but with sequence parallelism off
  CHECK(plan_name(parallel_plans(base, h100, {16, 8}).plans.back()) == plan_name(base));
  base.sequence_parallel = true;  // the grid's own: no second copy
  const PlanSpace again = parallel_plans(base, h100, {16, 8});
  std::set<std::string> names;
  for (const TrainingSpec& s : again.plans) names.insert(plan_name(s));
  CHECK(names.size() == again.plans.size());
  CHECK(names.count(plan_name(base)) == 1);
  CHECK(again.plans.size() + 1 == space.plans.size());  // the grid, and the first base once
}

TEST_CASE("plan space: Llama 3.1 405B on 16 H100 has no plan that fits; the closest is named", "[unit][plan]") {
  // 405 B parameters x 16 B (mixed-precision Adam) / 16 GPUs = 405 GB a GPU even fully sharded.
  TrainingSpec s;
  s.model = model("llama-3.1-405b");
  s.global_batch = 16;
  s.seq_len = 8192;
  const PlanSpace space = parallel_plans(s, catalogue::gpu("h100-sxm"), {16, 8});
  CHECK(space.plans.empty());
  CHECK(space.too_big > 0);
  REQUIRE(space.closest);
  CHECK(space.closest_memory->total() > space.closest_memory->capacity);
  // The least memory splits the weights 16 ways (tp 8 x pp 2; dp 1 leaves ZeRO nothing to shard).
  CHECK(space.closest->parallel.tp * space.closest->parallel.pp * space.closest->parallel.cp == 16);
}

TEST_CASE("plan space: a cluster without GPUs or a step without a batch is a clear error", "[unit][plan]") {
  CHECK_THROWS_AS(parallel_plans(small_step(16), catalogue::gpu("h100-sxm"), {0, 8}), ConfigError);
  CHECK_THROWS_WITH(parallel_plans(small_step(0), catalogue::gpu("h100-sxm"), {16, 8}),
                    Catch::Contains("global batch"));
}
