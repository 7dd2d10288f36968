#include "bench/simgrid_ring.h"

#include "sim/simgrid_setup.h"

#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// How SimGrid 3.32's CM02 times one transfer (src/surf/network_cm02.cpp, checked against the closed
// form by a throwaway test): the route latency is the *sum* of the link latencies on the route, counted
// once per transfer (here 2 * link_latency_s: src uplink + dst downlink). During that latency phase the
// flow takes no bandwidth; afterwards it becomes a max-min variable on every link of its route. Hence in
// this ring each step lasts exactly 2 * latency + (bytes / n) / (link_bps / 8): every uplink and every
// downlink carries exactly one flow, so each flow gets the full link rate.

namespace weft::bench {
namespace {

namespace sg = simgrid::s4u;

// Actors need only a few frames: SimGrid's default 8 MiB stack per actor would reserve 16 GiB of
// address space at 2048 ranks (KiB).
void configure_ring() {
  simgrid_setup::configure_pure_max_min();
  sg::Engine::set_config("contexts/stack-size:256");
}

// One star zone is the switch: host i reaches the switch through the UP half of its split-duplex link
// and is reached through the DOWN half, so host a -> host b uses link_a_UP then link_b_DOWN.
std::vector<sg::Host*> build_star_platform(int ranks, double link_bps, double link_latency_s) {
  sg::NetZone* zone = sg::create_star_zone("switch");
  simgrid_setup::check_pure_max_min();
  std::vector<sg::Host*> hosts;
  hosts.reserve(static_cast<std::size_t>(ranks));
  for (int i = 0; i < ranks; ++i) {
    const std::string id = std::to_string(i);
    // Host speed is in flop/s and unused: ranks only communicate.
    sg::Host* host = zone->create_host("host-" + id, 1e9)->seal();
    // SimGrid link bandwidths are in bytes/s.
    sg::SplitDuplexLink* link = zone->create_split_duplex_link("link-" + id, link_bps / 8.0);
    link->set_latency(link_latency_s)->seal();
    // Symmetrical: the route towards the host is the same link with the DOWN direction.
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg::LinkInRoute(link, sg::LinkInRoute::Direction::UP)}, true);
    hosts.push_back(host);
  }
  zone->seal();
  return hosts;
}

// Our check that the platform is what the interface promises: two distinct links per transfer, each of
// link_bps, whose latencies add up to 2 * link_latency_s.
void check_route(const sg::Host* src, const sg::Host* dst, double link_bps, double link_latency_s) {
  std::vector<sg::Link*> links;
  double latency_s = 0.0;
  src->route_to(dst, links, &latency_s);
  const bool two_links = links.size() == 2 && links[0] != links[1];
  const bool full_rate =
      std::all_of(links.begin(), links.end(), [&](const sg::Link* l) { return l->get_bandwidth() == link_bps / 8.0; });
  const double expected_latency_s = 2.0 * link_latency_s;
  const bool latency_ok = std::abs(latency_s - expected_latency_s) <= 1e-12 * std::max(1.0, expected_latency_s);
  if (!two_links || !full_rate || !latency_ok)
    throw std::logic_error("simgrid_ring_all_reduce: unexpected route " + src->get_name() + " -> " + dst->get_name());
}

std::string mailbox_name(int rank) { return "rank-" + std::to_string(rank); }

// Rank actor: its inbox only ever receives from rank - 1, in step order (mailboxes match FIFO), so the
// k-th receive pairs with the k-th send of the predecessor.
void run_rank(int rank, int ranks, std::uint64_t chunk_bytes, double* finish_s) {
  sg::Mailbox* inbox = sg::Mailbox::by_name(mailbox_name(rank));
  sg::Mailbox* next = sg::Mailbox::by_name(mailbox_name((rank + 1) % ranks));
  // SimGrid transfers a pointer, not data; the simulated size is chunk_bytes.
  int token = rank;
  int* received = nullptr;
  for (int step = 0; step < 2 * (ranks - 1); ++step) {
    sg::CommPtr recv = inbox->get_async(&received);
    sg::CommPtr send = next->put_async(&token, chunk_bytes);
    sg::Comm::wait_all({recv, send});
  }
  *finish_s = sg::Engine::get_clock();
}

void check_arguments(int ranks, double bytes, double link_bps, double link_latency_s) {
  if (ranks < 1) throw std::invalid_argument("simgrid_ring_all_reduce: ranks must be >= 1");
  if (!(bytes >= 0.0)) throw std::invalid_argument("simgrid_ring_all_reduce: bytes must be >= 0");
  if (!(link_bps > 0.0)) throw std::invalid_argument("simgrid_ring_all_reduce: link_bps must be > 0");
  if (!(link_latency_s >= 0.0)) throw std::invalid_argument("simgrid_ring_all_reduce: link_latency_s must be >= 0");
}

}  // namespace

SimgridRingResult simgrid_ring_all_reduce(int ranks, double bytes, double link_bps, double link_latency_s) {
  check_arguments(ranks, bytes, link_bps, link_latency_s);
  // SimGrid's Engine is a process-wide singleton that cannot be created again once destroyed, so this
  // flag guards a real process-wide resource rather than holding state of ours.
  static std::atomic<bool> engine_used{false};
  if (engine_used.exchange(true))
    throw std::logic_error("simgrid_ring_all_reduce: may be called only once per process");

  simgrid_setup::EngineArgs args("weft-simgrid-ring");
  sg::Engine engine(args.argc(), args.argv());
  configure_ring();
  const std::vector<sg::Host*> hosts = build_star_platform(ranks, link_bps, link_latency_s);
  if (ranks >= 2) check_route(hosts[0], hosts[1], link_bps, link_latency_s);

  // SimGrid sizes are whole bytes; the rounding error is below one byte per step.
  const auto chunk_bytes = static_cast<std::uint64_t>(std::llround(bytes / ranks));
  std::vector<double> finish_s(hosts.size(), 0.0);
  for (int r = 0; r < ranks; ++r)
    sg::Actor::create(mailbox_name(r), hosts[static_cast<std::size_t>(r)],
                      [r, ranks, chunk_bytes, out = &finish_s[static_cast<std::size_t>(r)]] {
                        run_rank(r, ranks, chunk_bytes, out);
                      });

  const auto wall_start = std::chrono::steady_clock::now();
  engine.run();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start;
  return {*std::max_element(finish_s.begin(), finish_s.end()), wall.count()};
}

}  // namespace weft::bench
