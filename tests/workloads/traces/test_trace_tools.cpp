// Data-parallel rescaling, trace summaries and the format option.
#include <catch2/catch.hpp>

#include "sim/core/errors.h"
#include "trace_test_files.h"
#include "workloads/traces/trace.h"

using namespace weft;

TEST_CASE("scale_data_parallel: a 2-rank DDP trace replayed as 8 ranks", "[unit][traces]") {
  const Workload two = read_trace({.files = {test::kineto_resnet()}, .fill_missing_ranks = true});
  const Workload eight = scale_data_parallel(two, 8);
  REQUIRE(eight.ranks() == 8);
  CHECK(eight.gpu_of_rank.size() == 8);
  for (const Communicator& c : eight.communicators) CHECK(c.ranks.size() == 8);
  // Rank r runs rank r mod 2's program: same ops, same all-reduce sizes (the gradient is the gradient).
  for (uint32_t r = 0; r < 8; ++r) {
    REQUIRE(eight.programs[r].ops.size() == two.programs[r % 2].ops.size());
    for (size_t i = 0; i < two.programs[r % 2].ops.size(); ++i) {
      CHECK(eight.programs[r].ops[i].bytes == two.programs[r % 2].ops[i].bytes);
    }
  }
  CHECK_NOTHROW(validate(eight));
  const TraceInfo info = trace_info(eight);
  CHECK(info.ranks == 8);
  CHECK(info.ops_by_kind[static_cast<size_t>(OpKind::collective)] == 8 * 7);
}

TEST_CASE("scale_data_parallel refuses point-to-point and sub-communicator traces", "[unit][traces]") {
  const Workload ring = read_trace({.pattern = test::astra_ring()});
  CHECK_THROWS_WITH(scale_data_parallel(ring, 16), Catch::Contains("point-to-point"));
  Workload tp = read_trace({.pattern = test::astra_all_reduce()});
  tp.communicators[0].ranks = {0, 1, 2, 3};
  CHECK_THROWS_WITH(scale_data_parallel(tp, 16), Catch::Contains("not a purely data-parallel"));
  CHECK_THROWS_AS(scale_data_parallel(ring, 0), ConfigError);
}

TEST_CASE("trace_info: collectives by type, size and communicator", "[unit][traces]") {
  const Workload w = read_trace({.pattern = test::astra_all_reduce()});
  const TraceInfo info = trace_info(w);
  CHECK(info.ranks == 8);
  REQUIRE(info.collectives.size() == 1);
  CHECK(info.collectives[0].op == CollectiveOp::all_reduce);
  CHECK(info.collectives[0].bytes == Bytes(1'048'576));
  CHECK(info.collectives[0].ranks == 8);
  CHECK(info.collectives[0].count == 8);  // one per rank
  const std::string text = format_trace_info(info);
  CHECK_THAT(text, Catch::Contains("all_reduce") && Catch::Contains("1048576") && Catch::Contains("8 ranks"));
}

TEST_CASE("parse_trace_format names the options", "[unit][traces]") {
  CHECK(parse_trace_format("chakra") == TraceFormat::chakra);
  CHECK(parse_trace_format("kineto") == TraceFormat::kineto);
  CHECK(parse_trace_format("chakra_json") == TraceFormat::chakra_json);
  CHECK(parse_trace_format("auto") == TraceFormat::automatic);
  CHECK_THROWS_WITH(parse_trace_format("nsys"), Catch::Contains("chakra") && Catch::Contains("kineto"));
}
