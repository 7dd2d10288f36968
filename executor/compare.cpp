#include "executor/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "sim/core/errors.h"

namespace weft {
namespace {

std::string op_class(const LoweredOp& o) {
  switch (o.kind) {
    case LoweredKind::compute:
      return o.gemm ? "gemm" : "compute";
    case LoweredKind::collective:
      return o.op;
    case LoweredKind::send:
    case LoweredKind::recv:
      return "send_recv";
    case LoweredKind::copy:
      return "copy_" + o.direction;
  }
  return "?";
}

std::string band_of(const LoweredOp& o, double predicted_us) {
  if (o.kind == LoweredKind::compute) {
    return predicted_us < 10 ? "<10us" : predicted_us < 100 ? "10-100us" : predicted_us < 1000 ? "0.1-1ms" : ">=1ms";
  }
  const uint64_t b = o.bytes;
  return b < 64 * 1024 ? "<64KiB" : b < (1 << 20) ? "64KiB-1MiB" : b < (16 << 20) ? "1-16MiB" : ">=16MiB";
}

}  // namespace

RealComparison compare_real(const Predicted& p, const Measured& m) {
  if (p.fingerprint != m.fingerprint) {
    throw ConfigError(
        fmt::format("the measurement is of another schedule: predicted for '{}' (fingerprint {}), measured "
                    "'{}' (fingerprint {}); lower and run the same schedule.json",
                    p.schedule_name, p.fingerprint, m.schedule_name, m.fingerprint));
  }
  std::map<std::pair<uint32_t, uint32_t>, const PredictedOp*> pred;
  for (const PredictedOp& o : p.ops) pred[{o.rank, o.id}] = &o;
  RealComparison c;
  std::map<std::pair<std::string, std::string>, std::vector<double>> groups;
  std::vector<double> all;
  for (const Instance& i : measured_instances(m)) {
    int64_t start = INT64_MIN, end = INT64_MIN;
    for (auto [rank, id] : i.members) {
      auto it = pred.find({rank, id});
      if (it == pred.end())
        throw ConfigError(fmt::format("rank {} op {} was measured but has no prediction", rank, id));
      start = std::max(start, it->second->start_ps);
      end = std::max(end, it->second->end_ps);
    }
    ComparedOp op{i, op_class(i.op), "", static_cast<double>(end - start) * 1e-6, i.measured_us};
    op.band = band_of(i.op, op.predicted_us);
    groups[{op.op_class, op.band}].push_back(op.error());
    all.push_back(std::fabs(op.error()));
    c.ops.push_back(std::move(op));
  }
  for (auto& [key, errs] : groups) {
    std::vector<double> abs_errs;
    double sum = 0;
    for (double e : errs) {
      abs_errs.push_back(std::fabs(e));
      sum += e;
    }
    c.summary.push_back({key.first, key.second, errs.size(), median(abs_errs), sum / static_cast<double>(errs.size())});
  }
  c.median_abs_error = median(all);
  return c;
}

std::string format_comparison(const RealComparison& c, size_t max_rows) {
  std::string out = fmt::format("{:<22} {:<14} {:>12} {:>13} {:>13} {:>8}\n", "instance", "class", "bytes",
                                "predicted us", "measured us", "error");
  size_t n = 0;
  for (const ComparedOp& o : c.ops) {
    if (n++ == max_rows) {
      out += fmt::format("... {} more (--rows to show them)\n", c.ops.size() - max_rows);
      break;
    }
    out += fmt::format("{:<22} {:<14} {:>12} {:>13.2f} {:>13.2f} {:>7.1f}%\n", o.instance.key, o.op_class,
                       o.instance.op.bytes, o.predicted_us, o.measured_us, 100 * o.error());
  }
  out += fmt::format("\n{:<14} {:<12} {:>6} {:>16} {:>12}\n", "class", "band", "ops", "median |error|", "mean error");
  for (const ComparisonRow& r : c.summary) {
    out += fmt::format("{:<14} {:<12} {:>6} {:>15.1f}% {:>11.1f}%\n", r.op_class, r.band, r.count,
                       100 * r.median_abs_error, 100 * r.mean_error);
  }
  out += fmt::format("all ops: median |error| = {:.2f} % over {} ops\n", 100 * c.median_abs_error, c.ops.size());
  return out;
}

}  // namespace weft
