// weft calibrate: the robust fit recovers known latency and bandwidth from noisy measurements with
// outliers; its profile files load back; compare-real refuses a measurement of another schedule.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "executor/calibrate.h"
#include "executor/compare.h"
#include "executor/lower.h"
#include "scenarios/compute_profile_file.h"
#include "sim/core/errors.h"
#include "workloads/compute_model.h"

namespace weft {
namespace {

// A measurement of one all-reduce series on 4 ranks: t = alpha + bytes / beta, each point with 1 %
// Gaussian noise, 5 repeats per size, and every 7th point 3x slower (a preempted run).
Measured synthetic(double alpha_us, double beta_GBps, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.01);
  Measured m;
  m.schedule_name = "synthetic";
  m.fingerprint = "0";
  m.ranks = 4;
  m.executor = "test";
  m.repeats = 1;
  uint32_t id = 0;
  for (uint64_t bytes = 1024; bytes <= (64ull << 20); bytes *= 2) {
    for (int rep = 0; rep < 5; ++rep, ++id) {
      double t = alpha_us + static_cast<double>(bytes) / (beta_GBps * 1e3);
      t *= 1 + noise(rng);
      if (id % 7 == 3) t *= 3;
      LoweredOp o;
      o.id = id;
      o.kind = LoweredKind::collective;
      o.op = "all_reduce";
      o.bytes = bytes;
      o.dtype = "float32";
      o.instance = id;
      o.algorithm = "ring";
      o.protocol = "simple";
      o.link = "inter";
      for (uint32_t r = 0; r < 4; ++r) m.ops.push_back({r, id, o, 4, "ring p2p", {0.0}, {t}});
    }
  }
  return m;
}

}  // namespace

TEST_CASE("calibration recovers known alpha and beta within 1 %", "[unit][executor]") {
  // 25 us and 11.5 GB/s: a 100 Gb/s RoCE ring's order of magnitude.
  const Measured m = synthetic(25.0, 11.5, 42);
  const Calibration c = calibrate(std::span<const Measured>(&m, 1));
  REQUIRE(c.profile.series.size() == 1);
  const LinearFit& f = c.profile.series[0].fit;
  CHECK(f.alpha_us == Approx(25.0).epsilon(0.01));
  CHECK(f.beta_GBps() == Approx(11.5).epsilon(0.01));
  CHECK(f.outliers >= 10);  // 85 points, every 7th one 3x: 12 outliers
  CHECK(f.rms_rel < 0.02);
}

TEST_CASE("the Huber fit is exact on exact data and fits alpha alone for one size", "[unit][executor]") {
  // One size: the latency minimising the relative residuals, sum(1/t) / sum(1/t^2) = (1/4 + 1/6) /
  // (1/16 + 1/36) = 4.615.
  std::vector<FitPoint> pts;
  for (double x : {1e3, 1e4, 1e5, 1e6}) pts.push_back({x, 3.0 + x * 2e-4});
  const LinearFit f = fit_alpha_beta(pts);
  CHECK(f.alpha_us == Approx(3.0).epsilon(1e-9));
  CHECK(f.us_per_byte == Approx(2e-4).epsilon(1e-9));
  const std::vector<FitPoint> one = {{1e3, 4.0}, {1e3, 6.0}};
  CHECK(fit_alpha_beta(one).alpha_us == Approx(60.0 / 13.0));
}

TEST_CASE("a series with two regimes splits where one line cannot follow it", "[unit][executor]") {
  // Up to 512 KiB: 20 us + 10 GB/s (cache-resident); from 1 MiB: 100 us + 1 GB/s (memory-bound).
  Measured m = synthetic(20.0, 10.0, 3);
  for (MeasuredOp& o : m.ops) {
    if (o.op.bytes >= (1u << 20))
      o.end_us[0] = 100.0 + static_cast<double>(o.op.bytes) / 1e3;
    else if (o.id % 7 == 3)
      o.end_us[0] = 20.0 + static_cast<double>(o.op.bytes) / 1e4;  // no outliers here
  }
  const Calibration c = calibrate(std::span<const Measured>(&m, 1));
  REQUIRE(c.profile.series.size() == 2);
  // between 512 KiB and 1 MiB: sqrt(2^19 x 2^20) = 741,455
  CHECK(c.profile.series[1].from_bytes == Approx(741455.2).epsilon(1e-6));
  CHECK(c.profile.series[1].fit.beta_GBps() == Approx(1.0).epsilon(0.01));
  CHECK(c.profile.series[0].fit.alpha_us == Approx(20.0).epsilon(0.02));
  LoweredOp o = m.ops[0].op;
  o.bytes = 16 << 20;
  CHECK(*calibrated_us(c.profile, o, 4) == Approx(100.0 + 16777.216).epsilon(0.01));
}

