#include "executor/calibrate.h"

#include "collectives/network_calibration.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "scenarios/compute_profile_file.h"
#include "scenarios/network_calibration_file.h"
#include "scenarios/yaml_reader.h"
#include "sim/core/errors.h"
#include "topologies/catalogue/gpus.h"
#include "workloads/compute_model.h"
#include "workloads/gemm_waves.h"

namespace weft {
namespace {

// Weighted least squares of t = a + g x with weights w.
std::pair<double, double> solve(std::span<const FitPoint> p, const std::vector<double>& w, bool with_alpha) {
  double sw = 0, sx = 0, st = 0, sxx = 0, sxt = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    sw += w[i];
    sx += w[i] * p[i].x;
    st += w[i] * p[i].t_us;
    sxx += w[i] * p[i].x * p[i].x;
    sxt += w[i] * p[i].x * p[i].t_us;
  }
  if (with_alpha) {
    const double det = sw * sxx - sx * sx;
    if (det > 1e-12 * sw * sxx) {
      const double g = (sw * sxt - sx * st) / det;
      const double a = (st - g * sx) / sw;
      if (a >= 0 && g > 0) return {a, g};
      if (g <= 0) return {st / sw, 0};
    } else {
      return {st / sw, 0};  // one distinct size: the latency alone
    }
  }
  return {0, sxx > 0 ? sxt / sxx : 0};  // through the origin (a negative intercept is not physical)
}

std::string shape_class(const GemmShape& g) {
  const uint64_t d = std::min({g.m, g.n, g.k});
  return d < 1024 ? "small" : d < 4096 ? "medium" : "large";
}

using SeriesKey = std::tuple<std::string, std::string, uint32_t, std::string, std::string, std::string>;

SeriesFit series_of(const SeriesKey& k) {
  return SeriesFit{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), std::get<4>(k), std::get<5>(k), {}};
}

// Which series an instance belongs to, if any.
std::optional<SeriesKey> key_of(const Instance& i) {
  const LoweredOp& o = i.op;
  if (o.kind == LoweredKind::collective && i.ranks > 1) {
    return SeriesKey{"collective", o.op, i.ranks, o.algorithm, o.protocol, o.link};
  }
  if (o.kind == LoweredKind::send || o.kind == LoweredKind::recv)
    return SeriesKey{"p2p", "send_recv", 2, "p2p", "", o.link};
  if (o.kind == LoweredKind::copy) return SeriesKey{"copy", o.direction, 1, "", "", ""};
  return std::nullopt;
}

double l1_cost(std::span<const FitPoint> pts, const LinearFit& f) {
  double sum = 0;
  for (const FitPoint& p : pts) sum += std::fabs((p.t_us - f.predict_us(p.x)) / p.t_us);
  return sum;
}

// One regime, or two split at the best boundary between distinct sizes (see SeriesFit::from_bytes).
std::vector<SeriesFit> fit_regimes(const SeriesKey& key, std::vector<FitPoint> pts) {
  std::sort(pts.begin(), pts.end(), [](const FitPoint& a, const FitPoint& b) { return a.x < b.x; });
  std::vector<double> sizes;
  for (const FitPoint& p : pts) {
    if (sizes.empty() || sizes.back() != p.x) sizes.push_back(p.x);
  }
  SeriesFit one = series_of(key);
  one.fit = fit_alpha_beta(pts);
  const double cost_one = l1_cost(pts, one.fit);
  constexpr size_t kMinSizes = 3;
  double best = 0.5 * cost_one;  // a split must at least halve the residuals
  std::vector<SeriesFit> out{one};
  for (size_t cut = kMinSizes; cut + kMinSizes <= sizes.size(); ++cut) {
    const auto mid = std::find_if(pts.begin(), pts.end(), [&](const FitPoint& p) { return p.x >= sizes[cut]; });
    const std::span<const FitPoint> lo(pts.data(), static_cast<size_t>(mid - pts.begin()));
    const std::span<const FitPoint> hi(pts.data() + lo.size(), pts.size() - lo.size());
    SeriesFit a = series_of(key), b = series_of(key);
    a.fit = fit_alpha_beta(lo);
    b.fit = fit_alpha_beta(hi);
    const double cost = l1_cost(lo, a.fit) + l1_cost(hi, b.fit);
    if (cost < best) {
      best = cost;
      b.from_bytes = std::sqrt(sizes[cut - 1] * sizes[cut]);  // the geometric middle of the gap
      out = {a, b};
    }
  }
  return out;
}

double predict_regimes(const std::vector<SeriesFit>& regimes, double x) {
  const SeriesFit* pick = &regimes.front();
  for (const SeriesFit& r : regimes) {
    if (r.from_bytes <= x) pick = &r;
  }
  return pick->fit.predict_us(x);
}

