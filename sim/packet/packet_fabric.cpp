// Ports, forwarding and link-level flow control of the packet fabric (see packet_fabric.h).
#include "sim/packet/packet_fabric.h"

#include <fmt/format.h>
#include <algorithm>

#include "sim/core/errors.h"

namespace weft {
namespace {

constexpr uint32_t kLargestSegment = 4096;  // bytes of payload per packet off the network (intra-host)
constexpr uint32_t kPauseFrameBytes = 64;   // 802.1Qbb MAC control frame
constexpr uint64_t kNicBuffer = 2'000'000;  // bytes a NIC buffers from the wire [assumption: ConnectX class, MBs]

uint64_t round_up(uint64_t bytes, uint64_t block) { return (bytes + block - 1) / block * block; }

}  // namespace

void PacketFabric::PacketQueue::push(uint32_t p) {
  if (size_ == slots_.size()) {
    std::vector<uint32_t> bigger(std::max<size_t>(16, slots_.size() * 2));
    for (size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) % slots_.size()];
    slots_ = std::move(bigger);
    head_ = 0;
  }
  slots_[(head_ + size_) % slots_.size()] = p;
  ++size_;
}

uint32_t PacketFabric::PacketQueue::pop() {
  uint32_t p = slots_[head_];
  head_ = (head_ + 1) % slots_.size();
  --size_;
  return p;
}

PacketFabric::PacketFabric(Engine& engine, Router& router, Recorder& recorder, packet::PacketConfig config,
                           bool check_invariants)
    : engine_(engine),
      router_(router),
      recorder_(recorder),
      config_(std::move(config)),
      check_(check_invariants),
      rng_(router.options().seed, "packet-fabric") {
  packet::validate(config_);
  build_ports();
}

PacketFabric::~PacketFabric() = default;

PacketFabric::Control PacketFabric::control_of(LinkKind kind) const {
  if (kind != LinkKind::ethernet) return Control::credit;  // InfiniBand VLs, NVLink, PCIe, generic
  return config_.pfc.enabled ? Control::pfc : Control::lossy;
}

void PacketFabric::build_ports() {
  const Topology& t = router_.topology();
  ports_.resize(t.link_count());
  for (LinkId l = 0; l < t.link_count(); ++l) {
    const LinkProps& link = t.link(l);
    Port& p = ports_[l];
    p.link = l;
    p.from = t.link_source(l);
    p.to = t.link_target(l);
    p.rate = link.rate.bps();
    p.latency = link.latency;
    p.mtu = link.mtu;
    p.header = link.header_bytes;
    p.control = control_of(link.kind);
    if (p.rate == 0) throw ConfigError(fmt::format("packet fabric: link {} has rate 0", l));
    if ((link.kind == LinkKind::ethernet || link.kind == LinkKind::infiniband) && (link.mtu < 256 || link.mtu > 4096)) {
      throw ConfigError(fmt::format("packet fabric: link {} ({}) has MTU {} B; RDMA over {} carries 256 to 4096 B", l,
                                    t.node(p.from).name, link.mtu,
                                    link.kind == LinkKind::ethernet ? "Ethernet" : "InfiniBand"));
    }
    if (p.control == Control::pfc) p.headroom = headroom_for(p, l);
    if (p.control == Control::credit) {
      // Credits for line rate: the credit loop (data one way, credits back) plus two packets.
      uint64_t largest = kLargestSegment + (kLargestSegment + p.mtu - 1) / p.mtu * p.header;
      uint64_t loop =
          static_cast<uint64_t>(static_cast<uint128>(p.rate) * (2 * link.latency.ps()) / 8'000'000'000'000ULL);
      uint64_t credits = config_.credits.buffer_per_vl.count();
      if (credits == 0) credits = loop + 2 * largest;
      if (credits < largest) {
        throw ConfigError(fmt::format("packet.credits: buffer_per_vl ({} B) cannot hold one packet ({} B) of link {}",
                                      credits, largest, l));
      }
      p.credits.fill(static_cast<int64_t>(round_up(credits, config_.credits.block_bytes)));
    }
  }
  buffer_used_.assign(t.node_count(), 0);
  buffer_size_.assign(t.node_count(), UINT64_MAX);
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    if (t.node(n).kind == NodeKind::network_switch) buffer_size_[n] = config_.switches.buffer.count();
    if (t.node(n).kind == NodeKind::nic) buffer_size_[n] = kNicBuffer;
  }
  check_static_pfc_fits(t);
}

