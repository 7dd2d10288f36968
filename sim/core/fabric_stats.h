// A fabric's counters over one run: what every model counts (transfers, bytes, the solver's work)
// and what only the packet model does. They leave a run in its RunRecord (recorder.h).
#pragma once

#include <cstdint>

#include "sim/core/units.h"

namespace weft {

struct FabricStats {
  uint64_t transfers_started = 0;
  uint64_t transfers_done = 0;
  Bytes bytes_delivered;
  uint64_t rate_solves = 0;    // flow-level: max-min recomputations (one per touched component)
  uint64_t flows_rerated = 0;  // flow-level: flows whose rate was recomputed
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

}  // namespace weft
