// Chakra ET and feeder-JSON import, against the facts of ../shared/traces/SOURCES.md.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <fstream>
#include <map>
#include <set>

#include "sim/core/errors.h"
#include "trace_test_files.h"
#include "workloads/traces/chakra_json_reader.h"
#include "workloads/traces/chakra_reader.h"
#include "workloads/traces/trace.h"

using namespace weft;
using weft::test::collective_bytes;

namespace {

size_t count_kind(const Workload& w, uint32_t rank, OpKind kind) {
  size_t n = 0;
  for (const Op& o : w.programs[rank].ops) n += o.kind == kind;
  return n;
}

}  // namespace

TEST_CASE("Chakra ResNet-50 DDP rank 0: node counts and schema", "[unit][traces]") {
  const ChakraFile f = read_chakra_file(test::chakra_resnet());
  CHECK(f.messages == 3665);  // GlobalMetadata + 3,664 nodes
  CHECK(f.schema == "1.0.1");
  CHECK(f.node_types[4] == 3643);  // COMP_NODE
  CHECK(f.node_types[7] == 21);    // COMM_COLL_NODE
  CHECK(f.cpu_collectives == 14);  // c10d::allreduce_ / broadcast_ host ops: not network collectives
  CHECK(f.trace.nodes.size() == 3664);
}