// With a static XOFF a switch must hold XOFF plus the headroom of every lossless ingress port at
// once (an incast from all of them pauses only past XOFF); a smaller shared buffer drops what PFC
// was to keep, which a lossless transport never recovers: say so before running.
void PacketFabric::check_static_pfc_fits(const Topology& t) const {
  if (!config_.pfc.enabled || config_.pfc.dynamic) return;
  std::vector<uint64_t> need(t.node_count(), 0);
  std::vector<uint32_t> ports(t.node_count(), 0);
  for (const Port& p : ports_) {
    if (p.control != Control::pfc) continue;
    need[p.to] += config_.pfc.xoff.count() + p.headroom;
    ++ports[p.to];
  }
  for (NodeIndex n = 0; n < t.node_count(); ++n) {
    if (t.node(n).kind != NodeKind::network_switch || need[n] <= buffer_size_[n]) continue;
    throw ConfigError(fmt::format(
        "packet.pfc: switch {} has {} lossless ports; static xoff {} B plus headroom on each needs {} B, more than "
        "its {} B buffer (packet.switches.buffer): PFC could not keep it lossless. Lower xoff, raise the buffer, or "
        "use the dynamic threshold (pfc.dynamic: true)",
        t.node(n).name, ports[n], config_.pfc.xoff.count(), need[n], buffer_size_[n]));
  }
}

// PFC headroom: what arrives after the pause is sent: a frame being sent at each end, the pause
// frame, and a round trip of the cable at line rate (IEEE 802.1Qbb headroom terms).
uint64_t PacketFabric::headroom_for(const Port& p, LinkId l) const {
  uint64_t frame = p.mtu + p.header;
  uint64_t round_trip =
      static_cast<uint64_t>(static_cast<uint128>(p.rate) * (2 * p.latency.ps()) / 8'000'000'000'000ULL);
  uint64_t needed = 2 * frame + kPauseFrameBytes + round_trip;
  uint64_t given = config_.pfc.headroom.count();
  if (given == 0) return needed;
  if (given < needed) {
    throw ConfigError(
        fmt::format("packet.pfc: headroom {} B is below what link {} needs ({} B: two {} B frames, a "
                    "pause frame and the {} B in flight over a round trip)",
                    given, l, needed, frame, round_trip));
  }
  return given;
}

uint32_t PacketFabric::wire_bytes(const Port& port, const Packet& p) const {
  if (p.kind != Kind::data) return std::max<uint32_t>(64, port.header + 4);  // + AETH; minimum frame
  uint32_t packets_on_link = (p.payload + port.mtu - 1) / port.mtu;          // e.g. PCIe TLPs of MPS bytes
  return p.payload + std::max<uint32_t>(packets_on_link, 1) * port.header;
}

uint32_t PacketFabric::allocate_packet() {
  if (free_packets_.empty()) {
    packets_.emplace_back();
    return static_cast<uint32_t>(packets_.size() - 1);
  }
  uint32_t p = free_packets_.back();
  free_packets_.pop_back();
  return p;
}

void PacketFabric::free_packet(uint32_t p) {
  free_packets_.push_back(p);
  --in_network_;
}

uint64_t PacketFabric::queued_bytes(LinkId link) const {
  uint64_t sum = 0;
  for (uint64_t q : ports_[link].queued) sum += q;
  return sum;
}

std::vector<LinkStats> PacketFabric::link_stats() const {
  std::vector<LinkStats> out;
  for (const Port& p : ports_) {
    if (p.counters.packets == 0) continue;
    out.push_back(p.counters);
    out.back().link = p.link;
  }
  return out;
}

