// Speed of one training step at scale (issue: GPT-3 175B on 1,024 GPUs, TP8·PP16·DP8, 1F1B, under
// 60 s and 4 GB; 16,384 GPUs under 15 minutes): generates the Programs, replays them on the flow
// fabric with isolated collective timing, and prints wall time per phase, peak memory, ops and
// engine events; then the same step from one replica's ranks, as the plan search ranks candidates. Usage:
// weft_training_scale [DP] (default 8: 1,024 GPUs; 128: 16,384 GPUs).
#include <sys/resource.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

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

}  // namespace

int run(int argc, char** argv) {
  const uint32_t dp = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 8;
  TrainingSpec s;
  s.model = model("gpt-3-175b");
  s.parallel = {.tp = 8, .cp = 1, .ep = 1, .dp = dp, .pp = 16};
  s.sharding = Sharding::zero1;
  s.recompute = true;
  s.global_batch = 1536;  // GPT-3's batch (Brown et al. 2020, Table 2.1)
  s.micro_batch = 1;
  s.seq_len = 2048;
  ClusterSpec c = system_spec("dgx-a100");
  c.nodes = static_cast<int>(s.parallel.world() / 8);
  // 40-port HDR switches reach 800 leaves in 3 tiers; beyond 1,024 GPUs use 64-port (Quantum-2) ones.
  if (s.parallel.world() > 1024) c.network.radix = 64;
  const auto& gpu = catalogue::gpu("a100-80gb");

  auto t0 = std::chrono::steady_clock::now();
  Topology topology = build_cluster(c);
  const double build_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  Workload w = generate_training(s, gpu, default_compute_profile());
  const double generate_s = seconds_since(t0);
  size_t ops = 0;
  for (const Program& p : w.programs) ops += p.ops.size();
  t0 = std::chrono::steady_clock::now();
  ReplayOptions options;
  options.collectives = CollectiveTiming::isolated;
  ReplayResult r = replay(w, topology, c, options);
  const double replay_s = seconds_since(t0);
  StepBreakdown b = breakdown(w, r, peak_flops(gpu, Precision::bf16));
  std::printf(
      "GPT-3 175B, TP8 PP16 DP%u on %u A100 (dgx-a100 x%d), 1F1B, %u micro-batches per rank, flow fabric, "
      "isolated collectives\n",
      dp, s.parallel.world(), c.nodes, micro_batches(s));
  std::printf("  simulated step %.3f s, %.1f TFLOP/s per GPU, MFU %.1f%%\n", b.step_time.seconds(), b.tflops_per_gpu,
              100 * b.mfu);
  std::printf("  %zu ops, %llu engine events, %llu transfers\n", ops, static_cast<unsigned long long>(r.events),
              static_cast<unsigned long long>(r.fabric.transfers_done));
  std::printf("  wall: build %.2f s, generate %.2f s, replay %.2f s, total %.2f s; peak memory %.2f GiB\n", build_s,
              generate_s, replay_s, build_s + generate_s + replay_s, peak_rss_gib());
  // How the plan search ranks a candidate: one replica (pp x cp ranks) of the same step.
  t0 = std::chrono::steady_clock::now();
  const Workload one = generate_training(s, gpu, default_compute_profile(), RankSample::one_replica);
  const ReplayResult sampled = replay(one, topology, c, options);
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
