// weft's prediction of every row of a real nccl-tests log (`weft collective --compare LOG`): the log
// gives the ranks, nodes, test and NCCL version; the request names the catalogue system (a log cannot
// say which fabric it ran on) and may add NCCL_ALGO/NCCL_PROTO. Errors per row and per size band.
#pragma once

#include <string>
#include <vector>

#include "scenarios/collective_request.h"
#include "scenarios/nccl_tests_log.h"
#include "scenarios/report.h"

namespace weft {

struct ComparedRow {
  NcclTestsRow measured;
  double measured_us = 0;  // out-of-place, or in-place when asked
  double measured_busbw = 0;
  SweepRow predicted;
  double error = 0;  // (predicted - measured) / measured
};

struct Comparison {
  NcclTestsLog log;
  std::string op;
  std::string version;  // the tuner's NCCL version used
  std::string version_note;
  std::string system;
  int nodes = 0;
  std::vector<ComparedRow> rows;
};

// Throws ConfigError when the request lacks a system, when the log contradicts it (ranks, nodes, op)
// or names a test weft cannot run.
Comparison compare_nccl_tests(const std::string& log_path, CollectiveRequest request, bool in_place);

std::string format_comparison(const Comparison& c, OutputFormat format);

}  // namespace weft