// Every queue_sample_interval while transfers are open: each non-empty egress queue to the Recorder.
void PacketFabric::sample_queues() {
  sampling_ = false;
  if (stats_.transfers_done == stats_.transfers_started) return;
  for (const Port& p : ports_) {
    for (int pr = 0; pr < packet::kPriorities; ++pr) {
      if (p.queued[pr] > 0) {
        recorder_.on_queue_sample({engine_.now(), p.link, static_cast<uint8_t>(pr), Bytes(p.queued[pr])});
      }
    }
  }
  sampling_ = true;
  engine_.schedule_at(engine_.now() + config_.queue_sample_interval, [this] { sample_queues(); });
}

// ---------------------------------------------------------------------------------------------
// Egress: scheduling and transmission

void PacketFabric::enqueue(uint32_t port, uint32_t p) {
  Port& out = ports_[port];
  const Packet& pkt = packets_[p];
  out.queue[pkt.priority].push(p);
  out.nonempty |= static_cast<uint8_t>(1u << pkt.priority);
  out.queued[pkt.priority] += wire_bytes(out, pkt);
  stats_.max_queue = std::max(stats_.max_queue, Bytes(out.queued[pkt.priority]));
  out.counters.max_queue = std::max(out.counters.max_queue, Bytes(out.queued[pkt.priority]));
  try_send(port);
}

// May the port start a packet of this priority and size now (not paused, credits at the far end)?
bool PacketFabric::sendable(Port& port, uint8_t priority, uint32_t wire) {
  if (port.paused_until[priority] > engine_.now()) return false;
  if (port.control == Control::credit) {
    return port.credits[priority] >= static_cast<int64_t>(round_up(wire, config_.credits.block_bytes));
  }
  return true;
}

bool PacketFabric::pick_queued(Port& port, uint32_t& packet) {
  if (port.nonempty == 0) return false;
  auto ready = [&](int pr) {
    return (port.nonempty >> pr & 1) &&
           sendable(port, static_cast<uint8_t>(pr), wire_bytes(port, packets_[port.queue[pr].front()]));
  };
  auto take = [&](int pr) {
    packet = port.queue[pr].pop();
    if (port.queue[pr].empty()) port.nonempty &= static_cast<uint8_t>(~(1u << pr));
    return true;
  };
  if (ready(config_.control_priority)) return take(config_.control_priority);  // ACK, NACK, CNP first
  if (config_.switches.scheduler == packet::Scheduler::strict) {
    for (int pr = packet::kPriorities - 1; pr >= 0; --pr) {
      if (ready(pr)) return take(pr);
    }
    return false;
  }
  // DWRR: each visit adds a quantum to the priority's deficit; it sends while the deficit covers it.
  for (int pass = 0; pass < 2 * packet::kPriorities; ++pass) {
    int pr = (port.rr + pass) % packet::kPriorities;
    if (!ready(pr)) {
      if (port.queue[pr].empty()) port.deficit[pr] = 0;
      continue;
    }
    uint32_t wire = wire_bytes(port, packets_[port.queue[pr].front()]);
    if (port.deficit[pr] < wire) {
      uint32_t quantum = config_.switches.dwrr_quantum[pr];
      port.deficit[pr] += quantum == 0 ? port.mtu + port.header : quantum;
    }
    if (port.deficit[pr] >= wire) {
      port.deficit[pr] -= wire;
      port.rr = static_cast<uint8_t>(pr);
      return take(pr);
    }
  }
  return false;
}

void PacketFabric::try_send(uint32_t port_index) {
  Port& port = ports_[port_index];
  if (port.busy) return;
  uint32_t p = 0;
  if (pick_queued(port, p)) {
    Packet& pkt = packets_[p];
    port.queued[pkt.priority] -= wire_bytes(port, pkt);
    if (pkt.hop > 0) leave_buffer(pkt, port.from);
    transmit(port_index, p);
    return;
  }
  if (pull(port, p)) {
    transmit(port_index, p);
    return;
  }
  // Nothing can go: wake up when the earliest pause on a waiting queue ends (credits and new
  // packets call try_send themselves).
  Time earliest = Time::max();
  for (int pr = 0; pr < packet::kPriorities; ++pr) {
    if (!port.queue[pr].empty() && port.paused_until[pr] > engine_.now())
      earliest = std::min(earliest, port.paused_until[pr]);
  }
  if (earliest != Time::max()) schedule_wake(port_index, earliest);
}

