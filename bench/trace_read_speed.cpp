// How fast weft reads traces, and in how much memory: Chakra ETs (protobuf) of a generated training
// step, and a synthetic PyTorch-profiler (Kineto) JSON of N kernels with NCCL collectives, plain and
// gzip. Peer in the same run: zlib alone inflating the same .gz (the floor of any .gz reader).
// Usage: weft_trace_read_speed [KINETO_MB, default 200]
#include <fmt/format.h>
#include <sys/resource.h>
#include <zlib.h>

#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "topologies/catalogue/gpus.h"
#include "workloads/model.h"
#include "workloads/traces/kineto_reader.h"
#include "workloads/traces/trace.h"
#include "workloads/training.h"

namespace fs = std::filesystem;
using namespace weft;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

uint64_t size_of(const std::vector<std::string>& files) {
  uint64_t n = 0;
  for (const auto& f : files) n += fs::file_size(f);
  return n;
}

// GPT-3 175B, TP8 PP8 DP1, 64 micro-batches: 64 rank files of ~30 k ops each.
void chakra(const fs::path& dir) {
  TrainingSpec s;
  s.model = model("gpt-3-175b");
  s.parallel = {.tp = 8, .dp = 1, .pp = 8};
  s.global_batch = 64;
  s.micro_batch = 1;
  s.seq_len = 2048;
  const Workload w = generate_training(s, catalogue::gpu("a100-80gb"), default_compute_profile());
  const std::vector<std::string> files = write_chakra_trace(w, (dir / "gpt3").string());
  const uint64_t bytes = size_of(files);
  const double rss_before = peak_rss_mib();
  const auto t = std::chrono::steady_clock::now();
  const Workload back =
      read_trace({.format = TraceFormat::chakra, .pattern = (dir / "gpt3.{rank}.et").string(), .ranks = w.ranks()});
  const double s_read = seconds_since(t);
  size_t ops = 0;
  for (const Program& p : back.programs) ops += p.ops.size();
  fmt::print(
      "chakra ET: {} files, {:.1f} MB, {} ops: read in {:.2f} s = {:.0f} MB/s (target >= 100); peak RSS +{:.0f} MiB\n",
      files.size() - 1, bytes / 1e6, ops, s_read, bytes / 1e6 / s_read, peak_rss_mib() - rss_before);
}

// A Kineto trace: one profiler step; per "layer" a cpu_op, a launch and a kernel, every 50 kernels
// an NCCL all-reduce kernel with its args. ~400 bytes per event.
uint64_t write_kineto(const fs::path& path, uint64_t target_bytes) {
  std::ofstream out(path);
  out << R"J({"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":0,"world_size":1},"traceEvents":[)J" << '\n';
  uint64_t written = 0, i = 0;
  double ts = 1000;
  out << R"J({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":500,"dur":1e12},)J" << '\n';
  while (written < target_bytes) {
    std::string e = fmt::format(
        R"J({{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":{:.3f},"dur":5.0,"args":{{"External id":{},"Input Dims":[[4096,4096],[4096,4096]],"Input type":["c10::BFloat16","c10::BFloat16"]}}}},)J"
        "\n"
        R"J({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{:.3f},"dur":3.0,"args":{{"correlation":{}}}}},)J"
        "\n",
        ts, i, ts + 1, i);
    if (i % 50 == 49) {
      e += fmt::format(
          R"J({{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)","pid":0,"tid":20,"ts":{:.3f},"dur":40.0,"args":{{"stream":20,"correlation":{},"Collective name":"allreduce","In msg nelems":1048576,"Out msg nelems":1048576,"dtype":"BFloat16","Group size":1,"Process Group Ranks":"[0]"}}}},)J"
          "\n",
          ts + 2, i);
    } else {
      e += fmt::format(
          R"J({{"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64","pid":0,"tid":7,"ts":{:.3f},"dur":30.0,"args":{{"stream":7,"correlation":{},"grid":[132,1,1],"block":[384,1,1]}}}},)J"
          "\n",
          ts + 2, i);
    }
    out << e;
    written += e.size();
    ts += 50;
    ++i;
  }
  out << R"J({"ph":"i","name":"end","pid":1,"tid":1,"ts":1,"s":"t"}]})J" << '\n';
  return static_cast<uint64_t>(out.tellp());
}

uint64_t gzip_file(const fs::path& in, const fs::path& out) {
  std::ifstream src(in, std::ios::binary);
  gzFile gz = gzopen(out.c_str(), "wb1");
  std::vector<char> buf(1 << 20);
  while (src.read(buf.data(), static_cast<std::streamsize>(buf.size())) || src.gcount() > 0) {
    gzwrite(gz, buf.data(), static_cast<unsigned>(src.gcount()));
  }
  gzclose(gz);
  return fs::file_size(out);
}

double inflate_seconds(const fs::path& gz_path) {
  const auto t = std::chrono::steady_clock::now();
  gzFile gz = gzopen(gz_path.c_str(), "rb");
  std::vector<char> buf(1 << 20);
  while (gzread(gz, buf.data(), static_cast<unsigned>(buf.size())) > 0) {
  }
  gzclose(gz);
  return seconds_since(t);
}

void kineto(const fs::path& dir, uint64_t megabytes) {
  const fs::path json = dir / "step.json", gz = dir / "step.json.gz";
  const uint64_t bytes = write_kineto(json, megabytes * 1'000'000);
  gzip_file(json, gz);
  for (const fs::path& p : {json, gz}) {
    const double rss_before = peak_rss_mib();
    const auto t = std::chrono::steady_clock::now();
    const KinetoRank r = read_kineto_file(p.string());
    const double s = seconds_since(t);
    fmt::print(
        "kineto JSON{}: {:.0f} MB of JSON, {} ops kept: read in {:.2f} s = {:.0f} MB/s (target >= 50); peak RSS "
        "+{:.0f} MiB\n",
        p == gz ? " (.gz)" : "", bytes / 1e6, r.trace.nodes.size(), s, bytes / 1e6 / s, peak_rss_mib() - rss_before);
  }
  const double inflate = inflate_seconds(gz);
  fmt::print("peer: zlib alone inflates the .gz at {:.0f} MB/s of JSON\n", bytes / 1e6 / inflate);
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t megabytes = argc > 1 ? std::stoull(argv[1]) : 200;
  const fs::path dir = fs::temp_directory_path() / fmt::format("weft_trace_speed_{}", ::getpid());
  fs::create_directories(dir);
  chakra(dir);
  kineto(dir, megabytes);
  fs::remove_all(dir);
  return 0;
}
