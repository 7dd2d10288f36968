// Robustness: every reader, fed mutated real inputs (truncations, byte flips with a fixed seed,
// lying varint lengths, broken JSON, wrong value types, huge numbers), returns a Workload or throws
// ConfigError: never crashes, hangs or allocates what the file does not hold. The default variant
// runs in a few seconds; "[.slow]" runs many more mutations.
#include <catch2/catch.hpp>

#include <zlib.h>

#include <fstream>
#include <random>

#include "sim/core/errors.h"
#include "trace_test_files.h"
#include "workloads/traces/trace.h"

using namespace weft;

namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

// Reads `bytes` as a one-file trace of `format`; true when it gave a Workload, false on ConfigError.
// Any other exception fails the test.
bool survives(const std::string& bytes, const std::string& path, TraceFormat format) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  try {
    const Workload w = read_trace({.format = format, .files = {path}, .fill_missing_ranks = true});
    validate(w);
    return true;
  } catch (const ConfigError&) {
    return false;
  }
}

struct Mutator {
  std::mt19937_64 rng{20240601};  // fixed seed: failures reproduce
  std::string flip(std::string s, int flips) {
    for (int i = 0; i < flips && !s.empty(); ++i) s[rng() % s.size()] = static_cast<char>(rng());
    return s;
  }
  std::string truncate(const std::string& s) { return s.substr(0, s.empty() ? 0 : rng() % s.size()); }
};

void fuzz(const std::string& seed, const std::string& path, TraceFormat format, int rounds) {
  Mutator m;
  for (int i = 0; i < rounds; ++i) {
    INFO("round " << i);
    survives(m.truncate(seed), path, format);
    survives(m.flip(seed, 1 + static_cast<int>(m.rng() % 8)), path, format);
  }
}

// A Chakra stream whose second message claims `length` bytes.
std::string lying_length(const std::string& et, uint64_t length) {
  const auto first = static_cast<size_t>(static_cast<uint8_t>(et[0]));  // the metadata length fits one byte here
  std::string out = et.substr(0, 1 + first);
  do {
    out.push_back(static_cast<char>((length & 0x7f) | (length > 0x7f ? 0x80 : 0)));
    length >>= 7;
  } while (length != 0);
  return out + "\x08\x01";
}

}  // namespace

TEST_CASE("fuzz: Chakra ET reader on mutated ETs", "[unit][traces][fuzz]") {
  const auto dir = test::scratch_dir("fuzz_et");
  const std::string path = (dir / "f.0.et").string();
  const std::string ring =
      file_bytes(test::traces_dir() + "/astra-sim/custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et");
  const std::string small = file_bytes(test::traces_dir() + "/astra-sim/all_reduce_8npus_1MB/all_reduce.1.et");
  fuzz(ring, path, TraceFormat::chakra, 300);
  fuzz(small, path, TraceFormat::chakra, 300);
  // Every truncation of the small ET.
  for (size_t n = 0; n < small.size(); ++n) survives(small.substr(0, n), path, TraceFormat::chakra);
  // Lengths that lie: past the end, at the cap, beyond the cap, a 10-byte varint.
  for (uint64_t len : {uint64_t{100}, uint64_t{1} << 20, uint64_t{1} << 28, (uint64_t{1} << 28) + 1, ~uint64_t{0}}) {
    CHECK_FALSE(survives(lying_length(small, len), path, TraceFormat::chakra));
  }
  CHECK_FALSE(survives(std::string(12, '\xff'), path, TraceFormat::chakra));  // an endless varint
}

TEST_CASE("fuzz: Chakra ResNet ET, truncated and flipped", "[unit][traces][fuzz]") {
  const auto dir = test::scratch_dir("fuzz_resnet");
  const std::string path = (dir / "r.0.et").string();
  const std::string et = file_bytes(test::chakra_resnet());
  Mutator m;
  for (int i = 0; i < 6; ++i) {
    survives(m.truncate(et), path, TraceFormat::chakra);
    survives(m.flip(et, 4), path, TraceFormat::chakra);
  }
}

