// Measured fits (weft calibrate's PROFILE.network.yaml) in simulations: the regime lookup in closed
// form, and a scenario's `calibration:` timing the collectives whose series was measured.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "collectives/network_calibration.h"
#include "scenarios/network_calibration_file.h"
#include "scenarios/run_scenario.h"
#include "scenarios/scenario.h"
#include "sim/core/errors.h"

using namespace weft;

namespace {

// Two regimes of one all-reduce series on 2 GPUs of one host, every NCCL algorithm/protocol the
// tuner may pick for them: 10 us + bytes / 5 GB/s below 1 MiB, 30 us + bytes / 20 GB/s from 1 MiB.
std::string network_profile() {
  std::string out = "format: weft-network-profile\nversion: 1\nsource: test\nseries:\n";
  for (const char* algorithm : {"ring", "tree"}) {
    for (const char* protocol : {"ll", "ll128", "simple"}) {
      out += fmt::format(
          "  - {{kind: collective, op: all_reduce, ranks: 2, algorithm: {0}, protocol: {1}, link: intra, from_bytes: "
          "0, "
          "alpha_us: 10, beta_GBps: 5}}\n"
          "  - {{kind: collective, op: all_reduce, ranks: 2, algorithm: {0}, protocol: {1}, link: intra, "
          "from_bytes: 1048576, alpha_us: 30, beta_GBps: 20}}\n",
          algorithm, protocol);
    }
  }
  return out;
}

std::filesystem::path write(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("Calibration: the regime that holds at a size gives alpha + bytes / beta", "[unit]") {
  const NetworkCalibration c =
      load_network_calibration(write("weft_cal_unit.network.yaml", network_profile()).string());
  // 64 KiB: 10 us + 65,536 B / 5e9 B/s = 10 + 13.1072 = 23.1072 us.
  CHECK(c.time("collective", "all_reduce", 2, "ring", "simple", "intra", 65536) == Time::ps(23'107'200));
  // 4 MiB: 30 us + 4,194,304 / 20e9 = 30 + 209.7152 = 239.7152 us.
  CHECK(c.time("collective", "all_reduce", 2, "ring", "simple", "intra", 4 << 20) == Time::ps(239'715'200));
  CHECK_FALSE(c.time("collective", "all_reduce", 4, "ring", "simple", "intra", 4096));
  CHECK_FALSE(c.time("collective", "all_reduce", 2, "ring", "simple", "inter", 4096));
  CHECK_THROWS_WITH(load_network_calibration(write("weft_cal_bad.yaml", "format: other\nversion: 1\n").string()),
                    Catch::Contains("not a weft-network-profile"));
}

TEST_CASE("Calibration: a scenario's calibration: times the measured collectives by their fits", "[unit]") {
  write("weft_cal_run.network.yaml", network_profile());
  const std::string scenario =
      "name: calibrated\nsystem: {name: pcie-3090x8-nvlink, nodes: 1}\nworkload:\n"
      "  model: {name: gpt-2-124m, layers: 2}\n  parallel: {tp: 2}\n"
      "  batch: {global: 4, micro: 1}\n  seq_len: 512\n"
      "  calibration: weft_cal_run.network.yaml\n";
  const auto path = write("weft_cal_run.yaml", scenario);
  const ScenarioResult r = run_scenario(load_scenario_file(path.string()));
  size_t calibrated = 0;
  for (const CollectiveStat& c : r.training->replay.collectives) {
    if (c.group != CommGroup::tp || c.op != CollectiveOp::all_reduce) continue;
    REQUIRE(c.algorithm.find("calibrated") != std::string::npos);
    ++calibrated;
    const double bytes = static_cast<double>(c.bytes.count());
    const double us = bytes < 1048576 ? 10 + bytes / 5e3 : 30 + bytes / 20e3;
    CHECK(c.total.microseconds() / static_cast<double>(c.count) == Approx(us).epsilon(1e-9));
  }
  CHECK(calibrated > 0);
  // The data-parallel all-reduce (4 ranks) has no series: it runs as modelled.
  for (const CollectiveStat& c : r.training->replay.collectives) {
    if (c.group == CommGroup::dp) CHECK(c.algorithm.find("calibrated") == std::string::npos);
  }
}