TEST_CASE("holdout fits half the sizes and predicts the other half", "[unit][executor]") {
  const Measured m = synthetic(25.0, 11.5, 7);
  const Calibration c = calibrate(std::span<const Measured>(&m, 1), CalibrationOptions{true});
  REQUIRE(c.holdout.size() == 8);  // 17 sizes: 9 fitted, 8 predicted
  for (const HoldoutRow& h : c.holdout) CHECK(std::fabs(h.error()) < 0.05);
}

TEST_CASE("calibrate writes a compute profile weft loads and a network profile it reads back", "[unit][executor]") {
  NetworkProfile p;
  p.source = "test";
  p.gpu = "h100-sxm";
  p.gemm_efficiency = 0.7;
  p.memory_efficiency = 0.8;
  p.launch_us = 4.5;
  p.launch_from = "test";
  SeriesFit s{"collective", "all_gather", 4, "ring", "simple", "inter", {}};
  s.fit.alpha_us = 12;
  s.fit.us_per_byte = 1e-4;
  p.series.push_back(s);
  const ComputeProfile cp = parse_compute_profile(compute_profile_yaml(p), "profile.yaml");
  CHECK(cp.resolve("h100-sxm").gemm == Approx(0.7));
  CHECK(cp.resolve("h100-sxm").memory == Approx(0.8));
  const std::string path = "weft_test_network_profile.yaml";
  write_file_atomically(path, network_profile_yaml(p));
  const NetworkProfile back = load_network_profile(path);
  std::remove(path.c_str());
  REQUIRE(back.series.size() == 1);
  CHECK(*back.launch_us == Approx(4.5));
  LoweredOp o;
  o.kind = LoweredKind::collective;
  o.op = "all_gather";
  o.bytes = 1'000'000;
  o.algorithm = "ring";
  o.protocol = "simple";
  o.link = "inter";
  CHECK(*calibrated_us(back, o, 4) == Approx(112.0));
  CHECK_FALSE(calibrated_us(back, o, 8));
}

TEST_CASE("calibrating on the GPU sweep's own predictions gives back the GEMM efficiency they assumed",
          "[unit][executor]") {
  // The sweep times each GEMM with its tile waves (256^3 fills 2 of 132 SMs' slots); calibration
  // takes each shape's waves out again, so every shape class comes back at the full-wave efficiency.
  const Lowered l = lower_gpu_sweep("h100-sxm", 8192, 16 << 20);
  Measured m;
  m.schedule_name = l.schedule.name;
  m.fingerprint = "0";
  m.ranks = 1;
  m.gpu = "h100-sxm";
  m.executor = "test";
  m.repeats = 1;
  for (const PredictedOp& p : l.predicted.ops) {
    const LoweredOp& op = l.schedule.programs[0][p.id];
    m.ops.push_back({0, p.id, op, 1, "cublasGemmEx", {p.start_ps * 1e-6}, {p.end_ps * 1e-6}});
  }
  const Calibration c = calibrate(std::span<const Measured>(&m, 1));
  REQUIRE(c.profile.gemm.size() == 3);
  const double gemm = default_compute_profile(SoftwareStack::y2025).resolve("h100-sxm").gemm;
  for (const GemmFit& g : c.profile.gemm) CHECK(g.efficiency == Approx(gemm).epsilon(1e-4));
}

TEST_CASE("compare-real refuses a measurement of another schedule", "[unit][executor]") {
  Predicted p;
  p.fingerprint = "aaaa";
  Measured m;
  m.fingerprint = "bbbb";
  REQUIRE_THROWS_WITH(compare_real(p, m), Catch::Contains("another schedule"));
}

}  // namespace weft