TEST_CASE("fuzz: Kineto reader on broken JSON and wrong types", "[unit][traces][fuzz]") {
  const auto dir = test::scratch_dir("fuzz_kineto");
  const std::string path = (dir / "k.json").string();
  // A small real-shaped trace: the first 200 events of the HTA ResNet trace are too big to mutate
  // many times, so the mutations run on a hand-made trace of the same shape plus slices of the real one.
  const std::string good = R"({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2,
    "pg_config": [{"pg_name": "0", "ranks": [0, 1]}]}, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20, "dur": 100, "args": {"correlation": 7, "stream": 7}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"correlation": 8}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 40, "ts": 130, "dur": 50,
     "args": {"correlation": 8, "stream": 40, "Collective name": "allreduce", "In msg nelems": 1024, "Out msg nelems": 1024,
              "dtype": "Float", "Process Group Name": "0", "Process Group Ranks": "[0, 1]", "Group size": 2}}]})";
  CHECK(survives(good, path, TraceFormat::kineto));
  Mutator m;
  for (int i = 0; i < 400; ++i) {
    survives(m.truncate(good), path, TraceFormat::kineto);
    survives(m.flip(good, 1 + static_cast<int>(m.rng() % 4)), path, TraceFormat::kineto);
  }
  // Wrong types for known keys and absurd numbers.
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  CHECK_FALSE(survives(replace(R"("ts": 20)", R"("ts": "x")"), path, TraceFormat::kineto));
  CHECK_FALSE(survives(replace(R"("dur": 50)", R"("dur": -5)"), path, TraceFormat::kineto));
  CHECK_FALSE(survives(replace(R"("In msg nelems": 1024)", R"("In msg nelems": [1])"), path, TraceFormat::kineto));
  CHECK_FALSE(survives(replace(R"("dtype": "Float")", R"("dtype": "Quaternion")"), path, TraceFormat::kineto));
  CHECK_FALSE(survives(replace(R"("world_size": 2)", R"("world_size": 99999999999)"), path, TraceFormat::kineto));
  CHECK_FALSE(survives(replace(R"("name": "ProfilerStep#1")", R"("name": 5)"), path, TraceFormat::kineto));
  CHECK_FALSE(survives("{\"traceEvents\": [", path, TraceFormat::kineto));
  CHECK_FALSE(survives(std::string(100000, '['), path, TraceFormat::kineto));  // deep nesting, then EOF
  // A bare array of events (Debian's PyTorch) is accepted.
  const size_t events = good.find("\"traceEvents\": ") + 15;
  CHECK(survives(good.substr(events, good.size() - events - 1), path, TraceFormat::kineto));
  // Slices of the real trace: cut mid-event at many offsets.
  const std::string real = gunzip(test::kineto_resnet()).substr(0, 400000);
  for (int i = 0; i < 10; ++i) survives(m.truncate(real), path, TraceFormat::kineto);
}

TEST_CASE("fuzz: feeder JSON and comm-group files", "[unit][traces][fuzz]") {
  const auto dir = test::extracted("chakra/resnet50_ddp_2gpu_json.tar.gz", "chakra_json");
  const std::string small = file_bytes((dir / "jsonData/small_chakra.0.json").string());
  const auto scratch = test::scratch_dir("fuzz_json");
  const std::string path = (scratch / "s.json").string();
  Mutator m;
  for (int i = 0; i < 300; ++i) {
    survives(m.truncate(small), path, TraceFormat::chakra_json);
    survives(m.flip(small, 1 + static_cast<int>(m.rng() % 4)), path, TraceFormat::chakra_json);
  }
  CHECK_FALSE(survives(R"({"workload_graph": [{"Id": "one", "NodeType": 4}]})", path, TraceFormat::chakra_json));
  CHECK_FALSE(survives(R"({"workload_graph": [{"Id": 1, "NodeType": 99}]})", path, TraceFormat::chakra_json));
  CHECK_FALSE(survives(R"({"workload_graph": 3})", path, TraceFormat::chakra_json));
  const std::string groups = (scratch / "g.json").string();
  std::ofstream(groups) << R"({"0": [0, "x"]})";
  CHECK_THROWS_AS(read_trace({.pattern = test::astra_all_reduce(), .comm_group_file = groups}), ConfigError);
}

TEST_CASE("fuzz: many more mutations", "[.slow][traces][fuzz]") {
  const auto dir = test::scratch_dir("fuzz_slow");
  const std::string path = (dir / "f.0.et").string();
  const std::string ring =
      file_bytes(test::traces_dir() + "/astra-sim/custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et");
  fuzz(ring, path, TraceFormat::chakra, 20000);
  const std::string et = file_bytes(test::chakra_resnet());
  Mutator m;
  for (int i = 0; i < 200; ++i) survives(m.flip(et, 8), path, TraceFormat::chakra);
}

TEST_CASE("Times that would overflow a simulated clock are errors, not wrap-arounds", "[unit][traces]") {
  // Two kernels 6.4e12 us apart (the Kineto fuzz find): the idle gap between them is out of range.
  const auto dir = weft::test::scratch_dir("overflow");
  const std::string kineto = (dir / "k.json").string();
  std::ofstream(kineto)
      << R"({"traceEvents":[)"
         R"({"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":6,"dur":1,"args":{"stream":7}},)"
         R"({"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":6428201424619,"dur":1,"args":{"stream":7}}]})";
  CHECK_THROWS_WITH(weft::read_trace({.format = weft::TraceFormat::kineto, .files = {kineto}}),
                    Catch::Contains("k.json") && Catch::Contains("out of range"));
}
