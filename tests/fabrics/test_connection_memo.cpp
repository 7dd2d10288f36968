// ConnectionMemo (sim/fabric.h): a transfer started on a sender's memo of its connection moves exactly
// as one started plainly (same arrival, same bytes on every link), on every fabric; the flow fabric
// remembers an inter-host route and queue pair, never an NVLink-striped one, and looks again when the
// transfer's connection is not the one remembered.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sim/simulation.h"
#include "tests/fabrics/flow_bench.h"

using namespace weft;
using weft::testing::two_dgx_h100;

namespace {

struct Run {
  std::vector<int64_t> arrivals;  // ps, by transfer
  std::vector<std::pair<uint32_t, uint64_t>> link_bytes;
  std::vector<ConnectionMemo> memos;
};

// 240 transfers on 2 DGX H100 from 12 senders, each with a fixed entropy and alternating between a
// GPU of the other host and one of its own: memo k is sender k's, reused for both destinations.
Run run(const Topology& t, const std::string& fabric, bool with_memo) {
  Simulation sim(t, SimulationSetup{fabric, 1});
  Run out{std::vector<int64_t>(240, -1), {}, std::vector<ConnectionMemo>(12)};
  testing::Xorshift random{0x5EED};
  std::vector<Transfer> transfers;
  for (uint32_t i = 0; i < 240; ++i) {
    const uint32_t k = i % 12;
    const uint32_t src = k % 8 + 8 * (k / 8);  // senders 0-7 on host 0, 8-11 on host 1
    const uint32_t dst = (i / 12) % 2 == 0 ? (src + 8) % 16 : src / 8 * 8 + (src + 1) % 8;
    transfers.push_back({t.gpus()[src], t.gpus()[dst], Bytes(4096 + random.next(1 << 20)), 0, 7 + k % 3, i});
  }
  for (uint32_t i = 0; i < 240; ++i) {
    const auto at = Time::ns(static_cast<int64_t>(random.next(200'000)));
    sim.engine().schedule_at(at, [&sim, &out, &transfers, i, with_memo] {
      auto done = [&sim, &out, i] { out.arrivals[i] = sim.engine().now().ps(); };
      if (with_memo) {
        sim.fabric().start_connected(transfers[i], done, out.memos[i % 12]);
      } else {
        sim.fabric().start(transfers[i], done);
      }
    });
  }
  sim.run();
  for (const LinkStats& l : sim.fabric().link_stats()) out.link_bytes.emplace_back(l.link, l.wire.count());
  return out;
}

}  // namespace

TEST_CASE("connection memo: transfers started on a memo move as plain ones, on every fabric", "[connection_memo]") {
  const Topology t = two_dgx_h100();
  for (const std::string fabric : {"flow", "analytic", "packet"}) {
    CAPTURE(fabric);
    const Run plain = run(t, fabric, false);
    const Run memo = run(t, fabric, true);
    CHECK(std::count(plain.arrivals.begin(), plain.arrivals.end(), -1) == 0);
    CHECK(memo.arrivals == plain.arrivals);
    CHECK(memo.link_bytes == plain.link_bytes);
  }
}

TEST_CASE("connection memo: the flow fabric remembers inter-host routes, not NVLink stripes", "[connection_memo]") {
  const Topology t = two_dgx_h100();
  Simulation sim(t, SimulationSetup{"flow", 1});
  const PathSet* stripes = nullptr;
  sim.router().route(t.gpus()[0], t.gpus()[1], 0, stripes);
  REQUIRE(stripes != nullptr);  // inside a DGX H100, a transfer is striped over its NVLinks
  ConnectionMemo memo;
  int arrived = 0;
  sim.fabric().start_connected(
      {t.gpus()[0], t.gpus()[1], Bytes(1 << 20), 0, 5}, [&arrived] { ++arrived; }, memo);
  CHECK(memo.route == nullptr);
  const Transfer across{t.gpus()[0], t.gpus()[9], Bytes(1 << 20), 0, 5};
  sim.fabric().start_connected(
      across, [&arrived] { ++arrived; }, memo);
  CHECK(memo.holds(across));
  CHECK(memo.route == &sim.router().route(across.src, across.dst, across.entropy));
  sim.run();
  CHECK(arrived == 2);
}
