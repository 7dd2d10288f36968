// weft calibrate: fits the model's parameters to measured.json files. Robust least squares (Huber
// IRLS on relative residuals, so 1 KiB and 64 MiB points weigh alike and an outlier cannot drag the
// fit) of t = alpha + bytes / beta per collective series (op, ranks, algorithm, protocol, link class)
// and per link class of point-to-point sends; GEMM efficiency by shape class; HBM efficiency from
// device copies; launch overhead from single-rank collectives.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "executor/measured_file.h"

namespace weft {

struct FitPoint {
  double x = 0;     // bytes
  double t_us = 0;  // measured time
};

struct LinearFit {
  double alpha_us = 0;     // latency: the time of an empty message
  double us_per_byte = 0;  // 1 / effective bandwidth
  size_t points = 0;
  size_t outliers = 0;  // points the Huber weights cut (|relative residual| > 3 robust sigmas)
  double rms_rel = 0;   // RMS relative residual of the inliers
  double max_rel = 0;   // largest |relative residual| of any point
  double beta_GBps() const { return us_per_byte > 0 ? 1e-3 / us_per_byte : 0; }  // 1e9 bytes/s
  double predict_us(double bytes) const { return alpha_us + bytes * us_per_byte; }
};

struct FitOptions {
  double huber_k = 1.345;  // in robust sigmas: 95 % efficiency under Gaussian noise (Huber 1964)
  int iterations = 50;
};

// alpha >= 0 and beta > 0; one distinct size fits alpha alone. Needs at least one point.
LinearFit fit_alpha_beta(std::span<const FitPoint> points, const FitOptions& options = {});

struct SeriesFit {
  std::string kind;  // collective | p2p | copy
  std::string op;    // collective op, "send_recv", or the copy direction
  uint32_t ranks = 0;
  std::string algorithm, protocol, link;
  LinearFit fit;
  // The fit holds from this size up to the next regime's from_bytes. A series splits into two
  // regimes when one line cannot follow it (a cache-resident and a memory-bound range, an eager and
  // a rendezvous protocol): at the split between measured sizes that minimises the summed absolute
  // relative residuals, when that at least halves them (each regime keeps 3+ sizes).
  double from_bytes = 0;
  std::string name() const;  // "all_reduce x4 ring/simple inter"
};

struct GemmFit {
  std::string shape_class;  // small (min dim < 1024) | medium (< 4096) | large
  double efficiency = 0;    // median achieved / dense peak of the dtype
  double tflops = 0;        // median achieved
  size_t points = 0;
};

// What calibrate writes to PROFILE.network.yaml (and reads back for `weft lower --calibration`).
struct NetworkProfile {
  std::string source;
  std::string gpu;                  // catalogue GPU the efficiencies are of ("" when none)
  std::optional<double> launch_us;  // launch overhead
  std::string launch_from;          // how it was found
  std::vector<SeriesFit> series;
  std::vector<GemmFit> gemm;
  std::optional<double> gemm_efficiency;    // of the largest shape class: the compute profile's `gemm`
  std::optional<double> memory_efficiency;  // device-to-device copies: 2 x bytes / time / HBM bandwidth
};

struct HoldoutRow {
  std::string series;
  uint64_t bytes = 0;
  double measured_us = 0, predicted_us = 0;
  double error() const { return (predicted_us - measured_us) / measured_us; }
};

struct CalibrationOptions {
  // Fit each series on every other size (the 1st, 3rd, ...) and predict the others.
  bool holdout = false;
};

struct Calibration {
  NetworkProfile profile;
  std::vector<HoldoutRow> holdout;
};

Calibration calibrate(std::span<const Measured> measurements, const CalibrationOptions& options = {});

// profile.yaml in load_compute_profile's format (workloads/compute_model.h).
std::string compute_profile_yaml(const NetworkProfile& p);
// The rest: launch overhead, series fits with residuals, GEMM classes (docs/schedule-json.md).
std::string network_profile_yaml(const NetworkProfile& p);
NetworkProfile load_network_profile(const std::string& path);

// The calibrated time of `op` (a collective of `comm_ranks` members or a send/recv), or nothing when
// the profile has no series for it.
std::optional<double> calibrated_us(const NetworkProfile& p, const LoweredOp& op, uint32_t comm_ranks);

// Human-readable fit table and holdout summary.
std::string format_calibration(const Calibration& c);

}  // namespace weft
