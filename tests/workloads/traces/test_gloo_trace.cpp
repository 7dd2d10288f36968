// A trace nobody here wrote by hand: 2-rank DDP on gloo (CPU) recorded with Debian's python3-torch
// 1.13.1 by gloo/record_gloo_ddp.py (gloo/README.md). Two files per rank:
//  - rank{r}.json.gz: export_chrome_trace as Debian's build writes it (no Kineto): a bare JSON array,
//    events with name / ph / ts / dur / tid / pid "CPU functions" and `args: {}`; no `cat`, no input
//    shapes, no distributedInfo. The collectives are there by name, their sizes are not.
//  - rank{r}.kineto.json.gz: the same profiler events (record_shapes) in the layout a Kineto build
//    writes: {"distributedInfo": {"backend": "gloo", ...}, "traceEvents": [...]}, `cat` cpu_op /
//    user_annotation, `Input Dims` / `Input type` args.
// In both, each collective appears twice: `c10d::allreduce_` / `c10d::broadcast_` (the dispatcher op
// on the calling thread, its input a TensorList without shape) and `gloo:all_reduce` /
// `gloo:broadcast` (the work's profiling range on a gloo worker thread, with the tensor's shape).
// One operation each: counting both would double every collective.
//
// Expected values, derived from the model (six bias-free Linear layers, fp32, DDP bucket_cap_mb=0.5):
//   weights in forward order: 64x512, 512x512, 512x256, 256x256, 256x256, 256x16 values
//     = 131,072 / 1,048,576 / 524,288 / 262,144 / 262,144 / 16,384 B; 2,244,608 B in all.
//   Step 0: DDP's first iteration puts every gradient in one bucket (find_unused_parameters=False
//     -> bucket limit SIZE_MAX, torch 1.13 distributed.py): one all-reduce of 2,244,608 B.
//   Step 1: the buckets are rebuilt in gradient-ready order (last layer first), first bucket
//     >= 1 MiB (_DEFAULT_FIRST_BUCKET_BYTES), then >= 524,288 B:
//       16,384 + 262,144 + 262,144 + 524,288 = 1,064,960 B (>= 1,048,576: closes)
//       1,048,576 B (>= 524,288: closes); 131,072 B (the rest)
//     and rank 0's bucket layout is broadcast first (Reducer::sync_bucket_indices): the parameter
//     indices plus a count, 6 + 1 int32 = 28 B, then the bucket sizes, 3 int32 = 12 B.
//   Step 2: the same three all-reduces.
// Per rank: 7 all-reduces, 2 broadcasts. torch 1.13's profiler names the first two steps both
// ProfilerStep#0 (profile.step() labels the new step with the old step_num) and the third
// ProfilerStep#1; the earlier of two equal numbers is the one a user means by that number.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>
#include <string>

#include "trace_test_files.h"
#include "workloads/traces/kineto_reader.h"
#include "workloads/traces/trace.h"

using namespace weft;
using weft::test::collective_bytes;

namespace {

constexpr uint64_t kOneBucket = 2'244'608;
const std::multiset<uint64_t> kBuckets{1'064'960, 1'048'576, 131'072};
const std::multiset<uint64_t> kAllReduces{kOneBucket, 1'064'960, 1'064'960, 1'048'576, 1'048'576, 131'072, 131'072};
const std::multiset<uint64_t> kBroadcasts{28, 12};

// rank{0,1}<suffix> in `dir`, in rank order.
TraceSource gloo_source(const std::string& dir, const std::string& suffix) {
  return {.format = TraceFormat::kineto, .files = {dir + "/rank0" + suffix, dir + "/rank1" + suffix}};
}

// The Kineto-layout files carry shapes: every all-reduce and broadcast with its size.
void check_kineto_layout(const std::string& dir) {
  TraceSource whole = gloo_source(dir, ".kineto.json.gz");
  whole.whole_trace = true;
  TraceMetadata meta;
  const Workload w = read_trace(whole, &meta);
  CHECK(meta.backend == "gloo");
  CHECK(meta.world_size == 2);
  REQUIRE(w.ranks() == 2);
  for (uint32_t r = 0; r < 2; ++r) {
    INFO("rank " << r);
    CHECK(collective_bytes(w, r, CollectiveOp::all_reduce) == kAllReduces);
    CHECK(collective_bytes(w, r, CollectiveOp::broadcast) == kBroadcasts);
  }
  CHECK_NOTHROW(validate(w));

  // The default window is the first step: the single-bucket all-reduce only.
  const Workload first = read_trace(gloo_source(dir, ".kineto.json.gz"), &meta);
  CHECK(meta.step == 0u);
  CHECK(collective_bytes(first, 0, CollectiveOp::all_reduce) == std::multiset<uint64_t>{kOneBucket});
  CHECK(collective_bytes(first, 0, CollectiveOp::broadcast).empty());

  TraceSource third = gloo_source(dir, ".kineto.json.gz");
  third.step = 1;
  const Workload last = read_trace(third);
  CHECK(collective_bytes(last, 1, CollectiveOp::all_reduce) == kBuckets);
}

// The bare-array files as Debian's exporter writes them: the array and its `cat`-less events are
// read and the gloo collectives found by name, but the file has no sizes, so the reader says so
// (naming the op and the cause) instead of replaying collectives of no size.
void check_bare_array(const std::string& dir) {
  TraceSource whole = gloo_source(dir, ".json.gz");
  whole.whole_trace = true;
  CHECK_THROWS_WITH(read_trace(whole), Catch::Contains("gloo:all_reduce") && Catch::Contains("no size") &&
                                           Catch::Contains("exported without shapes"));
}

}  // namespace

// gloo:* host ranges without NCCL args are the collectives (type from the name, size from `Input
// Dims` x `Input type`); the c10d::*_ wrappers around them are not counted again.
TEST_CASE("Gloo DDP trace (torch 1.13.1, Kineto layout): 7 all-reduces and 2 broadcasts with sizes", "[unit][traces]") {
  check_kineto_layout(WEFT_GLOO_TRACES_DIR);
}

TEST_CASE("Gloo DDP trace: of two ProfilerStep#0, the default window is the earlier", "[unit][traces]") {
  // Rank 0 of the committed recording: ProfilerStep#0 at 169 us for 103,487 us, ProfilerStep#0
  // again at 103,706 us, ProfilerStep#1 at 171,294 us (the bare-array file holds the same three
  // but no sizes, so it does not read). The trace's first event starts at 111 us: the step starts
  // 58 us into the trace.
  const KinetoRank r0 = read_kineto_file(std::string(WEFT_GLOO_TRACES_DIR) + "/rank0.kineto.json.gz");
  CHECK(r0.step == 0u);
  CHECK(r0.step_start.ps() == Time::us(169 - 111).ps());
  CHECK(r0.step_duration.ps() == Time::us(103'487).ps());
}

TEST_CASE("Gloo DDP trace (torch 1.13.1, bare JSON array): a clear error, the file has no sizes", "[unit][traces]") {
  check_bare_array(WEFT_GLOO_TRACES_DIR);
}

// Hidden: run by the ctest traces.gloo_live on traces recorded just before into $WEFT_GLOO_LIVE_DIR.
TEST_CASE("Gloo DDP trace recorded live", "[.gloo_live]") {
  const char* dir = std::getenv("WEFT_GLOO_LIVE_DIR");
  REQUIRE(dir != nullptr);
  check_bare_array(dir);
  check_kineto_layout(dir);
}
