// Egress scheduling, transmission and arrival of the packet fabric (see egress.h).
#include "sim/packet/egress.h"

#include <fmt/format.h>
#include <algorithm>

#include "sim/core/errors.h"
#include "sim/packet/receiver.h"
#include "sim/packet/sender.h"

namespace weft::packet {

Egress::Egress(const FabricContext& c, PfcState& pfc, CreditState& credits, SharedBuffer& buffer, Sender& sender,
               Receiver& receiver)
    : engine_(c.engine),
      config_(c.config),
      topology_(c.router.topology()),
      rng_(c.rng),
      stats_(c.stats),
      packets_(c.packets),
      check_(c.check),
      pfc_(pfc),
      credits_(credits),
      buffer_(buffer),
      sender_(sender),
      receiver_(receiver),
      recorder_(c.recorder),
      ports_(topology_.link_count()) {}

EgressPort& Egress::set_up(LinkId l, Control control) {
  const LinkProps& link = topology_.link(l);
  EgressPort& p = ports_[l];
  p.link = l;
  p.from = topology_.link_source(l);
  p.to = topology_.link_target(l);
  p.rate = link.rate.bps();
  p.latency = link.latency;
  p.mtu = link.mtu;
  p.header = link.header_bytes;
  p.control = control;
  p.from_switch = topology_.node(p.from).kind == NodeKind::network_switch;
  p.into_memory = topology_.node(p.to).kind == NodeKind::cpu;
  p.host_link = link.kind == LinkKind::pcie || link.kind == LinkKind::inter_socket;
  const uint32_t head = forward_after(topology_.node(p.to).kind, p);
  p.cut_through = head > 0;
  p.head = transmit_time(Bytes(head), Bandwidth::bps(p.rate));
  if (p.rate == 0) throw ConfigError(fmt::format("packet fabric: link {} has rate 0", l));
  if ((link.kind == LinkKind::ethernet || link.kind == LinkKind::infiniband) && (link.mtu < 256 || link.mtu > 4096)) {
    throw ConfigError(fmt::format("packet fabric: link {} ({}) has MTU {} B; RDMA over {} carries 256 to 4096 B", l,
                                  topology_.node(p.from).name, link.mtu,
                                  link.kind == LinkKind::ethernet ? "Ethernet" : "InfiniBand"));
  }
  p.ecn_kmin = config_.ecn.kmin(Bandwidth::bps(p.rate));
  p.ecn_kmax = config_.ecn.kmax(Bandwidth::bps(p.rate));
  return p;
}

void Egress::enqueue(LinkId link, uint32_t p) {
  EgressPort& out = ports_[link];
  const Packet& pkt = packets_[p];
  out.queue[pkt.priority].push(p);
  out.nonempty |= static_cast<uint8_t>(1u << pkt.priority);
  out.queued[pkt.priority] += out.wire_bytes(pkt);
  stats_.max_queue = std::max(stats_.max_queue, Bytes(out.queued[pkt.priority]));
  out.counters.max_queue = std::max(out.counters.max_queue, Bytes(out.queued[pkt.priority]));
  try_send(link);
}

bool Egress::pick_queued(EgressPort& port, uint32_t& packet) {
  if (port.nonempty == 0) return false;
  if (ready(port, config_.control_priority)) return take(port, config_.control_priority, packet);  // ACK, NACK, CNP
  if (config_.switches.scheduler == Scheduler::dwrr) return pick_dwrr(port, packet);
  for (int pr = kPriorities - 1; pr >= 0; --pr) {  // strict: the highest priority that may send
    if (ready(port, pr)) return take(port, pr, packet);
  }
  return false;
}

// DWRR: each visit adds a quantum to the priority's deficit; it sends while the deficit covers it.
bool Egress::pick_dwrr(EgressPort& port, uint32_t& packet) {
  for (int pass = 0; pass < 2 * kPriorities; ++pass) {
    int pr = (port.rr + pass) % kPriorities;
    if (!ready(port, pr)) {
      if (port.queue[pr].empty()) port.deficit[pr] = 0;
      continue;
    }
    uint32_t wire = port.wire_bytes(packets_[port.queue[pr].front()]);
    if (port.deficit[pr] < wire) {
      uint32_t quantum = config_.switches.dwrr_quantum[pr];
      port.deficit[pr] += quantum == 0 ? port.mtu + port.header : quantum;
    }
    if (port.deficit[pr] >= wire) {
      port.deficit[pr] -= wire;
      port.rr = static_cast<uint8_t>(pr);
      return take(port, pr, packet);
    }
  }
  return false;
}

void Egress::try_send(LinkId link) {
  EgressPort& port = ports_[link];
  if (port.busy) return;
  uint32_t p = 0;
  if (pick_queued(port, p)) {
    Packet& pkt = packets_[p];
    port.queued[pkt.priority] -= port.wire_bytes(pkt);
    if (pkt.hop > 0) leave_node(pkt, port.from);
    transmit(link, p);
    return;
  }
  if (sender_.pull(port, p)) {
    transmit(link, p);
    return;
  }
  // Nothing can go: wake up when the earliest pause on a waiting queue ends (credits and new
  // packets call try_send themselves).
  Time earliest = Time::max();
  for (int pr = 0; pr < kPriorities; ++pr) {
    if (port.queue[pr].empty()) continue;
    Time until = pfc_.paused_until(link, static_cast<uint8_t>(pr));
    if (until > engine_.now()) earliest = std::min(earliest, until);
  }
  if (earliest != Time::max()) schedule_wake(link, earliest);
  if (port.control == Control::credit) credit_wake(link);
}

void Egress::credit_wake(LinkId link) {
  EgressPort& port = ports_[link];
  if (port.busy || port.credit_wake_pending) return;
  Time at;
  uint64_t sequence = 0;
  if (!credits_.next_return(link, at, sequence)) return;
  port.credit_wake_pending = true;
  engine_.schedule_at_sequence(at, sequence, [this, link] {
    ports_[link].credit_wake_pending = false;
    try_send(link);
  });
}

void Egress::schedule_wake(LinkId link, Time at) {
  EgressPort& port = ports_[link];
  if (port.wake_pending && port.wake_at <= at) return;
  port.wake_pending = true;
  port.wake_at = at;
  engine_.schedule_at(at, [this, link, at] {
    EgressPort& p = ports_[link];
    if (!p.wake_pending || p.wake_at != at) return;  // superseded by an earlier wake-up
    p.wake_pending = false;
    try_send(link);
  });
}

void Egress::transmit(LinkId link, uint32_t p) {
  EgressPort& port = ports_[link];
  Packet& pkt = packets_[p];
  uint32_t wire = port.wire_bytes(pkt);
  if (!port.host_link) pkt.read = false;  // on the wire or NVLink it is sent again, and written at the far end
  pkt.charged = takes_no_credits(port, pkt)       ? 0
                : port.control == Control::credit ? credits_.take(link, pkt.priority, wire)
                                                  : wire;
  if (config_.ecn.enabled && pkt.kind == Kind::data && !pkt.ecn && port.from_switch) mark_ecn(port, pkt);
  pkt.in_link = port.link;
  port.busy = true;
  ++stats_.packet_hops;
  ++port.counters.packets;
  port.counters.wire += Bytes(wire);
  last_progress_ = engine_.now();
  Time serialised = engine_.now() + transmit_time(Bytes(wire), Bandwidth::bps(port.rate));
  if (recorder_.wants(Hook::link_bytes)) {
    recorder_.on_link_bytes({port.link, engine_.now(), serialised, static_cast<double>(wire)});
  }
  engine_.schedule_at(serialised, [this, link] {
    ports_[link].busy = false;
    try_send(link);
  });
  engine_.schedule_at(arrival(port, pkt, serialised), [this, p] { arrive(p); });
}

// How much of a packet a node takes in before it passes the packet on (0: all of it). A network
// switch that forwards cut-through routes on the header. PCIe switches, root complexes, NVSwitches
// and NICs move link-level packets (TLPs of MPS bytes, NVLink flits), so a 4 KiB RDMA packet
// streams through them one link packet at a time; a NIC takes a packet from the wire whole (the
// link packet is the MTU). A GPU is an end, never a hop.
uint32_t Egress::forward_after(NodeKind kind, const EgressPort& into) const {
  if (kind == NodeKind::gpu || !config_.switches.cut_through) return 0;
  if (kind == NodeKind::network_switch) return into.header;
  return into.mtu + into.header;
}

// When the far end takes the packet: once its head is in (EgressPort::head), if the packet goes
// on over a link no faster than this one (a faster output would run out of bytes to send); else,
// and at the last hop, once its last byte is in.
Time Egress::arrival(const EgressPort& port, const Packet& pkt, Time serialised) const {
  const Time tail = serialised + port.latency;
  if (!port.cut_through || pkt.hop + 1u >= pkt.path->links.size()) return tail;
  if (ports_[pkt.path->links[pkt.hop + 1]].rate > port.rate) return tail;
  return std::min(tail, engine_.now() + port.head + port.latency);
}

// RED at dequeue, on the bytes left behind in the packet's queue.
void Egress::mark_ecn(EgressPort& port, Packet& pkt) {
  if (ecn_mark(Bytes(port.queued[pkt.priority]), port.ecn_kmin, port.ecn_kmax, config_.ecn.pmax, rng_)) {
    pkt.ecn = true;
    ++stats_.ecn_marks;
    ++port.counters.ecn_marks;
  }
}

void Egress::arrive(uint32_t p) {
  Packet& pkt = packets_[p];
  EgressPort& in = ports_[pkt.in_link];
  if (pkt.hop + 1u == pkt.path->links.size()) {
    // The host takes it at once: give the last link its credits back (Ethernet hosts buffer nothing).
    if (in.control == Control::credit) credits_.give_back(pkt.in_link, pkt.priority, pkt.charged, in.latency);
    receiver_.deliver(p);
    return;
  }
  // A CPU is host memory: NCCL moves nothing across a host bridge peer-to-peer (P2P and GPUDirect RDMA
  // stop at PATH_PXB, src/graph/paths.cc), so what crosses a CPU is written to DRAM and read out
  // again. DRAM takes it at once: the link's credits come back on arrival, not when it moves on, and
  // the ingress buffer never ties one direction of a PCIe link to the other (which deadlocked two
  // 2-socket no-P2P nodes: RX to the far socket and SHM hairpins shared one root-port buffer).
  if (in.control == Control::credit && in.into_memory) {
    credits_.give_back(pkt.in_link, pkt.priority, pkt.charged, in.latency);
    pkt.read = true;  // what leaves memory is read by the next device (a GPU, a NIC, the other socket)
  }
  if (in.control != Control::credit && !buffer_.admit(pkt, in.to, in, ports_[pkt.path->links[pkt.hop + 1]])) {
    ++stats_.drops;
    ++in.counters.drops;
    if (check_ && in.control != Control::lossy) {
      throw InvariantError(fmt::format("packet fabric: lossless link {} dropped a packet", pkt.in_link));
    }
    packets_.release(p);
    return;
  }
  ++pkt.hop;
  enqueue(pkt.path->links[pkt.hop], p);
}

// The packet leaves `node`'s buffer as it starts on its next link.
void Egress::leave_node(const Packet& pkt, NodeIndex node) {
  const EgressPort& in = ports_[pkt.in_link];
  if (in.control == Control::credit) {
    if (!in.into_memory) credits_.give_back(pkt.in_link, pkt.priority, pkt.charged, in.latency);
    return;
  }
  buffer_.leave(pkt, node);
}

}  // namespace weft::packet
