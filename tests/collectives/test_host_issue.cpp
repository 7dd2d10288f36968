// One host thread driving several GPUs (nccl-tests -g N): a row takes at least N kernel launches.
#include <catch2/catch.hpp>

#include "collectives/host_issue.h"
#include "collectives/sweep.h"
#include "topologies/builders.h"

using namespace weft;

namespace {

SweepRow row_of(uint64_t bytes, Time time) {
  const double algbw = static_cast<double>(bytes) / time.seconds() / 1e9;
  return {Bytes(bytes), bytes / 4, time, algbw, algbw * 1.75, 0};
}

SweepSpec ring_sweep(uint64_t bytes, uint32_t gpus_per_thread) {
  SweepSpec spec;
  spec.min_bytes = spec.max_bytes = Bytes(bytes);
  spec.simulation.fabric = "flow";
  spec.gpus_per_thread = gpus_per_thread;
  return spec;
}

}  // namespace

TEST_CASE("host issue: N eager launches of 3.25 us", "[host_issue]") {
  CHECK(host_issue_time(1) == Time::ns(3'250));
  CHECK(host_issue_time(8) == Time::ns(26'000));
}

TEST_CASE("host issue: a row faster than the host takes the host's time, bandwidths scaled", "[host_issue]") {
  SweepRow row = row_of(1024, Time::us(10));
  charge_host_issue(row, 8);
  CHECK(row.time == Time::us(26));
  CHECK(row.algbw_GBps == Approx(1024 / 26e-6 / 1e9));
  CHECK(row.busbw_GBps == Approx(1.75 * 1024 / 26e-6 / 1e9));
  CHECK(row.note.find("host-bound: one thread launches 8 GPUs' kernels") != std::string::npos);
}

TEST_CASE("host issue: rows the GPUs bind, one GPU per thread and empty rows are unchanged", "[host_issue]") {
  for (auto [bytes, time, g] :
       {std::tuple{1024u, Time::us(30), 8u}, std::tuple{1024u, Time::us(1), 1u}, std::tuple{0u, Time(), 8u}}) {
    SweepRow row = row_of(bytes, time == Time() ? Time::us(1) : time);
    row.time = time;
    const SweepRow before = row;
    charge_host_issue(row, g);
    CHECK(row.time == before.time);
    CHECK(row.note.empty());
  }
}

TEST_CASE("host issue: a sweep with -g 8 is host-bound at 8 B and GPU-bound at 1 GiB", "[host_issue]") {
  const Topology t = build_topology("single-switch", 8, {LinkKind::generic, Bandwidth::gbps(400), Time::ns(250)});
  const SweepRow small_one = sweep_collective(ring_sweep(8, 1), t).front();
  const SweepRow small_eight = sweep_collective(ring_sweep(8, 8), t).front();
  REQUIRE(small_one.time < Time::us(26));  // 14 steps of 2 x 250 ns
  CHECK(small_eight.time == Time::us(26));
  const SweepRow big_one = sweep_collective(ring_sweep(1ULL << 30, 1), t).front();
  const SweepRow big_eight = sweep_collective(ring_sweep(1ULL << 30, 8), t).front();
  CHECK(big_eight.time == big_one.time);
  CHECK(big_eight.note == big_one.note);
}