void PacketFabric::schedule_wake(uint32_t port_index, Time at) {
  Port& port = ports_[port_index];
  if (port.wake_pending && port.wake_at <= at) return;
  port.wake_pending = true;
  port.wake_at = at;
  engine_.schedule_at(at, [this, port_index, at] {
    Port& p = ports_[port_index];
    if (!p.wake_pending || p.wake_at != at) return;  // superseded by an earlier wake-up
    p.wake_pending = false;
    try_send(port_index);
  });
}

void PacketFabric::transmit(uint32_t port_index, uint32_t p) {
  Port& port = ports_[port_index];
  Packet& pkt = packets_[p];
  uint32_t wire = wire_bytes(port, pkt);
  if (port.control == Control::credit) {
    pkt.charged = static_cast<uint32_t>(round_up(wire, config_.credits.block_bytes));
    port.credits[pkt.priority] -= pkt.charged;
  } else {
    pkt.charged = wire;
  }
  if (config_.ecn.enabled && pkt.kind == Kind::data && !pkt.ecn &&
      router_.topology().node(port.from).kind == NodeKind::network_switch) {
    Bandwidth rate = Bandwidth::bps(port.rate);
    if (packet::ecn_mark(Bytes(port.queued[pkt.priority]), config_.ecn.kmin(rate), config_.ecn.kmax(rate),
                         config_.ecn.pmax, rng_)) {
      pkt.ecn = true;
      ++stats_.ecn_marks;
      ++port.counters.ecn_marks;
    }
  }
  pkt.in_link = port.link;
  port.busy = true;
  ++stats_.packet_hops;
  ++port.counters.packets;
  port.counters.wire += Bytes(wire);
  last_progress_ = engine_.now();
  Time serialised = engine_.now() + transmit_time(Bytes(wire), Bandwidth::bps(port.rate));
  // Each packet's wire bytes over its serialisation, for a link timeline.
  if (recorder_.wants(Hook::link_bytes))
    recorder_.on_link_bytes({port.link, engine_.now(), serialised, static_cast<double>(wire)});
  engine_.schedule_at(serialised, [this, port_index] {
    ports_[port_index].busy = false;
    try_send(port_index);
  });
  engine_.schedule_at(serialised + port.latency, [this, p] { arrive(p); });
}

// ---------------------------------------------------------------------------------------------
// Ingress: admission, buffers, PFC and credits

void PacketFabric::arrive(uint32_t p) {
  Packet& pkt = packets_[p];
  NodeIndex node = ports_[pkt.in_link].to;
  if (pkt.hop + 1u == pkt.path->links.size()) {
    deliver(p);
    return;
  }
  if (!admit(p, node)) {
    ++stats_.drops;
    ++ports_[pkt.in_link].counters.drops;
    if (check_ && ports_[pkt.in_link].control != Control::lossy) {
      throw InvariantError(fmt::format("packet fabric: lossless link {} dropped a packet", pkt.in_link));
    }
    free_packet(p);
    return;
  }
  ++pkt.hop;
  enqueue(pkt.path->links[pkt.hop], p);
}

// Ethernet ingress: charge the shared buffer and the (ingress port, priority) counter; pause the
// upstream port above XOFF; drop when the buffer is full (or, lossy, above the queue's share).
// Credit links need no check: the sender held credits for this space.
bool PacketFabric::admit(uint32_t p, NodeIndex node) {
  Packet& pkt = packets_[p];
  Port& in = ports_[pkt.in_link];
  if (in.control == Control::credit) return true;
  uint64_t free = buffer_size_[node] - std::min(buffer_size_[node], buffer_used_[node]);
  if (pkt.charged > free) return false;
  if (in.control == Control::lossy) {
    // Drop-tail with a dynamic threshold of alpha = 1: an egress queue may hold up to the free buffer.
    const Port& out = ports_[pkt.path->links[pkt.hop + 1]];
    if (out.queued[pkt.priority] + pkt.charged > free) return false;
  }
  if (in.control == Control::pfc && in.pausing[pkt.priority] &&
      in.ingress[pkt.priority] + pkt.charged > in.pause_level[pkt.priority] + in.headroom) {
    return false;  // beyond the headroom reserved when the pause left: a lossless violation
  }
  buffer_used_[node] += pkt.charged;
  in.ingress[pkt.priority] += pkt.charged;
  if (in.control == Control::pfc && !in.pausing[pkt.priority] && in.ingress[pkt.priority] > xoff(node)) {
    in.pause_level[pkt.priority] = in.ingress[pkt.priority];
    send_pause(pkt.in_link, pkt.priority, true);
  }
  return true;
}

