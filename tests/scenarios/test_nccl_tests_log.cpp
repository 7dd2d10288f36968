// Real nccl-tests stdout in its several formats, and the errors a malformed log gets.
#include <catch2/catch.hpp>

#include "scenarios/nccl_tests_compare.h"
#include "scenarios/nccl_tests_log.h"
#include "sim/core/errors.h"

using namespace weft;

namespace {

// The header and first rows as current nccl-tests prints them (root column, #wrong columns); the
// out-of-place values of the 8 B and 16 B rows are the dgxc-benchmarking DGX H100 rows of
// ../shared/validation (its 8 B in-place time too); hosts and the 16 B in-place time are made up.
constexpr const char* kNewFormat = R"(# Collective test starting: all_reduce_perf
# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  1001 on dgx-a device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  1002 on dgx-a device  1 [0x2a] NVIDIA H100 80GB HBM3
#  Rank  2 Group  0 Pid  2001 on dgx-b device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  3 Group  0 Pid  2002 on dgx-b device  1 [0x2a] NVIDIA H100 80GB HBM3
NCCL version 2.18.5+cuda12.2
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    13.67    0.00    0.00      0    13.03    0.00    0.00      0
          16             4     float     sum      -1    13.00    0.00    0.00      0    12.95    0.00    0.00      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0.00
)";

// The format of nccl-tests in 2019 (no root column, "error" values); the out-of-place values are the
// 2 x RTX 2080 Ti rows of ../shared/validation (nccl-tests issue 44), the in-place ones made up.
constexpr const char* kOldFormat =
    R"(# nThread 1 nGpus 2 minBytes 32768 maxBytes 65536 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
#   Rank  0 Pid  31337 on   box device  0 [0x01] GeForce RTX 2080 Ti
#   Rank  1 Pid  31337 on   box device  1 [0x02] GeForce RTX 2080 Ti
       32768          8192   float     sum    13.39   1.22   1.22  0e+00    11.85   1.38   1.38  0e+00
       65536         16384   float     sum    16.57   1.98   1.98  0e+00    16.50   1.99   1.99  0e+00
)";

}  // namespace

TEST_CASE("nccl-tests log: header, ranks, hosts, version and rows of the current format", "[nccl-tests]") {
  const NcclTestsLog log = parse_nccl_tests_log(kNewFormat, "new.log");
  CHECK(log.op == "all_reduce");
  CHECK(log.threads == 1);
  CHECK(log.gpus_per_thread == 1);
  CHECK(log.ranks == 4);
  CHECK(log.nodes == 2);
  CHECK(log.gpu == "NVIDIA H100 80GB HBM3");
  CHECK(log.nccl_version == "2.18.5");
  REQUIRE(log.rows.size() == 2);
  CHECK(log.rows[0].bytes == 8);
  CHECK(log.rows[0].count == 2);
  CHECK(log.rows[0].type == "float");
  CHECK(log.rows[0].redop == "sum");
  CHECK(log.rows[0].out_of_place.time_us == 13.67);
  REQUIRE(log.rows[0].in_place);
  CHECK(log.rows[0].in_place->time_us == 13.03);
  CHECK(log.rows[1].line == 15);
}

TEST_CASE("nccl-tests log: the 2019 format without the root column, -g 2", "[nccl-tests]") {
  const NcclTestsLog log = parse_nccl_tests_log(kOldFormat, "old.log");
  CHECK(log.gpus_per_thread == 2);
  CHECK(log.ranks == 2);
  CHECK(log.nodes == 1);
  CHECK(log.op.empty());  // the log does not name its test: --op says it
  REQUIRE(log.rows.size() == 2);
  CHECK(log.rows[1].bytes == 65536);
  CHECK(log.rows[1].out_of_place.time_us == 16.57);
  CHECK(log.rows[1].out_of_place.busbw_GBps == 1.98);
  CHECK(log.rows[1].in_place->time_us == 16.50);
}

TEST_CASE("nccl-tests log: N/A in-place columns and rows without #wrong", "[nccl-tests]") {
  const NcclTestsLog log = parse_nccl_tests_log(
      "  1048576  262144 float none -1 27.37 38.31 67.04 N/A N/A N/A N/A N/A\n"
      "  2097152  524288 float none -1 42.21 49.68 86.94 42.00 49.93 87.38\n",
      "na.log");
  REQUIRE(log.rows.size() == 2);
  CHECK_FALSE(log.rows[0].in_place);
  CHECK(log.rows[1].in_place->time_us == 42.00);
}

TEST_CASE("nccl-tests log: malformed logs are clear errors", "[nccl-tests]") {
  CHECK_THROWS_WITH(parse_nccl_tests_log("  8 2 float sum -1 abc 0.00 0.00 0 13.0 0.0 0.0 0\n", "bad.log"),
                    Catch::Contains("bad.log:1: column 6 (time): expected a number, got 'abc'"));
  CHECK_THROWS_WITH(parse_nccl_tests_log("  8 2 float sum -1 13.67 0.00\n", "short.log"),
                    Catch::Contains("short.log:1: column") && Catch::Contains("6 or 8 numbers"));
  CHECK_THROWS_WITH(parse_nccl_tests_log("# nThread 1 nGpus 1\n# nothing ran\n", "empty.log"),
                    Catch::Contains("empty.log: no nccl-tests table"));
  CHECK_THROWS_WITH(parse_nccl_tests_log("  8 x float sum -1 1 1 1 0 1 1 1 0\n", "count.log"),
                    Catch::Contains("count.log:1: column 2 (count)"));
  CHECK_THROWS_WITH(read_nccl_tests_log("/nonexistent/nccl.log"), Catch::Contains("cannot open"));
}