// Fits one series; with holdout, on every other distinct size, predicting the rest.
std::vector<SeriesFit> fit_series(const SeriesKey& key, const std::vector<FitPoint>& pts, bool holdout,
                                  std::vector<HoldoutRow>& rows) {
  std::set<double> sizes;
  for (const FitPoint& p : pts) sizes.insert(p.x);
  std::set<double> train;
  size_t n = 0;
  for (double x : sizes) {
    if (!holdout || sizes.size() < 4 || n % 2 == 0) train.insert(x);
    ++n;
  }
  std::vector<FitPoint> fit_pts;
  for (const FitPoint& p : pts) {
    if (train.contains(p.x)) fit_pts.push_back(p);
  }
  std::vector<SeriesFit> regimes = fit_regimes(key, fit_pts);
  if (holdout && train.size() < sizes.size()) {
    std::map<double, std::vector<double>> held;
    for (const FitPoint& p : pts) {
      if (!train.contains(p.x)) held[p.x].push_back(p.t_us);
    }
    for (const auto& [x, ts] : held) {
      rows.push_back({regimes.front().name(), static_cast<uint64_t>(x), median(ts), predict_regimes(regimes, x)});
    }
  }
  return regimes;
}

void fit_gemms(const std::vector<Instance>& inst, const std::string& gpu, NetworkProfile& p) {
  if (gpu.empty()) return;
  const catalogue::GpuSpec& spec = catalogue::gpu(gpu);
  std::map<std::string, std::vector<std::pair<double, double>>> by_class;  // efficiency, TFLOP/s
  for (const Instance& i : inst) {
    if (i.op.kind != LoweredKind::compute || !i.op.gemm || i.measured_us <= 0) continue;
    const GemmShape& g = *i.op.gemm;
    const double rate = g.flops() / (i.measured_us * 1e-6);
    const Precision p = g.dtype == "float32" ? Precision::tf32 : parse_precision(g.dtype);
    // The profile's efficiency is the full-wave one the training model multiplies by each GEMM's
    // wave efficiency (workloads/gemm_waves.h), so the measured shape's own waves come out of it, and
    // so does its output's unhidden write (gemm_cost), a time no efficiency scales.
    const double waves = wave_efficiency(g.m, g.n, static_cast<uint32_t>(spec.sms));
    const double write_s = unhidden_write_seconds(spec, gemm_output_bytes(p)) * static_cast<double>(g.m * g.n);
    const double compute_s = i.measured_us * 1e-6 - write_s;
    if (compute_s <= 0) continue;  // faster than its output can be written: not a GEMM time to learn from
    by_class[shape_class(g)].emplace_back(g.flops() / compute_s / (peak_flops(spec, p) * waves), rate / 1e12);
  }
  for (const char* c : {"small", "medium", "large"}) {
    auto it = by_class.find(c);
    if (it == by_class.end()) continue;
    std::vector<double> eff, tf;
    for (auto [e, t] : it->second) {
      eff.push_back(e);
      tf.push_back(t);
    }
    p.gemm.push_back({c, median(eff), median(tf), eff.size()});
  }
  if (!p.gemm.empty()) p.gemm_efficiency = std::clamp(p.gemm.back().efficiency, 1e-3, 1.0);
}

void find_launch(const std::vector<Instance>& inst, NetworkProfile& p) {
  std::vector<double> small;
  for (const Instance& i : inst) {
    if (i.op.kind == LoweredKind::collective && i.ranks == 1 && i.op.bytes <= 64 * 1024) small.push_back(i.measured_us);
  }
  if (!small.empty()) {
    p.launch_us = median(small);
    p.launch_from = fmt::format("median of {} single-rank collectives of <= 64 KiB", small.size());
    return;
  }
  for (const SeriesFit& s : p.series) {
    if (s.kind == "collective" && (!p.launch_us || s.fit.alpha_us < *p.launch_us)) {
      p.launch_us = s.fit.alpha_us;
      p.launch_from = fmt::format("the smallest collective latency ({})", s.name());
    }
  }
}

}  // namespace

std::string SeriesFit::name() const {
  if (kind == "collective") return fmt::format("{} x{} {}/{} {}", op, ranks, algorithm, protocol, link);
  if (kind == "p2p") return fmt::format("send_recv {}", link);
  return fmt::format("copy {}", op);
}

