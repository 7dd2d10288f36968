// schedule.json / predicted.json / measured.json: exact round trips and the bad-input checks the
// executors rely on (docs/schedule-json.md).
#include <catch2/catch.hpp>

#include "executor/measured_file.h"
#include "executor/schedule_check.h"
#include "executor/schedule_file.h"
#include "sim/core/errors.h"

namespace weft {
namespace {

// Two ranks: a compute op (with a GEMM), an all-reduce on both, a send 0 -> 1, a copy on rank 1.
LoweredSchedule small_schedule() {
  LoweredSchedule s;
  s.name = "small";
  s.source = "test";
  s.gpu = "h100-sxm";
  s.comms.push_back({{0, 1}, "dp", "intra"});
  for (uint32_t r = 0; r < 2; ++r) {
    auto& ops = s.programs.emplace_back();
    LoweredOp c;
    c.id = 0;
    c.kind = LoweredKind::compute;
    c.duration_ps = 123'456'789;
    c.flops = 2.0 * 1024 * 1024 * 1024;
    c.gemm = GemmShape{1024, 1024, 1024, "bf16"};
    c.label = "fwd mlp";
    ops.push_back(c);
    LoweredOp ar;
    ar.id = 1;
    ar.kind = LoweredKind::collective;
    ar.stream = 1;
    ar.deps = {0};
    ar.op = "all_reduce";
    ar.bytes = 1 << 20;
    ar.dtype = "bf16";
    ar.algorithm = "ring";
    ar.protocol = "ll128";
    ar.channels = 8;
    ar.link = "intra";
    ops.push_back(ar);
    LoweredOp p;
    p.id = 2;
    p.kind = r == 0 ? LoweredKind::send : LoweredKind::recv;
    p.stream = 2;
    p.peer = 1 - r;
    p.tag = 7;
    p.bytes = 4096;
    p.link = "intra";
    ops.push_back(p);
  }
  LoweredOp copy;
  copy.id = 3;
  copy.kind = LoweredKind::copy;
  copy.bytes = 1 << 20;
  copy.direction = "h2d";
  s.programs[1].push_back(copy);
  return s;
}

}  // namespace

TEST_CASE("schedule.json round-trips exactly", "[unit][executor]") {
  const LoweredSchedule s = small_schedule();
  check_schedule(s);
  const nlohmann::json j = to_json(s);
  const LoweredSchedule back = schedule_from_json(nlohmann::json::parse(j.dump()), "mem");
  CHECK(to_json(back) == j);
  CHECK(fingerprint(back) == fingerprint(s));
  CHECK(back.programs[0][0].gemm->k == 1024);
  CHECK(back.programs[0][0].duration_ps == 123'456'789);
  CHECK(back.programs[1][3].direction == "h2d");
}

TEST_CASE("schedule.json: bad input is refused with the reason", "[unit][executor]") {
  const LoweredSchedule s = small_schedule();
  SECTION("another version") {
    nlohmann::json j = to_json(s);
    j["version"] = 2;
    REQUIRE_THROWS_WITH(schedule_from_json(j, "f.json"), Catch::Contains("version 2 is not supported"));
  }
  SECTION("an unmatched send") {
    LoweredSchedule bad = s;
    bad.programs[1][2].tag = 8;
    REQUIRE_THROWS_WITH(check_schedule(bad), Catch::Contains("unmatched send/recv"));
  }
  SECTION("members issuing different collectives") {
    LoweredSchedule bad = s;
    bad.programs[1][1].bytes = 2 << 20;
    REQUIRE_THROWS_WITH(check_schedule(bad), Catch::Contains("communicator 0"));
  }
  SECTION("a rank outside the communicator") {
    LoweredSchedule bad = s;
    bad.comms[0].ranks = {0};
    REQUIRE_THROWS_WITH(check_schedule(bad), Catch::Contains("not in communicator"));
  }
  SECTION("ops edited after lowering") {
    nlohmann::json j = to_json(s);
    j["programs"][0]["ops"][0]["duration_ps"] = 1;
    REQUIRE_THROWS_WITH(schedule_from_json(j, "f.json"), Catch::Contains("edited"));
  }
  SECTION("a dependency on a later op") {
    LoweredSchedule bad = s;
    bad.programs[0][0].deps = {1};
    REQUIRE_THROWS_WITH(check_schedule(bad), Catch::Contains("not an earlier op"));
  }
}

TEST_CASE("measured.json round-trips; instances take the last start to the last end", "[unit][executor]") {
  const LoweredSchedule s = small_schedule();
  Measured m;
  m.schedule_name = s.name;
  m.fingerprint = fingerprint(s);
  m.ranks = 2;
  m.executor = "test";
  m.repeats = 3;
  for (uint32_t r = 0; r < 2; ++r) {
    for (const LoweredOp& o : s.programs[r]) {
      MeasuredOp row{r, o.id, o, 2, "x", {}, {}};
      for (int rep = 0; rep < 3; ++rep) {
        // rank 1 arrives 10 us later; the collective ends at 50 + rep on both
        row.start_us.push_back(r == 0 ? 0.0 : 10.0);
        row.end_us.push_back(50.0 + rep);
      }
      m.ops.push_back(row);
    }
  }
  const Measured back = measured_from_json(nlohmann::json::parse(to_json(m).dump()), "mem");
  CHECK(to_json(back) == to_json(m));
  const std::vector<Instance> inst = measured_instances(back);
  // compute on rank 0, the all-reduce, the pair, compute on rank 1, the copy
  REQUIRE(inst.size() == 5);
  CHECK(inst[1].key == "c0.0");
  CHECK(inst[1].members.size() == 2);
  CHECK(inst[1].measured_us == Approx(41.0));  // median over repeats of (50 + rep) - 10
  CHECK(inst[2].key == "p0-1.t7.0");
  nlohmann::json incomplete = to_json(m);
  incomplete["complete"] = false;
  REQUIRE_THROWS_WITH(measured_from_json(incomplete, "m.json"), Catch::Contains("not complete"));
}

}  // namespace weft
