// Every configuration text weft writes reads back to what was written (the one YAML door, both ways).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "scenarios/compute_profile_file.h"
#include "scenarios/field_yaml.h"
#include "scenarios/network_calibration_file.h"
#include "scenarios/scenario.h"
#include "sim/packet/packet_fields.h"
#include "topologies/systems.h"

using namespace weft;

namespace {

// A source line with everything a hand-made YAML writer gets wrong: quotes, ": ", " #", a newline.
const std::string kAwkwardSource = "fits of \"run 3\": 8x H200 # rack B\nsecond line, 'quoted'";

NetworkCalibration sample_calibration() {
  NetworkCalibration c;
  c.source = kAwkwardSource;
  c.gpu = "h200";
  c.launch_us = 4.25;
  c.launch_from = "median of 6 single-rank collectives of <= 64 KiB";
  // Values exact at the digits written: alpha and beta to 6 significant digits, residuals to 4 places.
  c.series.push_back({"collective", "all_reduce", 8, "ring", "simple", "inter", 0, 41.7, 1.61, {20, 1, 0.28, 0.4375}});
  c.series.push_back(
      {"collective", "all_reduce", 8, "ring", "simple", "inter", 65536, 12.5, 180.25, {9, 0, 0.0625, 0.125}});
  c.series.push_back({"p2p", "send_recv", 2, "", "", "intra", 0, 3.5, 350, {12, 0, 0.01, 0.02}});
  c.gemm.push_back({"large", 0.78, 772, 3});
  return c;
}

}  // namespace

TEST_CASE("round trip: a network calibration reads back field by field", "[scenario]") {
  const NetworkCalibration c = sample_calibration();
  const std::string text = network_calibration_yaml(c);
  const NetworkCalibration back = parse_network_calibration(text, "written.network.yaml");
  CHECK(back.source == c.source);
  CHECK(back.gpu == c.gpu);
  REQUIRE(back.launch_us);
  CHECK(*back.launch_us == *c.launch_us);
  CHECK(back.launch_from == c.launch_from);
  REQUIRE(back.series.size() == c.series.size());
  for (size_t i = 0; i < c.series.size(); ++i) {
    const CalibratedSeries &a = c.series[i], &b = back.series[i];
    CHECK(b.kind == a.kind);
    CHECK(b.op == a.op);
    CHECK(b.ranks == a.ranks);
    CHECK(b.algorithm == a.algorithm);
    CHECK(b.protocol == a.protocol);
    CHECK(b.link == a.link);
    CHECK(b.from_bytes == a.from_bytes);
    CHECK(b.alpha_us == a.alpha_us);
    CHECK(b.beta_GBps == a.beta_GBps);
    CHECK(b.quality.points == a.quality.points);
    CHECK(b.quality.outliers == a.quality.outliers);
    CHECK(b.quality.rms_rel_residual == a.quality.rms_rel_residual);
    CHECK(b.quality.max_rel_residual == a.quality.max_rel_residual);
  }
  REQUIRE(back.gemm.size() == 1);
  CHECK(back.gemm[0].shape_class == "large");
  CHECK(back.gemm[0].efficiency == 0.78);
  CHECK(back.gemm[0].tflops == 772);
  CHECK(back.gemm[0].points == 3);
  // The simulation's lookup sees the same fits: 1 MiB in the second regime, 12.5 + 1048576 / 180.25e3 us.
  CHECK(back.time("collective", "all_reduce", 8, "ring", "simple", "inter", 1 << 20) ==
        c.time("collective", "all_reduce", 8, "ring", "simple", "inter", 1 << 20));
  // Written twice, the same bytes.
  CHECK(network_calibration_yaml(back) == text);
}

TEST_CASE("round trip: an empty calibration is still a valid file", "[scenario]") {
  NetworkCalibration c;
  c.source = "nothing measured";
  const NetworkCalibration back = parse_network_calibration(network_calibration_yaml(c), "empty.yaml");
  CHECK(back.source == "nothing measured");
  CHECK(back.series.empty());
  CHECK_FALSE(back.launch_us);
}

