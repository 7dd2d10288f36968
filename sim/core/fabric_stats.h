// A fabric's counters over one run: what every model counts (transfers, bytes, the solver's work),
// what only the packet model does, and per link. They leave a run in its RunRecord (recorder.h).
#pragma once

#include <cstdint>

#include "sim/core/units.h"

namespace weft {

struct FabricStats {
  uint64_t transfers_started = 0;
  uint64_t transfers_done = 0;
  Bytes bytes_delivered;
  uint64_t rate_solves = 0;     // flow-level: max-min recomputations (one per touched component)
  uint64_t repairs = 0;         // flow-level: of those, local repairs (only the flows that could move)
  uint64_t flows_solved = 0;    // flow-level: flows whose rate a recomputation derived
  uint64_t flows_rerated = 0;   // flow-level: flows whose rate was recomputed
  uint64_t solves_skipped = 0;  // flow-level: starts and finishes that provably moved no other rate
  // Packet-level counters (zero for the other models).
  uint64_t packets_sent = 0;  // data packets injected by senders (retransmissions included)
  uint64_t packet_hops = 0;   // packets (data and control) that crossed one link
  uint64_t drops = 0;         // packets dropped (lossy Ethernet, or a lossless violation)
  uint64_t retransmits = 0;   // data packets sent again
  uint64_t ecn_marks = 0;
  uint64_t cnps = 0;          // congestion notification packets sent
  uint64_t pause_frames = 0;  // PFC pause frames sent (XOFF and refreshes)
  Time paused_time;           // sum over ports and priorities of time spent paused
  Bytes max_queue;            // deepest egress queue seen
  bool deadlocked = false;    // PFC pauses formed a cycle and nothing could move
};

// Per directed link (packet and flow models; the others report none). The flow model counts
// payload and derives packets and wire bytes from each link's MTU and header; the rest stays 0.
struct LinkStats {
  uint32_t link = 0;       // LinkId
  uint64_t packets = 0;    // packets (data and control) that crossed it
  Bytes wire;              // bytes on the wire, headers included
  uint64_t ecn_marks = 0;  // packets marked at its egress queue
  uint64_t drops = 0;      // packets that crossed it and were dropped at its far end
  uint64_t pauses = 0;     // PFC pause frames its sender received
  Time paused;             // time its sender spent paused (all priorities)
  Bytes max_queue;         // deepest egress queue (one priority)
};

}  // namespace weft
