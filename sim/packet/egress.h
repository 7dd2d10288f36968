// The egress ports of every link and what moves packets between them: enqueue, the scheduler's
// pick (control priority first, then strict priority or DWRR), the serialiser, wake-ups when a
// pause or pacing ends, and the packet's arrival at the link's far end (next hop or host). A link is
// its egress queue plus its propagation delay.
#pragma once

#include <vector>

#include "sim/core/engine.h"
#include "sim/core/recorder.h"
#include "sim/core/rng.h"
#include "sim/packet/credit_state.h"
#include "sim/packet/egress_port.h"
#include "sim/packet/fabric_context.h"
#include "sim/packet/pfc_state.h"
#include "sim/packet/shared_buffer.h"

namespace weft::packet {

class Receiver;
class Sender;

class Egress {
 public:
  // One port per link of the topology, filled by set_up(). The peers may be constructed after this
  // object.
  Egress(const FabricContext& context, PfcState& pfc, CreditState& credits, SharedBuffer& buffer, Sender& sender,
         Receiver& receiver);

  // Fills the port of link `l` from the topology; throws ConfigError for a link that cannot carry
  // packets (rate 0, an RDMA MTU outside 256..4096 B).
  EgressPort& set_up(LinkId l, Control control);

  EgressPort& port(LinkId link) { return ports_[link]; }
  const EgressPort& port(LinkId link) const { return ports_[link]; }
  const std::vector<EgressPort>& ports() const { return ports_; }
  // When a packet last started on a link (the stall watchdog's measure of progress).
  Time last_progress() const { return last_progress_; }

  // May the port start a packet of this priority and size now (not paused, credits at the far end
  // unless it takes none: takes_no_credits)?
  bool sendable(const EgressPort& port, uint8_t priority, uint32_t wire, bool read = false) const {
    if (pfc_.paused_until(port.link, priority) > engine_.now()) return false;
    if (port.control == Control::credit && !(read && port.host_link)) return credits_.covers(port.link, priority, wire);
    return true;
  }
  void enqueue(LinkId link, uint32_t p);
  // Starts the next packet on the port if it is idle: a queued one, else one its senders make.
  void try_send(LinkId link);
  // try_send at `at`, unless an earlier wake-up is pending.
  void schedule_wake(LinkId link, Time at);
  // An idle port with credits on their way looks again where the next of them comes back (its
  // place in the event order, CreditState); a busy one looks when its serialisation ends.
  void credit_wake(LinkId link);

 private:
  bool pick_queued(EgressPort& port, uint32_t& packet);
  bool pick_dwrr(EgressPort& port, uint32_t& packet);
  bool ready(const EgressPort& port, int priority) const {
    if (!(port.nonempty >> priority & 1)) return false;
    const Packet& pkt = packets_[port.queue[priority].front()];
    return sendable(port, static_cast<uint8_t>(priority), port.wire_bytes(pkt), pkt.read);
  }
  // A read from host memory comes back as PCIe completions, for which the reader keeps room before
  // it asks (endpoints advertise infinite completion credits, PCIe Base Spec 2.6.1): nothing on the
  // way waits for credits, so it never blocks the writes queued behind it.
  static bool takes_no_credits(const EgressPort& port, const Packet& pkt) {
    return pkt.read && port.host_link && port.control == Control::credit;
  }
  static bool take(EgressPort& port, int priority, uint32_t& packet) {
    packet = port.queue[priority].pop();
    if (port.queue[priority].empty()) port.nonempty &= static_cast<uint8_t>(~(1u << priority));
    return true;
  }
  void transmit(LinkId link, uint32_t p);
  uint32_t forward_after(NodeKind kind, const EgressPort& into) const;
  Time arrival(const EgressPort& port, const Packet& pkt, Time serialised) const;
  void mark_ecn(EgressPort& port, Packet& pkt);
  void arrive(uint32_t p);
  void leave_node(const Packet& pkt, NodeIndex node);

  Engine& engine_;
  const PacketConfig& config_;
  const Topology& topology_;
  Rng& rng_;
  FabricStats& stats_;
  PacketPool& packets_;
  bool check_;
  PfcState& pfc_;
  CreditState& credits_;
  SharedBuffer& buffer_;
  Sender& sender_;
  Receiver& receiver_;
  Recorder& recorder_;             // each packet's wire bytes over its serialisation, for a link timeline
  std::vector<EgressPort> ports_;  // by LinkId
  Time last_progress_;
};

}  // namespace weft::packet