TEST_CASE("round trip: a compute profile reads back to the same efficiencies", "[scenario]") {
  ProfileOverrides file;
  file.source = kAwkwardSource;
  file.all = EfficiencyOverrides{.gemm = 0.75, .memory = 0.9, .norm_backward = 0.5};
  file.gpus.push_back(GpuEfficiencies{"h100-sxm", EfficiencyOverrides{.attention = 0.6125}, ""});
  const std::string text = compute_profile_yaml(file, {"a comment: with a colon"});
  const ComputeProfile back = parse_compute_profile(text, "written.yaml");
  const ComputeProfile expected = with_profile_overrides(file);
  CHECK(back.source == expected.source);
  for (const char* gpu : {"h100-sxm", "a100-80gb", "rtx-3090"}) {
    const Efficiencies a = expected.resolve(gpu), b = back.resolve(gpu);
    CHECK(b.gemm == a.gemm);
    CHECK(b.gemm_fp8 == a.gemm_fp8);
    CHECK(b.attention == a.attention);
    CHECK(b.memory == a.memory);
    CHECK(b.norm == a.norm);
    CHECK(b.norm_backward == a.norm_backward);
  }
  CHECK(back.resolve("a100-80gb").norm_backward == 0.5);
  CHECK(back.resolve("h100-sxm").attention == 0.6125);
  CHECK(back.resolve("a100-80gb").gemm == 0.75);
}

namespace {

const std::string kOneCollective = "workload:\n  collectives:\n    - {op: all_reduce, size: 1M}\n";

// Every field of `fields` shows the same in `a` and `b` (the message names the first that differs).
template <class S>
void check_same_fields(std::span<const Field<S>> fields, const S& a, const S& b) {
  for (const Field<S>& f : fields) {
    INFO(f.key);
    CHECK(f.show(b) == f.show(a));
  }
}

}  // namespace

TEST_CASE("round trip: every preset's system section reads back field by field", "[scenario]") {
  for (const SystemPreset& p : system_presets()) {
    INFO(p.name);
    const ClusterSpec spec = p.spec();
    const std::string text = system_yaml(std::string(p.name), spec);
    const Scenario back = load_scenario_text(text + kOneCollective, "written.yaml");
    check_same_fields(system_fields(), spec, back.system.cluster);
    CHECK(system_yaml(std::string(p.name), back.system.cluster) == text);  // written twice, the same bytes
  }
}

TEST_CASE("round trip: a changed system is the change, not the preset", "[scenario]") {
  ClusterSpec spec = system_spec("dgx-h100");
  set_field(spec, "nodes", "4");
  set_field(spec, "node.pcie_lanes", "8");
  set_field(spec, "network.oversubscription", "3/2");
  const Scenario back = load_scenario_text(system_yaml("dgx-h100", spec) + kOneCollective, "written.yaml");
  CHECK(back.system.cluster.nodes == 4);
  CHECK(back.system.cluster.network.oversubscription == 1.5);
  check_same_fields(system_fields(), spec, back.system.cluster);
}

TEST_CASE("round trip: every packet profile's fabric section reads back field by field", "[scenario]") {
  for (const char* profile : {"roce", "roce-paper", "roce-lossy", "ib", "tcp"}) {
    INFO(profile);
    const packet::PacketConfig config = packet::packet_profile(profile);
    const std::string text = packet_config_yaml(config);
    const std::string system = "system: {topology: single-switch, ranks: 4, link: {rate: 100Gbps, latency: 1us}}\n";
    const Scenario back = load_scenario_text(fmt::format("{}{}{}", system, text, kOneCollective), "written.yaml");
    REQUIRE(back.fabric == "packet");
    REQUIRE(back.fabric_options.packet);
    check_same_fields(packet::packet_fields(), config, *back.fabric_options.packet);
    CHECK(packet_config_yaml(*back.fabric_options.packet) == text);
  }
}
