// PyTorch profiler (Kineto) import against ../shared/traces/SOURCES.md, cross-checked with Chakra.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "sim/core/errors.h"
#include "trace_test_files.h"
#include "workloads/traces/chakra_reader.h"
#include "workloads/traces/kineto_reader.h"
#include "workloads/traces/trace.h"

using namespace weft;
using weft::test::collective_bytes;

namespace {}  // namespace

TEST_CASE("Kineto ResNet DDP rank 0: world size, kernels, the 26,550,272-byte bucket", "[unit][traces]") {
  // The whole trace: 3 profiler steps x (5 all-reduce + 2 broadcast) NCCL kernels. SOURCES.md's
  // "30 allreduce, 12 broadcast" counts the events carrying `Collective name`: each kernel's
  // record_param_comms twin doubles them (15 + 15, 6 + 6).
  const KinetoRank whole = read_kineto_file(test::kineto_resnet(), {.whole_trace = true});
  CHECK(whole.world_size == 2);
  CHECK(whole.rank == 0u);
  CHECK(whole.backend == "nccl");
  CHECK(whole.nccl_kernels.at(CollectiveOp::all_reduce) == 15);
  CHECK(whole.nccl_kernels.at(CollectiveOp::broadcast) == 6);
  REQUIRE(whole.groups.contains("0"));
  CHECK(whole.groups.at("0") == std::vector<uint32_t>{0, 1});

  TraceMetadata meta;
  const Workload w = read_trace({.files = {test::kineto_resnet()}, .fill_missing_ranks = true}, &meta);
  CHECK(meta.format == TraceFormat::kineto);
  CHECK(meta.world_size == 2);
  CHECK(meta.step == 4u);  // the first ProfilerStep (#4, #5, #6 recorded)
  REQUIRE(w.ranks() == 2);
  // In_msg nelems x 4 B (Float): the same five buckets as the Chakra ET of the same model.
  const auto ar = collective_bytes(w, 0, CollectiveOp::all_reduce);
  CHECK(ar.count(26'550'272) == 1);  // 6,637,568 x 4
  CHECK(ar.size() == 5);
  CHECK(collective_bytes(w, 0, CollectiveOp::broadcast).size() == 2);
  CHECK(collective_bytes(w, 0, CollectiveOp::broadcast).count(212'480) == 1);  // 53,120 x 4
  CHECK_NOTHROW(validate(w));
}

TEST_CASE("Kineto and Chakra readers agree on the ResNet-50 DDP buckets", "[unit][traces]") {
  const Workload k = read_trace({.files = {test::kineto_resnet()}, .fill_missing_ranks = true});
  const Workload c = read_trace({.files = {test::chakra_resnet()}});
  CHECK(collective_bytes(k, 0, CollectiveOp::all_reduce) == collective_bytes(c, 0, CollectiveOp::all_reduce));
}

TEST_CASE("Kineto: step selection, compute merged between collectives, dependencies", "[unit][traces]") {
  const Workload s5 = read_trace({.files = {test::kineto_resnet()}, .step = 5u, .fill_missing_ranks = true});
  CHECK(collective_bytes(s5, 0, CollectiveOp::all_reduce).size() == 5);
  CHECK_THROWS_WITH(read_trace({.files = {test::kineto_resnet()}, .step = 9u, .fill_missing_ranks = true}),
                    Catch::Contains("ProfilerStep#9") && Catch::Contains("4, 5, 6"));
  const Workload w = read_trace({.files = {test::kineto_resnet()}, .fill_missing_ranks = true});
  const Program& p = w.programs[0];
  size_t compute = 0, idle = 0;
  Time busy;
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    const Op& op = p.ops[i];
    if (op.kind == OpKind::compute) {
      const bool gap = w.labels[op.label].find("idle") != std::string::npos;
      (gap ? idle : compute) += 1;
      if (!gap) busy += op.duration;
      CHECK(op.duration > Time());
    }
    if (op.kind == OpKind::collective) {
      CHECK(op.stream == 1);       // NCCL's stream 40 -> 1; the compute stream 7 -> 0
      REQUIRE(op.dep_count >= 1);  // waits for the compute launched before it
      CHECK(p.ops[p.deps[op.first_dep]].kind == OpKind::compute);
    }
  }
  // Step 4's ~900 compute kernels become 10 ops: the 7 collective launches cut the compute stream
  // into 8 runs, and 2 kernels that started within 50 us of an all-reduce's end on an idle stream
  // (inferred waits) start a run of their own, depending on that all-reduce. Each run is its kernels'
  // busy time, then the GPU's idle time between them (the host's launches) as an op of its own:
  // 9 of the 10 runs have gaps.
  CHECK(compute == 10);
  CHECK(idle == 9);
  // The non-NCCL GPU work of step 4 (ProfilerStep#4, 222.4 ms on the host): 900 kernels, 320
  // memcpys and 38 memsets, 39.392 ms busy in all (summed from the JSON by hand): a host-bound step,
  // the GPU waits most of the time.
  CHECK(busy.seconds() * 1e3 == Approx(39.391994).epsilon(1e-6));
  size_t waits = 0;
  for (const Op& op : p.ops) {
    if (op.kind != OpKind::compute) continue;
    for (uint32_t d = op.first_dep; d < op.first_dep + op.dep_count; ++d)
      waits += p.ops[p.deps[d]].kind == OpKind::collective;
  }
  CHECK(waits == 2);
  // compute_scale re-costs the kernels, not the host's gaps between them.
  const Workload half =
      read_trace({.files = {test::kineto_resnet()}, .compute_scale = 0.5, .fill_missing_ranks = true});
  Time a, b, gaps;
  for (const Op& op : w.programs[0].ops) {
    const bool gap = w.labels[op.label].find("idle") != std::string::npos;
    (gap ? gaps : a) += op.duration;
  }
  for (const Op& op : half.programs[0].ops) b += op.duration;
  CHECK(std::abs(static_cast<double>((b - gaps).ps()) - 0.5 * static_cast<double>(a.ps())) < 10.0);
}

TEST_CASE("Kineto DLRM, 8 ranks: 5 all-to-all and 3 all-reduce per rank, sizes from record_param_comms",
          "[unit][traces]") {
  const std::vector<std::string> files = test::dlrm_files();
  for (const auto& f : files) REQUIRE(!f.empty());
  const KinetoRank r0 = read_kineto_file(files[0]);
  CHECK(r0.rank == 0u);
  CHECK(r0.world_size == 8);
  CHECK(r0.backend == "nccl");
  TraceMetadata meta;
  const Workload w = read_trace({.files = files}, &meta);
  REQUIRE(w.ranks() == 8);
  CHECK(meta.step == 10u);
  for (uint32_t r = 0; r < 8; ++r) {
    CHECK(collective_bytes(w, r, CollectiveOp::all_to_all).size() == 5);
    CHECK(collective_bytes(w, r, CollectiveOp::all_reduce).size() == 3);
  }
  // Rank 0, from nccl:* / record_param_comms shapes: all-to-all 6,144 float, 24 long, 384 int,
  // 3,392 int (an all_to_allv), 6,144 float; all-reduce 394,241 / 112 / 226,960 float.
  CHECK(collective_bytes(w, 0, CollectiveOp::all_to_all) ==
        std::multiset<uint64_t>{24'576, 192, 1'536, 13'568, 24'576});
  CHECK(collective_bytes(w, 0, CollectiveOp::all_reduce) == std::multiset<uint64_t>{1'576'964, 448, 907'840});
  CHECK_NOTHROW(validate(w));
}
