// The same N -> 1 incast in weft and in ns-3, in one process: wall and CPU time of each and their ratio
// (fabric_models.md Part 2 §A measured ns-3 at ~10 CPU-s for 16 x 10 MB at 100 Gb/s on a 2-core box).
// Each of SENDERS ranks sends BYTES to rank 0 at time 0 over single_switch(SENDERS + 1): one link of
// RATE_GBPS and DELAY_US per host, so every transfer crosses two links in both simulators.
//
// Usage: weft_incast_vs_ns3 [FABRIC=packet] [SENDERS=16] [BYTES=10000000] [RATE_GBPS=100] [DELAY_US=1]
// Built as weft_packet_incast with WEFT_WITHOUT_NS3 defined: the weft half alone, same arguments.
//
// Packets match ns-3's on the wire: 1448 B of payload (ns-3's MSS) plus 54 B of headers (IPv4 20 +
// TCP 20 + timestamp option 12 + PPP 2) = 1502 B per data packet. The packet fabric's transport is its
// default profile (FabricOptions{}), not necessarily DCTCP.
// Timing: ns-3 around Simulator::Run() only; weft around the start() calls and fabric->run(), its
// equivalent (ns-3's applications start inside Run()). Topology and routing set-up are excluded.
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <memory>
#include <string>

#include "sim/core/engine.h"
#include "sim/core/recorder.h"
#include "sim/fabric.h"
#include "sim/fabric_registry.h"
#include "topologies/builders.h"
#include "topologies/routing.h"
#ifndef WEFT_WITHOUT_NS3
#include "bench/ns3_incast.h"
#endif

