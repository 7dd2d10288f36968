#pragma once

// Reference point for weft's flow model: the same ring all-reduce run in SimGrid 3.32 (CM02 max-min),
// so that our results and our wall time can be compared with a validated flow-level simulator.

namespace weft::bench {

struct SimgridRingResult {
  double simulated_seconds;  // SimGrid's clock when the last rank finished
  double wall_seconds;       // host wall time spent in simgrid's Engine::run (steady_clock)
};

// Ring all-reduce of `bytes` (whole buffer per rank, as nccl-tests' size) over `ranks` hosts on one
// non-blocking switch: host i has its own full-duplex link (SPLITDUPLEX: each direction its own
// capacity) of `link_bps` bits/s and `link_latency_s` seconds to the switch, so a transfer crosses
// two links (src uplink, dst downlink). Algorithm: 2(n-1) steps; in each step every rank r sends
// bytes/n to rank (r+1)%n and receives bytes/n from (r-1)%n; rank r starts step k+1 only after both
// its step-k send and its step-k receive completed. Network model: pure CM02 max-min (no TCP gamma
// window limit, no cross-traffic, no bandwidth/latency factors) so that results are comparable with
// a textbook max-min flow model. Can be called only once per process (SimGrid's engine is a singleton);
// throw std::logic_error on a second call.
//
// Throws std::invalid_argument for ranks < 1, bytes < 0, link_bps <= 0 or link_latency_s < 0 (such a
// call does not use up the one allowed call).
SimgridRingResult simgrid_ring_all_reduce(int ranks, double bytes, double link_bps, double link_latency_s);

}  // namespace weft::bench