// The packet leaves `node`'s buffer (it starts on its next link, or reaches its host).
void PacketFabric::leave_buffer(const Packet& pkt, NodeIndex node) {
  Port& in = ports_[pkt.in_link];
  if (in.control == Control::credit) {
    LinkId link = pkt.in_link;
    uint8_t priority = pkt.priority;
    uint32_t blocks = pkt.charged;
    engine_.schedule_at(engine_.now() + in.latency, [this, link, priority, blocks] {
      ports_[link].credits[priority] += blocks;
      try_send(link);
    });
    return;
  }
  buffer_used_[node] -= pkt.charged;
  in.ingress[pkt.priority] -= pkt.charged;
  uint64_t threshold = xoff(node);
  uint64_t resume = threshold > config_.pfc.xon_offset.count() ? threshold - config_.pfc.xon_offset.count() : 0;
  if (in.pausing[pkt.priority] && in.ingress[pkt.priority] <= resume) send_pause(pkt.in_link, pkt.priority, false);
}

uint64_t PacketFabric::xoff(NodeIndex node) const {
  if (!config_.pfc.dynamic) return config_.pfc.xoff.count();
  uint64_t size = buffer_size_[node] == UINT64_MAX ? config_.switches.buffer.count() : buffer_size_[node];
  uint64_t free = size - std::min(size, buffer_used_[node]);
  return static_cast<uint64_t>(config_.pfc.alpha * static_cast<double>(free));
}

// A pause (or resume) frame from link's receiver back to its sender: one minimum frame of wire time
// plus the propagation delay. While pausing, the receiver refreshes it at half the quanta.
void PacketFabric::send_pause(LinkId link, uint8_t priority, bool pause) {
  Port& port = ports_[link];
  port.pausing[priority] = pause;
  Time quanta = pause ? transmit_time_bits(512ULL * config_.pfc.quanta, port.rate) : Time();
  Time arrival = engine_.now() + transmit_time(Bytes(kPauseFrameBytes), Bandwidth::bps(port.rate)) + port.latency;
  if (pause) {
    ++stats_.pause_frames;
    engine_.schedule_at(engine_.now() + Time::ps(quanta.ps() / 2),
                        [this, link, priority] { refresh_pause(link, priority); });
  }
  engine_.schedule_at(arrival, [this, link, priority, pause, quanta] {
    pause_arrived(link, priority, pause ? engine_.now() + quanta : engine_.now());
  });
}

void PacketFabric::refresh_pause(LinkId link, uint8_t priority) {
  if (ports_[link].pausing[priority]) send_pause(link, priority, true);
}

void PacketFabric::pause_arrived(LinkId link, uint8_t priority, Time until) {
  Port& port = ports_[link];
  Time now = engine_.now();
  bool paused = port.paused_until[priority] > now;
  if (!paused) {
    // A previous pause that ran out of quanta: count it, then start anew.
    Time expired = port.paused_until[priority] - port.paused_since[priority];
    stats_.paused_time += expired;
    port.counters.paused += expired;
    port.paused_since[priority] = now;
    port.paused_until[priority] = now;
  }
  if (until > now) {
    ++port.counters.pauses;
    port.paused_until[priority] = until;
    return;
  }
  stats_.paused_time += now - port.paused_since[priority];  // resume
  port.counters.paused += now - port.paused_since[priority];
  port.paused_since[priority] = now;
  port.paused_until[priority] = now;
  try_send(link);
}

}  // namespace weft
