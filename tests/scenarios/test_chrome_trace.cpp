// The Chrome/Perfetto trace of a replay (valid JSON, one X event per op, a process per rank, the
// size caps), and what `weft run --out` relies on: the Engine's poll, a replay stopped by it, and
// atomic output files.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "scenarios/chrome_trace.h"
#include "scenarios/output_files.h"
#include "tests/small_model.h"
#include "topologies/catalogue/gpus.h"
#include "topologies/systems.h"
#include "workloads/training.h"

using namespace weft;
using nlohmann::json;

namespace {

// Two layers, TP2 x PP2 x DP2 on one DGX H100 node (8 GPUs): every stream kind but CP and EP, and a
// replay of milliseconds.
Workload small_workload() {
  TrainingSpec s;
  s.model = test::small_model("trace-small", 2);
  s.parallel = {.tp = 2, .dp = 2, .pp = 2};
  s.global_batch = 4;
  s.micro_batch = 1;
  return generate_training(s, catalogue::gpu("h100-sxm"), default_compute_profile());
}

struct Replayed {
  Workload workload = small_workload();
  ClusterSpec cluster = system_spec("dgx-h100");
  Topology topology = build_cluster(cluster);
  ReplayResult result = replay(workload, topology, cluster);
};

const Replayed& replayed() {
  static const Replayed r;  // one replay shared by the cases below (read-only)
  return r;
}

size_t ops_of(const Workload& w, uint32_t ranks) {
  size_t n = 0;
  for (uint32_t r = 0; r < ranks; ++r) n += w.programs[r].ops.size();
  return n;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("Chrome trace: valid JSON, one X event per op, a process per rank", "[unit]") {
  const Replayed& r = replayed();
  const json trace = json::parse(chrome_trace(r.workload, r.result, {.title = "baseline"}));
  std::set<int> processes;
  std::map<std::pair<int, int>, std::string> threads;
  size_t x_events = 0;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["pid"].get<int>());
    if (e["ph"] == "M" && e["name"] == "thread_name")
      threads[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"].get<std::string>();
    if (e["ph"] != "X") continue;
    ++x_events;
    CHECK(e["dur"].get<double>() >= 0);
    CHECK(e["ts"].get<double>() + e["dur"].get<double>() <= r.result.step_time.microseconds() + 1e-6);
  }
  CHECK(x_events == ops_of(r.workload, r.workload.ranks()));
  CHECK(processes.size() == r.workload.ranks());
  CHECK(threads.at({0, 0}) == "compute");
  CHECK(threads.at({0, 1}) == "TP");
  CHECK(trace["otherData"]["title"] == "baseline");
  CHECK(trace["otherData"]["ranks_shown"] == r.workload.ranks());
  CHECK_FALSE(trace["otherData"].contains("note"));
}

TEST_CASE("Chrome trace: communication ops carry bytes and group; counters return to zero", "[unit]") {
  const Replayed& r = replayed();
  const json trace = json::parse(chrome_trace(r.workload, r.result));
  std::map<std::string, double> last;  // per pid and series: the final count
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "comm") {
      CHECK(e["args"]["bytes"].get<uint64_t>() > 0);
      CHECK(e["args"].contains("group"));
      CHECK(e["args"].contains("phase"));
    }
    if (e["ph"] != "C") continue;
    for (const auto& [series, value] : e["args"].items()) last[e["pid"].dump() + series] = value.get<double>();
  }
  CHECK_FALSE(last.empty());
  for (const auto& [series, value] : last) CHECK(value == 0);
}

TEST_CASE("Chrome trace: big runs keep their first ranks and say so", "[unit]") {
  const Replayed& r = replayed();
  json trace = json::parse(chrome_trace(r.workload, r.result, {.max_ranks = 3}));
  std::set<int> pids;
  for (const json& e : trace["traceEvents"]) pids.insert(e["pid"].get<int>());
  CHECK(pids == std::set<int>{0, 1, 2});
  CHECK(trace["otherData"]["ranks_shown"] == 3);
  CHECK(trace["otherData"]["note"].get<std::string>().find("ranks 0-2 of 8") != std::string::npos);
  // An event limit below one rank's events still shows rank 0, whole.
  trace = json::parse(chrome_trace(r.workload, r.result, {.max_events = 1}));
  pids.clear();
  for (const json& e : trace["traceEvents"]) pids.insert(e["pid"].get<int>());
  CHECK(pids == std::set<int>{0});
}

TEST_CASE("Engine poll: called every N events, and false stops run(), the rest stays pending", "[unit]") {
  Engine engine;
  int ran = 0;
  for (int i = 0; i < 100; ++i) engine.schedule_at(Time::ps(i), [&ran] { ++ran; });
  int polls = 0;
  engine.set_poll([&polls] { return ++polls < 3; }, 10);
  CHECK(engine.run() == 30);  // polls after events 10, 20, 30; the third says stop
  CHECK(engine.stopped());
  CHECK(ran == 30);
  CHECK(engine.now() == Time::ps(29));
  engine.set_poll({}, 0);
  CHECK(engine.run() == 70);
  CHECK_FALSE(engine.stopped());
  CHECK(ran == 100);
}

TEST_CASE("Replay: a poll that says stop ends the replay with RunStopped", "[unit]") {
  const Replayed& r = replayed();
  ReplayOptions options;
  uint64_t last_events = 0;
  options.poll_every = 100;
  options.poll = [&last_events](Time, uint64_t events) {
    last_events = events;
    return events < 300;
  };
  CHECK_THROWS_AS(replay(r.workload, r.topology, r.cluster, options), RunStopped);
  CHECK(last_events == 300);
}

TEST_CASE("Output files: atomic writes, summary.json last and absent after a stop", "[unit]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "weft_test_output_files";
  std::filesystem::remove_all(dir);
  std::vector<OutputFile> files{{"a.txt", [] { return std::string("first\n"); }},
                                {"summary.json", [] { return std::string("{}\n"); }}};
  write_files(dir, files);
  CHECK(read(dir / "a.txt") == "first\n");
  CHECK(read(dir / "summary.json") == "{}\n");
  CHECK_FALSE(std::filesystem::exists(dir / ".a.txt.tmp"));
  // A second run stopped after its first file: no summary.json from the first run is left beside it.
  int asked = 0;
  files[0].text = [] { return std::string("second\n"); };
  CHECK_THROWS_AS(write_files(dir, files, [&asked] { return ++asked < 2; }), RunStopped);
  CHECK(read(dir / "a.txt") == "second\n");
  CHECK_FALSE(std::filesystem::exists(dir / "summary.json"));
  std::filesystem::remove_all(dir);
}
