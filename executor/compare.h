// weft compare-real: weft's predicted time per op against the measured one, with the relative
// error, per op and summarised by op class and size band.
#pragma once

#include <string>
#include <vector>

#include "executor/measured_file.h"
#include "executor/schedule_file.h"

namespace weft {

struct ComparedOp {
  Instance instance;
  std::string op_class;  // compute, gemm, all_reduce, ..., send_recv, copy_d2d, ...
  std::string band;      // size band of the bytes (compute: of the predicted time)
  double predicted_us = 0;
  double measured_us = 0;
  double error() const { return measured_us > 0 ? (predicted_us - measured_us) / measured_us : 0; }
};

struct ComparisonRow {
  std::string op_class, band;
  size_t count = 0;
  double median_abs_error = 0;
  double mean_error = 0;  // signed: > 0 weft is slow (over-predicts)
};

struct RealComparison {
  std::vector<ComparedOp> ops;
  std::vector<ComparisonRow> summary;
  double median_abs_error = 0;
};

// ConfigError when the files are of different schedules (fingerprints differ) or an op measured is
// not predicted.
RealComparison compare_real(const Predicted& p, const Measured& m);
std::string format_comparison(const RealComparison& c, size_t max_rows);

}  // namespace weft
