// Speed of one training step at scale (issue 19): generates the Programs, replays them on the flow
// fabric, and prints wall time per phase, peak memory, ops and engine events; then the same step from
// one replica's ranks, as the plan search ranks candidates. Usage:
//   weft_training_scale [DP] [isolated|shared]   GPT-3 175B, TP8 PP16 DP (default 8: 1,024 A100;
//                                                128: 16,384), collectives isolated (default) or on
//                                                the shared fabric
//   weft_training_scale nemotron [isolated|shared]  Nemotron-4 15B on 256 H100, TP4 DP64 with sequence
//                                                parallelism (NeMo's plan), 4,096-token sequences
#include <sys/resource.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "topologies/clusters.h"
#include "topologies/systems.h"
#include "workloads/replayer.h"
#include "workloads/step_breakdown.h"
#include "workloads/training.h"

using namespace weft;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double peak_rss_gib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is KiB on Linux
}

struct Case {
  TrainingSpec spec;
  ClusterSpec cluster;
  std::string gpu;
  std::string label;
};

Case gpt3(uint32_t dp) {
  Case c;
  TrainingSpec& s = c.spec;
  s.model = model("gpt-3-175b");
  s.parallel = {.tp = 8, .cp = 1, .ep = 1, .dp = dp, .pp = 16};
  s.sharding = Sharding::zero1;
  s.recompute = true;
  s.global_batch = 1536;  // GPT-3's batch (Brown et al. 2020, Table 2.1)
  s.micro_batch = 1;
  s.seq_len = 2048;
  c.cluster = system_spec("dgx-a100");
  c.cluster.nodes = static_cast<int>(s.parallel.world() / 8);
  // 40-port HDR switches reach 800 leaves in 3 tiers; beyond 1,024 GPUs use 64-port (Quantum-2) ones.
  if (s.parallel.world() > 1024) c.cluster.network.radix = 64;
  c.gpu = "a100-80gb";
  c.label =
      fmt::format("GPT-3 175B, TP8 PP16 DP{} on {} A100 (dgx-a100 x{}), 1F1B", dp, s.parallel.world(), c.cluster.nodes);
  return c;
}

// Nemotron-4 15B (Parmar et al. 2024, arXiv:2402.16819, Table 1: 32 layers, hidden 6,144, 48 query and
// 8 KV heads, 4,096-token context, 256k vocabulary; squared-ReLU MLP of 4h). Batch: 1,024 sequences
// of micro-batch 2, i.e. 8 micro-batches per rank (this benchmark's choice: simulation cost is what
// it measures).
Case nemotron() {
  Case c;
  TrainingSpec& s = c.spec;
  s.model = {.name = "nemotron-4-15b",
             .layers = 32,
             .hidden = 6144,
             .heads = 48,
             .kv_heads = 8,
             .ffn = 24576,
             .vocab = 256000,
             .max_seq = 4096,
             .source = "Parmar et al. 2024, arXiv:2402.16819, Table 1"};
  s.parallel = {.tp = 4, .cp = 1, .ep = 1, .dp = 64, .pp = 1};
  s.sharding = Sharding::zero1;
  s.sequence_parallel = true;
  s.global_batch = 1024;
  s.micro_batch = 2;
  s.seq_len = 4096;
  c.cluster = system_spec("dgx-h100");
  c.cluster.nodes = 32;
  c.gpu = "h100-sxm";
  c.label = "Nemotron-4 15B, TP4 DP64 with sequence parallelism on 256 H100 (dgx-h100 x32)";
  return c;
}

}  // namespace

int run(int argc, char** argv) {
  const std::string first = argc > 1 ? argv[1] : "8";
  const Case c = first == "nemotron" ? nemotron() : gpt3(static_cast<uint32_t>(std::atoi(first.c_str())));
  const std::string timing = argc > 2 ? argv[2] : "isolated";
  if (timing != "isolated" && timing != "shared") throw std::invalid_argument("timing: isolated or shared");
  const TrainingSpec& s = c.spec;
  const ClusterSpec& cluster = c.cluster;
  const auto& gpu = catalogue::gpu(c.gpu);

  auto t0 = std::chrono::steady_clock::now();
  Topology topology = build_cluster(cluster);
  const double build_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  Workload w = generate_training(s, gpu, default_compute_profile());
  const double generate_s = seconds_since(t0);
  size_t ops = 0;
  for (const Program& p : w.programs) ops += p.ops.size();
  t0 = std::chrono::steady_clock::now();
  ReplayOptions options;
  options.collectives = timing == "shared" ? CollectiveTiming::shared : CollectiveTiming::isolated;
  options.isolated_cache = std::make_shared<IsolatedTimeCache>();  // to count the isolated runs
  ReplayResult r = replay(w, topology, cluster, options);
  const double replay_s = seconds_since(t0);
  StepBreakdown b = breakdown(w, r, peak_flops(gpu, Precision::bf16));
  std::printf("%s, %u micro-batches per rank, flow fabric, %s collectives\n", c.label.c_str(), micro_batches(s),
              timing.c_str());
  std::printf("  simulated step %.3f s, %.1f TFLOP/s per GPU, MFU %.1f%%\n", b.step_time.seconds(), b.tflops_per_gpu,
              100 * b.mfu);
  std::printf("  %zu ops, %llu engine events, %llu transfers, %zu collectives simulated in isolation\n", ops,
              static_cast<unsigned long long>(r.events), static_cast<unsigned long long>(r.fabric.transfers_done),
              options.isolated_cache->size());
  std::printf("  wall: build %.2f s, generate %.2f s, replay %.2f s, total %.2f s; peak memory %.2f GiB\n", build_s,
              generate_s, replay_s, build_s + generate_s + replay_s, peak_rss_gib());
  std::fflush(stdout);  // bench/scale reads this line and may stop the run here
  // How the plan search ranks a candidate: one replica (pp x cp ranks) of the same step. Its
  // collectives cannot share a fabric with ranks that have no programs: isolated timing only.
  if (timing == "shared") return 0;
  t0 = std::chrono::steady_clock::now();
  const Workload one = generate_training(s, gpu, default_compute_profile(), RankSample::one_replica);
  options.isolated_cache = std::make_shared<IsolatedTimeCache>();  // its own runs, not the whole step's
  const ReplayResult sampled = replay(one, topology, cluster, options);
  const double sampled_s = seconds_since(t0);
  std::printf(
      "  one replica (the plan search's ranking): step %.3f s (%+.2e of the whole), generate + replay %.2f s, "
      "%.0fx faster\n",
      sampled.step_time.seconds(), (sampled.step_time.seconds() - b.step_time.seconds()) / b.step_time.seconds(),
      sampled_s, (generate_s + replay_s) / sampled_s);
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft_training_scale: %s\n", e.what());
    return 1;
  }
}
