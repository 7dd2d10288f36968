// One link's egress port: the link's fixed properties, per-priority queues with their byte counts,
// the DWRR state, the serialiser (busy) and the pending wake-up. Flow control lives beside it, by
// the same LinkId: PfcState (pauses, ingress counters) and CreditState (credits).
#pragma once

#include <array>
#include <cstdint>

#include "sim/fabric.h"
#include "sim/packet/packet.h"
#include "sim/packet/packet_config.h"
#include "sim/packet/packet_queue.h"

namespace weft::packet {

// Link-level flow control of a link: InfiniBand, NVLink, PCIe and generic links use credits;
// Ethernet uses PFC, or drops when PFC is off.
enum class Control : uint8_t { credit, pfc, lossy };

struct EgressPort {
  LinkId link = 0;
  NodeIndex from = 0;
  NodeIndex to = 0;
  uint64_t rate = 0;  // bit/s
  Time latency;
  uint32_t mtu = 0;
  uint16_t header = 0;
  Control control = Control::credit;
  bool from_switch = false;  // leaves a network switch: ECN marks here
  bool cut_through = false;  // the far end forwards a packet once `head` of it is in
  bool host_link = false;    // PCIe or CPU-to-CPU: a packet read from host memory takes no credits here
  bool into_memory = false;  // the far end is a CPU: a packet reaching it is in host memory (see Egress::arrive)
  Time head;                 // serialisation of the bytes the far end takes in before it forwards
  bool busy = false;
  bool wake_pending = false;         // a wake-up (pause expiry, pacing) is scheduled
  bool credit_wake_pending = false;  // a wake-up at a credit return's place (Egress::credit_wake)
  Time wake_at;
  uint8_t rr = 0;        // DWRR: priority whose turn it is
  uint8_t nonempty = 0;  // bit p set when queue[p] holds packets
  Bytes ecn_kmin;        // RED thresholds at this port's rate (EcnConfig::kmin, kmax)
  Bytes ecn_kmax;
  std::array<PacketQueue, kPriorities> queue;
  std::array<uint64_t, kPriorities> queued{};  // bytes
  std::array<int64_t, kPriorities> deficit{};  // DWRR
  LinkStats counters;                          // per-link summary (link_stats); PFC's pauses are counted in PfcState

  // Bytes `p` puts on this link: its payload plus a header per link-level packet (e.g. PCIe TLPs of
  // MPS bytes); control packets are one minimum frame (header + 4 B AETH, at least 64 B).
  uint32_t wire_bytes(const Packet& p) const {
    if (p.kind != Kind::data) return std::max<uint32_t>(64, header + 4);
    uint32_t packets_on_link = (p.payload + mtu - 1) / mtu;
    return p.payload + std::max<uint32_t>(packets_on_link, 1) * header;
  }
  uint64_t queued_total() const {
    uint64_t sum = 0;
    for (uint64_t q : queued) sum += q;
    return sum;
  }
};

}  // namespace weft::packet