LinearFit fit_alpha_beta(std::span<const FitPoint> p, const FitOptions& options) {
  if (p.empty()) throw ConfigError("calibrate: a series with no measurements");
  std::set<double> xs;
  for (const FitPoint& q : p) xs.insert(q.x);
  const bool with_alpha = true;
  std::vector<double> base(p.size()), w(p.size()), r(p.size());
  for (size_t i = 0; i < p.size(); ++i) base[i] = 1.0 / std::max(p[i].t_us * p[i].t_us, 1e-18);
  w = base;
  double a = 0, g = 0, scale = 0;
  for (int it = 0; it < options.iterations; ++it) {
    std::tie(a, g) = solve(p, w, with_alpha && xs.size() >= 1);
    if (xs.size() == 1) g = 0;
    for (size_t i = 0; i < p.size(); ++i) r[i] = (p[i].t_us - a - g * p[i].x) / p[i].t_us;
    std::vector<double> abs_r(r.size());
    std::transform(r.begin(), r.end(), abs_r.begin(), [](double v) { return std::fabs(v); });
    scale = std::max(1.4826 * median(abs_r), 1e-9);  // MAD -> sigma for Gaussian noise
    std::vector<double> next(p.size());
    for (size_t i = 0; i < p.size(); ++i) {
      const double u = std::fabs(r[i]) / (options.huber_k * scale);
      next[i] = base[i] * (u <= 1 ? 1.0 : 1.0 / u);
    }
    if (next == w) break;
    w = std::move(next);
  }
  LinearFit f{a, g, p.size(), 0, 0, 0};
  double sum = 0;
  size_t inliers = 0;
  for (double v : r) {
    f.max_rel = std::max(f.max_rel, std::fabs(v));
    if (std::fabs(v) > 3 * std::max(scale, 0.01)) {
      ++f.outliers;
    } else {
      sum += v * v;
      ++inliers;
    }
  }
  f.rms_rel = inliers ? std::sqrt(sum / static_cast<double>(inliers)) : 0;
  return f;
}

Calibration calibrate(std::span<const Measured> measurements, const CalibrationOptions& options) {
  if (measurements.empty()) throw ConfigError("calibrate: no measurements");
  Calibration c;
  std::vector<Instance> all;
  std::vector<std::string> sources;
  for (const Measured& m : measurements) {
    const std::vector<Instance> inst = measured_instances(m);
    all.insert(all.end(), inst.begin(), inst.end());
    if (!m.gpu.empty()) c.profile.gpu = m.gpu;
    sources.push_back(fmt::format("{} ({}, {})", m.schedule_name, m.executor, m.environment.value("host", "?")));
  }
  c.profile.source = "weft calibrate of " + fmt::format("{}", fmt::join(sources, "; "));
  std::map<SeriesKey, std::vector<FitPoint>> series;
  for (const Instance& i : all) {
    if (auto key = key_of(i); key && i.measured_us > 0)
      series[*key].push_back({static_cast<double>(i.op.bytes), i.measured_us});
  }
  for (const auto& [key, pts] : series) {
    for (SeriesFit& f : fit_series(key, pts, options.holdout, c.holdout)) c.profile.series.push_back(std::move(f));
  }
  fit_gemms(all, c.profile.gpu, c.profile);
  for (const SeriesFit& s : c.profile.series) {
    if (s.kind == "copy" && s.op == "d2d" && !c.profile.gpu.empty() && s.fit.us_per_byte > 0) {
      // a device copy reads and writes every byte: HBM traffic is twice the bytes copied
      const double hbm = catalogue::gpu(c.profile.gpu).memory_bandwidth;
      c.profile.memory_efficiency = std::clamp(2e6 / s.fit.us_per_byte / hbm, 1e-3, 1.0);
    }
  }
  find_launch(all, c.profile);
  if (c.profile.series.empty() && c.profile.gemm.empty() && !c.profile.launch_us) {
    throw ConfigError("calibrate: nothing to fit (no collectives of 2+ ranks, sends, copies or GEMMs measured)");
  }
  return c;
}

std::string compute_profile_yaml(const NetworkProfile& p) {
  ProfileOverrides file;
  file.source = p.source;
  if (p.gemm_efficiency || p.memory_efficiency) {
    const EfficiencyOverrides fitted{.gemm = p.gemm_efficiency, .memory = p.memory_efficiency};
    if (p.gpu.empty()) {
      file.all = fitted;
    } else {
      file.gpus.push_back(GpuEfficiencies{p.gpu, fitted, ""});
    }
  }
  return compute_profile_yaml(file, {"weft calibrate: compute efficiencies (load_compute_profile format, "
                                     "workloads/compute_model.h).",
                                     "The network fits are in the .network.yaml file next to this one."});
}

