// Chakra ET export: byte-identical to ASTRA-sim's minimal ETs for the same content, and read back
// by our reader to the same ops, sizes, dependencies and communicators.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include "trace_test_files.h"
#include "workloads/traces/trace.h"

using namespace weft;

namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace

TEST_CASE("Chakra writer: one 1 MiB all-reduce on 8 ranks is byte-identical to ASTRA-sim's ETs", "[unit][traces]") {
  Workload w;
  w.name = "all_reduce_8npus_1MB";
  Communicator world;
  for (uint32_t r = 0; r < 8; ++r) world.ranks.push_back(r);
  const uint32_t comm = w.add_communicator(world);
  for (uint32_t r = 0; r < 8; ++r) {
    Program p;
    Op op;
    op.kind = OpKind::collective;
    op.stream = 1;
    op.comm = comm;
    op.bytes = Bytes(1 << 20);
    op.label = w.label("all_reduce_8npus_1MB");  // ASTRA-sim's generator names the node after the run
    p.add(op);
    w.programs.push_back(p);
    w.gpu_of_rank.push_back(r);
  }
  const auto dir = test::scratch_dir("writer_bytes");
  const auto files = write_chakra_trace(w, (dir / "all_reduce").string());
  REQUIRE(files.size() == 8);  // one communicator of all ranks: no comm-group file
  for (int r = 0; r < 8; ++r) {
    const std::string ours = file_bytes(files[static_cast<size_t>(r)]);
    const std::string theirs =
        file_bytes(test::traces_dir() + "/astra-sim/all_reduce_8npus_1MB/all_reduce." + std::to_string(r) + ".et");
    CHECK(ours.size() == (r == 0 ? 81u : 83u));  // proto3 omits id 0 (reference §6)
    CHECK(ours == theirs);
  }
}

TEST_CASE("Chakra writer: the custom ring round-trips through our reader", "[unit][traces]") {
  const Workload w = read_trace({.pattern = test::astra_ring()});
  const auto dir = test::scratch_dir("writer_ring");
  write_chakra_trace(w, (dir / "ring").string());
  // Read back without eager sends: the deps are then exactly those written (the op's own plus its
  // stream predecessor, which an ET has to spell out), a superset of the original ones.
  const Workload back = read_trace({.pattern = (dir / "ring.{rank}.et").string(), .eager_sends = false});
  REQUIRE(back.ranks() == w.ranks());
  for (uint32_t r = 0; r < w.ranks(); ++r) {
    REQUIRE(back.programs[r].ops.size() == w.programs[r].ops.size());
    for (size_t i = 0; i < w.programs[r].ops.size(); ++i) {
      const Op& a = w.programs[r].ops[i];
      const Op& b = back.programs[r].ops[i];
      CHECK(a.kind == b.kind);
      CHECK(a.bytes == b.bytes);
      CHECK(a.duration == b.duration);
      CHECK(a.peer == b.peer);
      CHECK(a.stream == b.stream);
    }
    for (size_t i = 0; i < w.programs[r].ops.size(); ++i) {
      const Op& a = w.programs[r].ops[i];
      const Op& b = back.programs[r].ops[i];
      const auto first = back.programs[r].deps.begin() + b.first_dep;
      const std::set<uint32_t> got(first, first + b.dep_count);
      for (uint32_t d = a.first_dep; d < a.first_dep + a.dep_count; ++d) CHECK(got.contains(w.programs[r].deps[d]));
    }
  }
  CHECK_NOTHROW(validate(back));
}

TEST_CASE("Chakra writer: compute, all-gather sizes and sub-communicators round-trip", "[unit][traces]") {
  // 4 ranks: two TP pairs {0,1} {2,3} and the world; all-gather written as per-rank input.
  Workload w;
  w.name = "mixed";
  const uint32_t world = w.add_communicator({{0, 1, 2, 3}, CommGroup::dp});
  const uint32_t pair_a = w.add_communicator({{0, 1}, CommGroup::tp});
  const uint32_t pair_b = w.add_communicator({{2, 3}, CommGroup::tp});
  for (uint32_t r = 0; r < 4; ++r) {
    Program p;
    Op c;
    c.duration = Time::us(120);
    c.flops = 1e9;
    c.label = w.label("gemm");
    const uint32_t i0 = p.add(c);
    Op ag;
    ag.kind = OpKind::collective;
    ag.stream = 1;
    ag.collective = CollectiveOp::all_gather;
    ag.comm = r < 2 ? pair_a : pair_b;
    ag.bytes = Bytes(4096);  // total output: 2 x 2,048 B per rank
    ag.label = w.label("tp all-gather");
    const uint32_t i1 = p.add(ag, {i0});
    Op ar = ag;
    ar.collective = CollectiveOp::all_reduce;
    ar.comm = world;
    ar.bytes = Bytes(1'000'000);
    ar.label = w.label("dp all-reduce");
    p.add(ar, {i1});
    w.programs.push_back(p);
    w.gpu_of_rank.push_back(r);
  }
  const auto dir = test::scratch_dir("writer_mixed");
  const auto files = write_chakra_trace(w, (dir / "mixed").string());
  REQUIRE(files.size() == 5);
  CHECK(files.back() == (dir / "mixed.comm_group.json").string());
  const Workload back = read_trace(
      {.pattern = (dir / "mixed.{rank}.et").string(), .comm_group_file = (dir / "mixed.comm_group.json").string()});
  REQUIRE(back.ranks() == 4);
  CHECK_NOTHROW(validate(back));
  for (uint32_t r = 0; r < 4; ++r) {
    const auto& ops = back.programs[r].ops;
    REQUIRE(ops.size() == 3);
    CHECK(ops[0].duration == Time::us(120));
    CHECK(ops[0].flops == 1e9);
    CHECK(ops[1].collective == CollectiveOp::all_gather);
    CHECK(ops[1].bytes == Bytes(4096));  // written as comm_size 2,048, read back x 2
    CHECK(back.communicators[ops[1].comm].ranks == (r < 2 ? std::vector<uint32_t>{0, 1} : std::vector<uint32_t>{2, 3}));
    CHECK(back.communicators[ops[2].comm].ranks.size() == 4);
    CHECK(ops[2].bytes == Bytes(1'000'000));
    CHECK(back.programs[r].deps == w.programs[r].deps);
    CHECK(back.labels[ops[1].label] == "tp all-gather");
  }
}
