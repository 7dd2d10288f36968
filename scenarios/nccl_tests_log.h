// Real nccl-tests stdout (all_reduce_perf, all_gather_perf, ...): the header (threads, GPUs per
// thread, the ranks and their hosts, the GPU, NCCL's version, the test when it is named) and the
// table, in every format nccl-tests has printed: with or without the root column, with or without
// the #wrong columns, N/A where a column does not apply.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace weft {

struct NcclTestsTimes {
  double time_us = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
};

struct NcclTestsRow {
  uint64_t bytes = 0;  // nccl-tests' size column
  uint64_t count = 0;
  std::string type;   // float, half, bfloat16, ...
  std::string redop;  // sum, none, ... ("" in logs without the column)
  NcclTestsTimes out_of_place;
  std::optional<NcclTestsTimes> in_place;  // absent where the log prints none
  int line = 0;                            // where the row is in the file
};

struct NcclTestsLog {
  std::string path;
  int threads = 1;           // nThread (-t)
  int gpus_per_thread = 1;   // nGpus (-g): one thread launches on this many GPUs
  int ranks = 0;             // "# Rank N ..." lines
  int nodes = 0;             // distinct host names among them
  std::string gpu;           // the first rank's device name
  std::string nccl_version;  // "2.18.5" when the log prints it, else ""
  std::string op;            // "all_reduce" when the log names its test (..._perf), else ""
  std::vector<NcclTestsRow> rows;
};

// Throws ConfigError "PATH:LINE: column C (NAME): expected ..., got '...'" for a malformed row, and
// for a file with no table.
NcclTestsLog read_nccl_tests_log(const std::string& path);
NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& path);

}  // namespace weft