namespace {

// The simulator's data type (collectives/network_calibration.h), written by the one door.
NetworkCalibration to_calibration(const NetworkProfile& p) {
  NetworkCalibration c{.source = p.source, .gpu = p.gpu, .launch_us = p.launch_us, .launch_from = p.launch_from};
  for (const SeriesFit& s : p.series) {
    c.series.push_back(CalibratedSeries{s.kind, s.op, s.ranks, s.algorithm, s.protocol, s.link, s.from_bytes,
                                        s.fit.alpha_us, s.fit.beta_GBps(),
                                        FitQuality{s.fit.points, s.fit.outliers, s.fit.rms_rel, s.fit.max_rel}});
  }
  for (const GemmFit& g : p.gemm) c.gemm.push_back(GemmClassFit{g.shape_class, g.efficiency, g.tflops, g.points});
  return c;
}

}  // namespace

std::string network_profile_yaml(const NetworkProfile& p) { return network_calibration_yaml(to_calibration(p)); }

// The file is read by the simulator's reader (collectives/network_calibration.h), the one reader of
// the format; the fits come back as SeriesFit for prediction here.
NetworkProfile load_network_profile(const std::string& path) {
  const NetworkCalibration c = load_network_calibration(path);
  NetworkProfile p;
  p.source = c.source;
  p.gpu = c.gpu;
  p.launch_us = c.launch_us;
  p.launch_from = c.launch_from;
  for (const CalibratedSeries& s : c.series) {
    SeriesFit f{s.kind, s.op, s.ranks, s.algorithm, s.protocol, s.link, {}};
    f.fit.alpha_us = s.alpha_us;
    f.fit.us_per_byte = 1e-3 / s.beta_GBps;
    f.fit.points = s.quality.points;
    f.fit.outliers = s.quality.outliers;
    f.fit.rms_rel = s.quality.rms_rel_residual;
    f.fit.max_rel = s.quality.max_rel_residual;
    f.from_bytes = s.from_bytes;
    p.series.push_back(f);
  }
  for (const GemmClassFit& g : c.gemm) p.gemm.push_back(GemmFit{g.shape_class, g.efficiency, g.tflops, g.points});
  return p;
}

std::optional<double> calibrated_us(const NetworkProfile& p, const LoweredOp& op, uint32_t comm_ranks) {
  Instance i;
  i.op = op;
  i.ranks = op.kind == LoweredKind::collective ? comm_ranks : 2;
  const std::optional<SeriesKey> key = key_of(i);
  if (!key) return std::nullopt;
  std::vector<SeriesFit> regimes;
  for (const SeriesFit& s : p.series) {
    if (SeriesKey{s.kind, s.op, s.ranks, s.algorithm, s.protocol, s.link} == *key) regimes.push_back(s);
  }
  if (regimes.empty()) return std::nullopt;
  std::sort(regimes.begin(), regimes.end(),
            [](const SeriesFit& a, const SeriesFit& b) { return a.from_bytes < b.from_bytes; });
  return predict_regimes(regimes, static_cast<double>(op.bytes));
}

std::string format_calibration(const Calibration& c) {
  const NetworkProfile& p = c.profile;
  std::string out = fmt::format("{:<44} {:>10} {:>11} {:>11} {:>6} {:>5} {:>9} {:>9}\n", "series", "from B", "alpha us",
                                "beta GB/s", "points", "outl", "rms res", "max res");
  for (const SeriesFit& s : p.series) {
    out += fmt::format("{:<44} {:>10.0f} {:>11.3f} {:>11.4f} {:>6} {:>5} {:>8.2f}% {:>8.2f}%\n", s.name(), s.from_bytes,
                       s.fit.alpha_us, s.fit.beta_GBps(), s.fit.points, s.fit.outliers, 100 * s.fit.rms_rel,
                       100 * s.fit.max_rel);
  }
  for (const GemmFit& g : p.gemm) {
    out += fmt::format("gemm {:<7} efficiency {:.3f} ({:.1f} TFLOP/s, {} GEMMs)\n", g.shape_class, g.efficiency,
                       g.tflops, g.points);
  }
  if (p.memory_efficiency) out += fmt::format("memory efficiency (d2d copies) {:.3f}\n", *p.memory_efficiency);
  if (p.launch_us) out += fmt::format("launch overhead {:.3f} us ({})\n", *p.launch_us, p.launch_from);
  if (!c.holdout.empty()) {
    std::vector<double> errs;
    out += fmt::format("\nheld-out sizes (fit on the others):\n{:<44} {:>12} {:>12} {:>12} {:>8}\n", "series", "bytes",
                       "measured us", "predicted us", "error");
    for (const HoldoutRow& h : c.holdout) {
      out += fmt::format("{:<44} {:>12} {:>12.2f} {:>12.2f} {:>7.1f}%\n", h.series, h.bytes, h.measured_us,
                         h.predicted_us, 100 * h.error());
      errs.push_back(std::fabs(h.error()));
    }
    out += fmt::format("holdout median |error| = {:.2f} % over {} sizes\n", 100 * median(errs), errs.size());
  }
  return out;
}

}  // namespace weft
