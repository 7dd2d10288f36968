// LinkTimeline: bytes spread over the interval they crossed a link in, bins that double when the run
// outgrows them (totals conserved), the busiest links relative to their rate; and the link counters
// a replay hands to the Chrome trace.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <numeric>

#include "scenarios/chrome_trace.h"
#include "sim/link_timeline.h"
#include "tests/small_model.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/systems.h"
#include "workloads/training.h"

using namespace weft;

namespace {

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

}  // namespace

TEST_CASE("LinkTimeline: bytes spread evenly over their interval", "[unit]") {
  LinkTimeline t(3, 8, Time::us(1));
  // 1,000 B over [0.5 us, 2.5 us]: 2 us, so 500 B per us: bins 0, 1, 2 get 250, 500, 250.
  t.add(1, Time::ns(500), Time::ns(2500), 1000);
  REQUIRE(t.bins() == 3);
  CHECK(t.bytes(1) == std::vector<double>{250, 500, 250});
  CHECK(t.bytes(0).empty());
  // An instant: all in its bin.
  t.add(2, Time::ns(1200), Time::ns(1200), 64);
  CHECK(t.bytes(2) == std::vector<double>{0, 64, 0});
}

TEST_CASE("LinkTimeline: bins double when the run outgrows them, totals conserved", "[unit]") {
  LinkTimeline t(1, 4, Time::us(1));
  t.add(0, Time(), Time::ns(500), 400);     // bin 0 of 1 us
  t.add(0, Time::us(3), Time::us(4), 100);  // bin 3
  t.add(0, Time::us(9), Time::us(9), 50);   // 9 us >= 4 x 1 us and 4 x 2 us: width 4 us
  CHECK(t.bin_width() == Time::us(4));
  // Bins of 4 us: [0, 4) holds 400 + 100; [4, 8) nothing; [8, 12) the 50.
  CHECK(t.bytes(0) == std::vector<double>{500, 0, 50});
  CHECK(t.total(0) == 550);
}

TEST_CASE("LinkTimeline: the busiest links relative to their rate", "[unit]") {
  ClusterSpec cluster = system_spec("dgx-h100");
  Topology topo = build_cluster(cluster);
  LinkTimeline t(topo.link_count());
  // Find a slow and a fast link: the same bytes make the slow one busier.
  LinkId slow = 0, fast = 0;
  for (LinkId l = 0; l < topo.link_count(); ++l) {
    if (topo.link(l).rate.bps() < topo.link(slow).rate.bps()) slow = l;
    if (topo.link(l).rate.bps() > topo.link(fast).rate.bps()) fast = l;
  }
  REQUIRE(topo.link(slow).rate.bps() < topo.link(fast).rate.bps());
  t.add(fast, Time(), Time::us(1), 1000);
  t.add(slow, Time(), Time::us(1), 1000);
  CHECK(t.busiest(topo, 1) == std::vector<LinkId>{slow});
  CHECK(t.busiest(topo, 5).size() == 2);
}

TEST_CASE("Replay: link series of the busiest links, and their counters in the Chrome trace", "[unit]") {
  TrainingSpec s;
  s.model = test::small_model("links-small", 2);
  s.parallel = {.tp = 2, .dp = 4};
  s.global_batch = 4;
  const Workload w = generate_training(s, catalogue::gpu("h100-sxm"), default_compute_profile());
  const ClusterSpec cluster = system_spec("dgx-h100");
  const Topology topo = build_cluster(cluster);
  ReplayOptions options;
  LinkTimeline timeline(topo.link_count());
  options.sinks.push_back(&timeline);
  const ReplayResult r = replay(w, topo, cluster, options);
  const BusiestLinks links = busiest_links(topo, timeline, 4);
  REQUIRE(links.links.size() == 4);
  CHECK(links.bin > Time());
  for (const LinkSeries& l : links.links) {
    CHECK(l.name.find(" -> ") != std::string::npos);
    CHECK(sum(l.utilisation) > 0);
    for (double u : l.utilisation) CHECK((u >= 0 && u <= 1));
    // The bins cover the step and no more than one bin past it.
    CHECK(static_cast<double>(l.utilisation.size()) * links.bin.seconds() <=
          r.step_time.seconds() + links.bin.seconds());
  }
  const nlohmann::json trace = nlohmann::json::parse(chrome_trace(w, r, {}, links));
  size_t counters = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "C" && e["args"].contains("util %")) {
      ++counters;
      CHECK(e["pid"] == w.ranks());
    }
  }
  CHECK(counters >= 8);  // at least a rise and a closing zero per link
  CHECK(trace["otherData"]["link_counters"].get<std::string>().find("4 busiest links") != std::string::npos);
  // Without link series, the trace says it has none.
  const nlohmann::json bare = nlohmann::json::parse(chrome_trace(w, r));
  CHECK(bare["otherData"]["link_counters"].get<std::string>().starts_with("none"));
}