namespace {

constexpr uint32_t kPayloadPerPacket = 1448;  // bytes: ns-3's MSS at MTU 1500 with TCP timestamps
constexpr uint16_t kHeaderBytes = 54;         // bytes: IPv4 20 + TCP 20 + timestamps 12 + PPP 2

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Divides, or returns 0 when the divisor is 0 (a run too short to time).
double per(double count, double seconds) { return seconds > 0 ? count / seconds : 0.0; }

// "10MB", "64KB", "1500B" (decimal units, as the byte count was given).
std::string size_label(uint64_t bytes) {
  if (bytes >= 1'000'000 && bytes % 1'000'000 == 0) return std::to_string(bytes / 1'000'000) + "MB";
  if (bytes >= 1'000 && bytes % 1'000 == 0) return std::to_string(bytes / 1'000) + "KB";
  return std::to_string(bytes) + "B";
}

struct Args {
  std::string fabric = "packet";
  int senders = 16;
  uint64_t bytes = 10'000'000;  // per sender
  double rate_gbps = 100;
  double delay_us = 1;  // per link, one way
};

bool parse(int argc, char** argv, Args& args) {
  if (argc > 6) return false;
  char* end = nullptr;
  if (argc > 1) args.fabric = argv[1];
  if (argc > 2) {
    const long v = std::strtol(argv[2], &end, 10);
    if (*end != '\0' || v < 1 || v > 100'000) return false;
    args.senders = static_cast<int>(v);
  }
  if (argc > 3) {
    const unsigned long long v = std::strtoull(argv[3], &end, 10);
    if (*end != '\0' || v < 1 || argv[3][0] == '-') return false;
    args.bytes = v;
  }
  if (argc > 4) {
    args.rate_gbps = std::strtod(argv[4], &end);
    if (*end != '\0' || !(args.rate_gbps > 0) || args.rate_gbps > 1e6) return false;
  }
  if (argc > 5) {
    args.delay_us = std::strtod(argv[5], &end);
    if (*end != '\0' || !(args.delay_us >= 0) || args.delay_us > 1e6) return false;
  }
  return true;
}

struct WeftResult {
  double wall_seconds = 0;
  double cpu_seconds = 0;
  weft::Time last_done;  // simulated completion of the last transfer
  uint64_t events = 0;
  weft::FabricStats stats;
};

WeftResult run_weft(const Args& args, uint64_t rate_bps, int64_t delay_ps) {
  weft::LinkSpec link{weft::LinkKind::ethernet, weft::Bandwidth::bps(rate_bps), weft::Time::ps(delay_ps)};
  link.mtu = kPayloadPerPacket;
  link.header_bytes = kHeaderBytes;
  const weft::Topology topology = weft::single_switch(static_cast<uint32_t>(args.senders) + 1, link);
  weft::Engine engine;
  weft::Router router(topology, weft::RouterOptions{});
  weft::Recorder recorder;
  const std::unique_ptr<weft::Fabric> fabric =
      weft::make_fabric(args.fabric, engine, router, recorder, weft::FabricOptions{});

  WeftResult result;
  const double cpu0 = process_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 1; i <= args.senders; ++i) {
    weft::Transfer transfer;
    transfer.src = topology.gpus()[static_cast<size_t>(i)];
    transfer.dst = topology.gpus()[0];
    transfer.bytes = weft::Bytes(args.bytes);
    transfer.entropy = static_cast<uint64_t>(i);
    transfer.tag = static_cast<uint64_t>(i);
    fabric->start(transfer, [&result, &engine] {
      if (engine.now() > result.last_done) result.last_done = engine.now();
    });
  }
  fabric->run(engine);  // not engine.run(): some fabrics drive the engine themselves
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.cpu_seconds = process_cpu_seconds() - cpu0;
  result.events = engine.events_processed();
  result.stats = fabric->stats();
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parse(argc, argv, args)) {
    std::fprintf(stderr,
                 "usage: %s [FABRIC=packet] [SENDERS=16] [BYTES=10000000] [RATE_GBPS=100] [DELAY_US=1]\n"
                 "  FABRIC: %s\n",
                 argv[0], weft::fabric_names().c_str());
    return 2;
  }
  const auto rate_bps = static_cast<uint64_t>(std::llround(args.rate_gbps * 1e9));
  const auto delay_ps = static_cast<int64_t>(std::llround(args.delay_us * 1e6));
  char label[128];
  std::snprintf(label, sizeof label, "incast %dx%s @%gGbps", args.senders, size_label(args.bytes).c_str(),
                args.rate_gbps);

  try {
    const WeftResult w = run_weft(args, rate_bps, delay_ps);
    const weft::FabricStats& s = w.stats;
    std::printf("%s: weft(%s) wall_s=%.6f cpu_s=%.6f simulated_us=%.3f transfers_done=%" PRIu64
                "/%d"
                " packet_hops=%" PRIu64 " packets_sent=%" PRIu64 " drops=%" PRIu64 " ecn_marks=%" PRIu64
                " pause_frames=%" PRIu64 " events=%" PRIu64 " hops_per_cpu_s=%.4g events_per_s=%.4g\n",
                label, args.fabric.c_str(), w.wall_seconds, w.cpu_seconds, w.last_done.microseconds(), s.transfers_done,
                args.senders, s.packet_hops, s.packets_sent, s.drops, s.ecn_marks, s.pause_frames, w.events,
                per(static_cast<double>(s.packet_hops), w.cpu_seconds),
                per(static_cast<double>(w.events), w.wall_seconds));
    std::fflush(stdout);
    if (s.transfers_done != static_cast<uint64_t>(args.senders)) {
      std::fprintf(stderr, "%s: weft finished %" PRIu64 " of %d transfers\n", argv[0], s.transfers_done, args.senders);
      return 1;
    }
#ifndef WEFT_WITHOUT_NS3
    const weft::bench::Ns3IncastResult n =
        weft::bench::ns3_incast(args.senders, args.bytes, static_cast<double>(rate_bps), args.delay_us * 1e-6);
    std::printf("%s: ns-3 DCTCP+RED wall_s=%.6f cpu_s=%.6f simulated_us=%.3f%s packets=%" PRIu64 " packet_hops=%" PRIu64
                " drops=%" PRIu64 " ecn_marks=%" PRIu64 " events=%" PRIu64 " hops_per_cpu_s=%.4g events_per_s=%.4g\n",
                label, n.wall_seconds, n.cpu_seconds, n.simulated_seconds * 1e6, n.complete ? "" : " (INCOMPLETE)",
                n.packets_delivered, n.packet_hops, n.drops, n.ecn_marks, n.events,
                per(static_cast<double>(n.packet_hops), n.cpu_seconds),
                per(static_cast<double>(n.events), n.wall_seconds));
    std::printf("speedup weft/ns-3 = %.4gx (wall), %.4gx (cpu)\n", per(n.wall_seconds, w.wall_seconds),
                per(n.cpu_seconds, w.cpu_seconds));
    if (!n.complete) return 1;
#endif
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}