TEST_CASE("Chakra ResNet-50 DDP rank 0: exactly the 7 GPU collectives, sizes as recorded", "[unit][traces]") {
  TraceMetadata meta;
  const Workload w = read_trace({.files = {test::chakra_resnet()}}, &meta);
  REQUIRE(w.ranks() == 1);
  CHECK(meta.format == TraceFormat::chakra);
  CHECK(meta.dropped_cpu_collectives == 14);
  CHECK(count_kind(w, 0, OpKind::collective) == 7);
  // The five DDP buckets (sum 102,228,128 B = 25.56 M fp32 parameters) and the two broadcasts.
  CHECK(collective_bytes(w, 0, CollectiveOp::all_reduce) ==
        std::multiset<uint64_t>{8'196'000, 31'502'336, 26'255'360, 26'550'272, 9'724'160});
  CHECK(collective_bytes(w, 0, CollectiveOp::broadcast) == std::multiset<uint64_t>{212'480, 424});
  CHECK(count_kind(w, 0, OpKind::compute) == 3643);  // every COMP node, GPU on stream 0, CPU on the host stream
  REQUIRE(w.communicators.size() == 1);
  CHECK(w.communicators[0].group == CommGroup::dp);
  CHECK_NOTHROW(validate(w));
  // Deps refer to earlier ops (topological order of the 719 forward references in the file).
  for (const Op& op : w.programs[0].ops) {
    for (uint32_t d = op.first_dep; d < op.first_dep + op.dep_count; ++d)
      CHECK(w.programs[0].deps[d] < w.programs[0].ops.size());
  }
}

TEST_CASE("Chakra: a 2-rank DDP trace from rank 0 replicated validates", "[unit][traces]") {
  TraceSource s{.pattern = test::traces_dir() + "/chakra/resnet50_ddp_2gpu.rank{rank}.et", .ranks = 2u};
  CHECK_THROWS_AS(read_trace(s), ConfigError);  // rank 1 file missing
  s.fill_missing_ranks = true;
  const Workload w = read_trace(s);
  REQUIRE(w.ranks() == 2);
  CHECK(w.communicators[0].ranks == std::vector<uint32_t>{0, 1});
  CHECK_NOTHROW(validate(w));
}

TEST_CASE("ASTRA-sim microbenchmark: 8 ranks, one 1 MiB all-reduce each", "[unit][traces]") {
  const Workload w = read_trace({.pattern = test::astra_all_reduce()});
  REQUIRE(w.ranks() == 8);
  CHECK(w.name == "all_reduce");
  for (uint32_t r = 0; r < 8; ++r) {
    REQUIRE(w.programs[r].ops.size() == 1);
    const Op& op = w.programs[r].ops[0];
    CHECK(op.kind == OpKind::collective);
    CHECK(op.collective == CollectiveOp::all_reduce);
    CHECK(op.bytes == Bytes(1'048'576));
    CHECK(op.stream == 1);
    CHECK(op.group == CommGroup::dp);
  }
  REQUIRE(w.communicators.size() == 1);
  CHECK(w.communicators[0].ranks.size() == 8);
  CHECK_NOTHROW(validate(w));
}

TEST_CASE("ASTRA-sim custom ring ETs: 14 sends, 14 recvs of 128 KiB, 7 computes per rank; they pair up",
          "[unit][traces]") {
  const Workload w = read_trace({.pattern = test::astra_ring()});
  REQUIRE(w.ranks() == 8);
  for (uint32_t r = 0; r < 8; ++r) {
    CHECK(count_kind(w, r, OpKind::send) == 14);
    CHECK(count_kind(w, r, OpKind::recv) == 14);
    CHECK(count_kind(w, r, OpKind::compute) == 7);
    for (const Op& op : w.programs[r].ops) {
      if (op.kind == OpKind::send) CHECK(op.peer == (r + 1) % 8);  // ring: send right, receive from left
      if (op.kind == OpKind::recv) CHECK(op.peer == (r + 7) % 8);
      if (op.kind != OpKind::compute) CHECK(op.bytes == Bytes(131'072));  // 1 MiB / 8
    }
  }
  CHECK_NOTHROW(validate(w));
}

TEST_CASE("Chakra ET: gzip is read like the plain file", "[unit][traces]") {
  const auto dir = test::scratch_dir("gzip");
  for (int r = 0; r < 8; ++r) {
    std::ifstream in(
        test::traces_dir() + "/astra-sim/custom_ring_allreduce_8npus_1MB/custom_allreduce." + std::to_string(r) + ".et",
        std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    gzFile out = gzopen((dir / ("ring." + std::to_string(r) + ".et")).c_str(), "wb");
    gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(out);
  }
  const Workload plain = read_trace({.pattern = test::astra_ring()});
  const Workload gz = read_trace({.pattern = (dir / "ring.{rank}.et").string()});
  REQUIRE(gz.ranks() == 8);
  for (uint32_t r = 0; r < 8; ++r) {
    REQUIRE(gz.programs[r].ops.size() == plain.programs[r].ops.size());
    CHECK(gz.programs[r].deps == plain.programs[r].deps);
  }
}

TEST_CASE("Chakra feeder JSON: the same ResNet trace, 3,664 nodes", "[unit][traces]") {
  const auto dir = test::extracted("chakra/resnet50_ddp_2gpu_json.tar.gz", "chakra_json");
  REQUIRE(!dir.empty());
  const ChakraFile f = read_chakra_json_file((dir / "jsonData/chakra.0.json").string());
  CHECK(f.messages == 3664);
  CHECK(f.node_types[4] == 3643);
  CHECK(f.node_types[7] == 21);
  CHECK(f.cpu_collectives == 14);
  TraceMetadata meta;
  const Workload w = read_trace({.files = {(dir / "jsonData/chakra.0.json").string()}}, &meta);
  CHECK(meta.format == TraceFormat::chakra_json);  // detected by content
  // The sample carries no comm_type / comm_size: collectives come from kernel names, 0 bytes.
  CHECK(collective_bytes(w, 0, CollectiveOp::all_reduce).size() == 5);
  CHECK(collective_bytes(w, 0, CollectiveOp::broadcast).size() == 2);
  CHECK(count_kind(w, 0, OpKind::compute) == 3643);
  const ChakraFile small = read_chakra_json_file((dir / "jsonData/small_chakra.0.json").string());
  CHECK(small.messages == 7);
}

TEST_CASE("Chakra: bad inputs are ConfigErrors naming the file and node", "[unit][traces]") {
  const auto dir = test::scratch_dir("bad_chakra");
  std::ifstream in(test::traces_dir() + "/astra-sim/custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et",
                   std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const std::string truncated = (dir / "t.et").string();
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  CHECK_THROWS_WITH(read_chakra_file(truncated), Catch::Contains("t.et") && Catch::Contains("truncated"));
  // Old proto2-era ETs and garbage do not parse as GlobalMetadata.
  const std::string garbage = (dir / "g.et").string();
  std::ofstream(garbage, std::ios::binary) << std::string("\x05\xff\xff\xff\xff\xff", 6);
  CHECK_THROWS_AS(read_chakra_file(garbage), ConfigError);
  // A cycle: two nodes depending on each other.
  RankTrace cyc{"cycle.et", {}};
  TraceNode a{.id = 1, .kind = TraceNodeKind::compute, .name = "a", .deps = {2}};
  TraceNode b{.id = 2, .kind = TraceNodeKind::compute, .name = "b", .deps = {1}};
  cyc.nodes = {a, b};
  Workload w;
  TraceGraphBuilder builder(w, 1, {});
  CHECK_THROWS_WITH(builder.add_rank(0, cyc), Catch::Contains("cycle.et") && Catch::Contains("cycle through node id"));
  // A send whose recv is missing: only rank 0 of the ring, replicated, cannot pair.
  TraceSource one{.pattern = test::astra_ring(), .ranks = 8u};
  const Workload ring = read_trace(one);
  Workload broken = ring;
  broken.programs[1].ops.clear();
  broken.programs[1].deps.clear();
  CHECK_THROWS_AS(validate(broken), ConfigError);
}
