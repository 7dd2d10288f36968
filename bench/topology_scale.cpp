// Building and routing a large rail-optimised fabric: DGX H100 nodes on a 3-tier NDR fabric of
// 64-port switches. Prints the build time, then the time to route a ring over every GPU and an
// all-to-all among the first 1,024 GPUs (one path per ordered pair), the distinct paths kept, and
// the peak resident memory. Usage: weft_topology_scale [NODES=2048] [A2A_GPUS=1024].
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "topologies/routing.h"
#include "topologies/systems.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long kib = 0;
  while (status >> key) {
    if (key == "VmHWM:") {
      status >> kib;
      break;
    }
  }
  return kib / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = argc > 1 ? std::atoi(argv[1]) : 2048;
  int a2a = argc > 2 ? std::atoi(argv[2]) : 1024;
  auto t0 = std::chrono::steady_clock::now();
  weft::ClusterSpec spec = weft::system_spec("dgx-h100");
  spec.nodes = nodes;
  weft::Topology t = weft::build_cluster(spec);
  double build_s = seconds_since(t0);

  weft::Router router(t, 1);
  const auto& gpus = t.gpus();
  auto t1 = std::chrono::steady_clock::now();
  size_t hops = 0;
  for (size_t r = 0; r < gpus.size(); ++r) hops += router.route(gpus[r], gpus[(r + 1) % gpus.size()], r).links.size();
  double ring_s = seconds_since(t1);

  auto t2 = std::chrono::steady_clock::now();
  size_t n = std::min<size_t>(a2a, gpus.size());
  for (size_t s = 0; s < n; ++s) {
    for (size_t d = 0; d < n; ++d) hops += router.route(gpus[s], gpus[d], s * n + d).links.size();
  }
  double a2a_s = seconds_since(t2);
  std::printf(
      "gpus=%zu nodes=%zu links=%zu build_s=%.2f ring_routes=%zu ring_s=%.3f a2a_gpus=%zu a2a_routes=%zu "
      "a2a_s=%.2f paths_kept=%zu peak_rss_mib=%ld (hops %zu)\n",
      gpus.size(), t.node_count(), t.link_count(), build_s, gpus.size(), ring_s, n, n * n, a2a_s, router.cached_paths(),
      peak_rss_mib(), hops);
  return 0;
}
