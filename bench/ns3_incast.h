// The reference side of weft_incast_vs_ns3: an N -> 1 TCP incast in ns-3 (Debian libns3-dev 3.37),
// DCTCP senders into one receiver through one router whose egress toward the receiver is a RED queue
// that marks ECN (fabric_models.md, Part 2 §A). This header pulls in no ns-3 header, so the bench's
// main() compiles without them; only ns3_incast.cpp needs ns-3.
//
// ns-3's Simulator, its node list and its attribute defaults are process-wide singletons: call
// ns3_incast() at most once per process (a second call throws std::logic_error).
#pragma once

#include <cstdint>

namespace weft::bench {

struct Ns3IncastResult {
  double wall_seconds = 0;       // steady_clock around Simulator::Run() only (setup excluded)
  double cpu_seconds = 0;        // process CPU time around Simulator::Run() (the fairer figure on a shared machine)
  double simulated_seconds = 0;  // simulated time at which the receiver held every sender's last byte
  bool complete = false;         // false when the run ended (safety stop) before every byte arrived
  // Data packets received by the receiver's point-to-point device (IP packets of more than 100 bytes,
  // so pure ACKs, SYNs and FINs are not counted; retransmitted copies are).
  uint64_t packets_delivered = 0;
  uint64_t packet_hops = 0;  // PhyTxEnd on every device: data and ACK packets that crossed one link
  uint64_t events = 0;       // Simulator::GetEventCount(): events executed by Run()
  uint64_t ecn_marks = 0;    // RED marks at the bottleneck egress
  uint64_t drops = 0;        // RED drops at the bottleneck egress
};

// `senders` hosts each BulkSend `bytes_per_sender` bytes to one receiver; every host has one
// point-to-point link of `rate_bps` (bit/s) and `link_delay_s` (seconds, one way) to the router.
// Runs until the last byte is delivered. Throws std::invalid_argument for senders < 1 or
// bytes_per_sender < 1, std::logic_error on a second call.
Ns3IncastResult ns3_incast(int senders, uint64_t bytes_per_sender, double rate_bps, double link_delay_s);

}  // namespace weft::bench
