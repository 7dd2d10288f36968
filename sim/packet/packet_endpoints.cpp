// Senders and receivers of the packet fabric (see packet_fabric.h): queue pairs that segment their
// transfers and feed the first port of the path when it has room, DCQCN pacing or a DCTCP window,
// and receivers that count bytes, acknowledge, NACK gaps and send CNPs.
#include <fmt/format.h>
#include <algorithm>

#include "sim/core/errors.h"
#include "sim/core/rng.h"
#include "sim/packet/packet_fabric.h"

namespace weft {
namespace {

constexpr uint32_t kHostSegment = 4096;  // payload per packet on paths without network links
// Spraying and adaptive routing choose among up to this many equal-cost switch paths per flow
// (a k=16 fat-tree has 64 between pods).
constexpr uint32_t kChoices = 64;

bool network_link(LinkKind kind) { return kind == LinkKind::ethernet || kind == LinkKind::infiniband; }

}  // namespace

size_t PacketFabric::QueuePairIdHash::operator()(const QueuePairId& k) const {
  uint64_t state = (static_cast<uint64_t>(k.src) << 32 | k.first_link) ^ (k.entropy * 0x9E3779B97F4A7C15ULL);
  return splitmix64(state);
}

size_t PacketFabric::FlowRouteKeyHash::operator()(const FlowRouteKey& k) const {
  uint64_t state = (static_cast<uint64_t>(k.src) << 32 | k.dst) ^ (k.entropy * 0x9E3779B97F4A7C15ULL);
  return splitmix64(state);
}

// ---------------------------------------------------------------------------------------------
// Starting a transfer

TransferId PacketFabric::start(const Transfer& transfer, OnTransferDone on_done) {
  return flows_[start_flow(transfer, std::move(on_done))].id;
}

uint32_t PacketFabric::start_flow(const Transfer& transfer, OnTransferDone on_done) {
  const Topology& topo = router_.topology();
  const Path& path = router_.route(transfer.src, transfer.dst, transfer.entropy);
  if (transfer.priority >= packet::kPriorities) {
    throw ConfigError(fmt::format("packet fabric: priority {} has no queue (expected 0 to {})", transfer.priority,
                                  packet::kPriorities - 1));
  }
  uint32_t f = new_flow();
  Flow& flow = flows_[f];
  flow.transfer = transfer;
  flow.on_done = std::move(on_done);
  flow.id = next_id_++;
  flow.path = &path;
  flow.start = engine_.now();
  flow.next_send = engine_.now();
  ++stats_.transfers_started;
  if (path.links.empty() || transfer.bytes.count() == 0) {  // nothing to carry: done one path latency later
    flow.sender_done = true;
    engine_.schedule_at(engine_.now() + path.latency, [this, f] { finish_receive(f); });
    return f;
  }
  // Packets are as large as every network link on the path allows (its RDMA MTU); off the network
  // they are 4 KiB chunks, which PCIe and NVLink carry as several TLPs / flit groups.
  flow.segment = kHostSegment;
  bool lossy = config_.transport == packet::Transport::dctcp;
  bool ethernet = false;
  for (LinkId l : path.links) {
    const LinkProps& link = topo.link(l);
    if (network_link(link.kind)) flow.segment = std::min(flow.segment, link.mtu);
    if (link.kind == LinkKind::ethernet) {
      ethernet = true;
      lossy |= !config_.pfc.enabled;
    }
  }
  flow.packets = static_cast<uint32_t>((transfer.bytes.count() + flow.segment - 1) / flow.segment);
  flow.reliable = lossy;
  Bandwidth line = Bandwidth::bps(ports_[path.links[0]].rate);
  for (LinkId l : path.links) {  // DCQCN works at the NIC's line rate
    if (topo.link(l).kind == LinkKind::ethernet) {
      line = topo.link(l).rate;
      break;
    }
  }
  if (config_.transport == packet::Transport::dctcp) {
    flow.window = std::make_unique<packet::DctcpWindow>(config_.dctcp, flow.segment);
  } else if (ethernet && config_.dcqcn.enabled) {
    flow.dcqcn = std::make_unique<packet::DcqcnSender>(config_.dcqcn, line, engine_.now());
    flow.cnp = std::make_unique<packet::CnpLimiter>(config_.dcqcn.cnp_interval);
  }
  if (config_.lossy.mode == packet::Retransmit::selective && flow.reliable) flow.got.assign(flow.packets, false);
  if (router_.options().policy != RoutingPolicy::ecmp) {
    FlowRouteKey key{transfer.src, transfer.dst, transfer.entropy};  // the NICs follow the entropy
    auto it = spray_paths_.find(key);
    if (it == spray_paths_.end()) {
      it = spray_paths_.emplace(key, router_.variants(transfer.src, transfer.dst, transfer.entropy, kChoices)).first;
    }
    flow.spray = &it->second;
  }
  flow.queue_pair = queue_pair_of(transfer, path.links[0]);
  queue_pairs_[flow.queue_pair].flows.push_back(f);
  arm_watchdog();
  if (config_.queue_sample_interval > Time() && recorder_.wants(Hook::queue_samples) && !sampling_) {
    sampling_ = true;
    engine_.schedule_at(engine_.now(), [this] { sample_queues(); });
  }
  try_send(path.links[0]);
  return f;
}

uint32_t PacketFabric::queue_pair_of(const Transfer& t, LinkId first_link) {
  auto [it, added] = queue_pair_index_.try_emplace(QueuePairId{t.src, first_link, t.entropy}, 0);
  if (added) {
    it->second = static_cast<uint32_t>(queue_pairs_.size());
    queue_pairs_.push_back({{}, first_link});
    ports_[first_link].feeders.push_back(it->second);
  }
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// Sending

// Can the flow send a packet now? If only pacing holds it back, `retry_at` says when.
bool PacketFabric::eligible(Flow& flow, Time& retry_at) {
  while (!flow.resend.empty() && flow.resend.front() < flow.acked) {  // acknowledged meanwhile
    flow.to_resend[flow.resend.front()] = false;
    flow.resend.pop_front();
  }
  bool has_data = !flow.resend.empty() || flow.next_seq < flow.packets;
  if (!has_data) return false;
  if (flow.window) {
    uint64_t in_flight = static_cast<uint64_t>(flow.next_seq - flow.acked) * flow.segment;
    if (flow.resend.empty() && in_flight >= flow.window->cwnd()) return false;  // an ack will wake it
  }
  if (flow.next_send > engine_.now()) {
    retry_at = std::min(retry_at, flow.next_send);
    return false;
  }
  return true;
}

// The first port of a path pulls from the queue pairs that start on it, round robin; within a
// queue pair, transfers go in order.
bool PacketFabric::pull(Port& port, uint32_t& packet) {
  size_t n = port.feeders.size();
  Time retry_at = Time::max();
  for (size_t i = 0; i < n; ++i) {
    uint32_t qp_index = port.feeders[(port.next_feeder + i) % n];
    QueuePairState& qp = queue_pairs_[qp_index];
    for (uint32_t f : qp.flows) {
      Flow& flow = flows_[f];
      if (!eligible(flow, retry_at)) {
        if (flow.resend.empty() && flow.next_seq >= flow.packets) continue;  // all sent; awaiting acks
        break;
      }
      uint32_t seq = flow.resend.empty() ? flow.next_seq : flow.resend.front();
      Packet probe;
      probe.payload = static_cast<uint32_t>(
          std::min<uint64_t>(flow.segment, flow.transfer.bytes.count() - static_cast<uint64_t>(seq) * flow.segment));
      if (!sendable(port, flow.transfer.priority, wire_bytes(port, probe))) break;
      packet = make_data_packet(f);
      port.next_feeder = static_cast<uint32_t>((port.next_feeder + i + 1) % n);
      return true;
    }
  }
  if (retry_at != Time::max()) schedule_wake(port.link, retry_at);
  return false;
}

const Path* PacketFabric::path_for_packet(Flow& flow) {
  if (!flow.spray || flow.spray->size() < 2) return flow.path;
  const PathSet& set = *flow.spray;
  if (router_.options().policy == RoutingPolicy::spray) return &set[rng_.uniform_below(set.size())];
  // Adaptive: the path whose egress queues hold the fewest bytes now (switches choosing their
  // least-loaded output, seen from the source); ties go to the flow's own ECMP path.
  const Path* best = flow.path;
  uint64_t best_load = UINT64_MAX;
  for (const Path& p : set) {
    uint64_t load = 0;
    for (LinkId l : p.links) load += queued_bytes(l);
    if (load < best_load || (load == best_load && &p == flow.path)) {
      best = &p;
      best_load = load;
    }
  }
  return best;
}

uint32_t PacketFabric::make_data_packet(uint32_t f) {
  Flow& flow = flows_[f];
  uint32_t seq;
  if (!flow.resend.empty()) {  // eligible() dropped what was acknowledged meanwhile
    seq = flow.resend.front();
    flow.resend.pop_front();
    flow.to_resend[seq] = false;
  } else {
    seq = flow.next_seq++;
  }
  if (seq < flow.highest_sent) ++stats_.retransmits;
  flow.highest_sent = std::max(flow.highest_sent, seq + 1);
  uint32_t p = allocate_packet();
  ++in_network_;
  Packet& pkt = packets_[p];
  pkt = Packet{};
  pkt.path = path_for_packet(flow);
  pkt.flow = f;
  pkt.flow_id = flow.id;
  pkt.seq = seq;
  pkt.payload = static_cast<uint32_t>(
      std::min<uint64_t>(flow.segment, flow.transfer.bytes.count() - static_cast<uint64_t>(seq) * flow.segment));
  pkt.priority = flow.transfer.priority;
  pkt.kind = Kind::data;
  ++stats_.packets_sent;
  if (flow.dcqcn || flow.transfer.max_rate > 0) {  // pace at the DCQCN rate and the sender's own limit
    uint64_t rate = flow.transfer.max_rate > 0 ? flow.transfer.max_rate : UINT64_MAX;
    if (flow.dcqcn) {
      rate = std::min(rate, flow.dcqcn->rate(engine_.now()).bps());
      flow.dcqcn->on_sent(Bytes(pkt.payload), engine_.now());
    }
    flow.next_send = engine_.now() + transmit_time(Bytes(pkt.payload), Bandwidth::bps(rate));
  }
  if (flow.reliable) arm_rto(f);
  if (!flow.reliable && flow.next_seq == flow.packets) retire_sender(f);
  return p;
}

// The sender is finished with the flow: it leaves its queue pair, which may start the next one.
void PacketFabric::retire_sender(uint32_t f) {
  Flow& flow = flows_[f];
  flow.sender_done = true;
  auto& list = queue_pairs_[flow.queue_pair].flows;
  list.erase(std::find(list.begin(), list.end(), f));
  if (flow.receiver_done) free_flows_.push_back(f);
}

void PacketFabric::wake_queue_pair(uint32_t qp) { try_send(queue_pairs_[qp].first_link); }

// ---------------------------------------------------------------------------------------------
// Receiving

void PacketFabric::deliver(uint32_t p) {
  Packet& pkt = packets_[p];
  // The host takes it at once: give the last link its credits back (Ethernet hosts buffer nothing).
  if (ports_[pkt.in_link].control == Control::credit) leave_buffer(pkt, ports_[pkt.in_link].to);
  if (flows_[pkt.flow].id == pkt.flow_id) {  // else the flow finished and its slot was reused
    if (pkt.kind == Kind::data) {
      receive_data(p);
    } else {
      receive_control(p);
    }
  }
  free_packet(p);
}

void PacketFabric::receive_data(uint32_t p) {
  const Packet pkt = packets_[p];  // a copy: sending a control packet may grow the pool
  Flow& flow = flows_[pkt.flow];
  if (flow.receiver_done) return;  // a retransmitted copy of something already complete
  if (flow.stripe >= 0) stripe_arrival(static_cast<uint32_t>(flow.stripe), pkt);
  if (pkt.ecn) {
    if (flow.cnp && flow.cnp->should_send(engine_.now())) send_control(pkt.flow, Kind::cnp, 0, 0);
    ++flow.echo;
  }
  if (!flow.reliable) {
    if (++flow.received == flow.packets) finish_receive(pkt.flow);
    return;
  }
  if (!flow.got.empty()) {
    // Selective repeat: keep what arrives; NACK each newly seen gap once, as a range.
    if (pkt.seq > flow.highest_seen) {
      uint32_t missing = pkt.seq - flow.highest_seen;
      send_control(pkt.flow, Kind::nack, flow.highest_seen,
                   static_cast<uint16_t>(std::min<uint32_t>(missing, UINT16_MAX)));
    }
    flow.highest_seen = std::max(flow.highest_seen, pkt.seq + 1);
    if (pkt.seq >= flow.expected && !flow.got[pkt.seq]) {
      flow.got[pkt.seq] = true;
      ++flow.received;
      while (flow.expected < flow.packets && flow.got[flow.expected]) ++flow.expected;
    }
  } else if (pkt.seq == flow.expected) {  // go-back-N: only the next in order is kept
    ++flow.expected;
    ++flow.received;
  } else if (pkt.seq > flow.expected && flow.nacked != flow.expected) {  // one NACK per hole
    flow.nacked = flow.expected;
    send_control(pkt.flow, Kind::nack, flow.expected, 1);
  }
  // A window-limited (DCTCP) sender needs every packet acknowledged, or a window smaller than the
  // ack interval would stall until the timeout; rate-paced RDMA coalesces ack_every packets.
  uint32_t every = flow.window ? 1 : config_.lossy.ack_every;
  if (++flow.since_ack >= every || flow.expected == flow.packets) {
    send_control(pkt.flow, Kind::ack, flow.expected, static_cast<uint16_t>(std::min<uint32_t>(flow.echo, UINT16_MAX)));
    flow.since_ack = 0;
    flow.echo = 0;
  }
  if (flow.expected == flow.packets) finish_receive(pkt.flow);
}

// ACK, NACK or CNP from the receiver back to the sender, on the reverse route at control priority.
void PacketFabric::send_control(uint32_t f, Kind kind, uint32_t seq, uint16_t echo) {
  Flow& flow = flows_[f];
  const Path& back = router_.route(flow.transfer.dst, flow.transfer.src, flow.transfer.entropy);
  if (kind == Kind::cnp) ++stats_.cnps;
  uint32_t p = allocate_packet();
  ++in_network_;
  Packet& pkt = packets_[p];
  pkt = Packet{};
  pkt.path = &back;
  pkt.flow = f;
  pkt.flow_id = flow.id;
  pkt.seq = seq;
  pkt.echo = echo;
  pkt.kind = kind;
  pkt.priority = config_.control_priority;
  enqueue(back.links[0], p);
}

void PacketFabric::receive_control(uint32_t p) {
  const Packet pkt = packets_[p];
  Flow& flow = flows_[pkt.flow];
  if (flow.sender_done) return;
  switch (pkt.kind) {
    case Kind::cnp:
      if (flow.dcqcn) flow.dcqcn->on_cnp(engine_.now());
      break;
    case Kind::ack:
      if (pkt.seq > flow.acked) {
        uint64_t newly = static_cast<uint64_t>(pkt.seq - flow.acked) * flow.segment;
        flow.acked = pkt.seq;
        if (flow.window) flow.window->on_ack(newly, std::min<uint64_t>(newly, uint64_t{pkt.echo} * flow.segment));
        if (flow.acked == flow.packets) {
          retire_sender(pkt.flow);
          return;
        }
        arm_rto(pkt.flow);
      }
      break;
    case Kind::nack:
      go_back(pkt.flow, pkt.seq, pkt.echo);
      if (flow.window) flow.window->on_loss();
      break;
    case Kind::data:
      break;
  }
  wake_queue_pair(flow.queue_pair);
}

// Resend from `seq` (go-back-N) or just [seq, seq + count) (selective repeat).
void PacketFabric::go_back(uint32_t f, uint32_t seq, uint32_t count) {
  Flow& flow = flows_[f];
  if (seq < flow.acked || seq >= flow.packets) return;
  if (flow.got.empty()) {
    flow.next_seq = std::min(flow.next_seq, seq);
    return;
  }
  if (flow.to_resend.empty()) flow.to_resend.assign(flow.packets, false);
  for (uint32_t s = seq; s < std::min(seq + count, flow.next_seq); ++s) {
    if (!flow.to_resend[s]) {
      flow.to_resend[s] = true;
      flow.resend.push_back(s);
    }
  }
}

// One timer event per flow at a time: progress only moves the deadline, and the event, when it
// fires early, sleeps again until the deadline.
void PacketFabric::arm_rto(uint32_t f) {
  Flow& flow = flows_[f];
  flow.rto_deadline = engine_.now() + config_.lossy.rto;
  if (flow.rto_armed) return;
  flow.rto_armed = true;
  schedule_rto(f, flow.rto_deadline);
}

void PacketFabric::schedule_rto(uint32_t f, Time at) {
  TransferId id = flows_[f].id;
  engine_.schedule_at(at, [this, f, id] {
    if (flows_[f].id == id) rto_fired(f);
  });
}

void PacketFabric::rto_fired(uint32_t f) {
  Flow& flow = flows_[f];
  if (flow.sender_done) {
    flow.rto_armed = false;
    return;
  }
  if (engine_.now() < flow.rto_deadline) {  // progress since: sleep until the new deadline
    schedule_rto(f, flow.rto_deadline);
    return;
  }
  flow.rto_armed = false;
  // Nothing acknowledged for a whole timeout: resend everything not yet acknowledged (selective
  // repeat queues it; the receiver ignores what it already holds).
  if (flow.got.empty()) {
    flow.next_seq = flow.acked;
  } else {
    go_back(f, flow.acked, flow.next_seq - flow.acked);
  }
  if (flow.window) flow.window->on_loss();
  wake_queue_pair(flow.queue_pair);
}

void PacketFabric::finish_receive(uint32_t f) {
  Flow& flow = flows_[f];
  flow.receiver_done = true;
  ++stats_.transfers_done;
  stats_.bytes_delivered += flow.transfer.bytes;
  if (recorder_.wants(Hook::transfers)) {
    const Transfer& t = flow.transfer;
    recorder_.on_transfer_done({flow.id, t.src, t.dst, t.bytes, flow.start, engine_.now(), t.tag});
  }
  OnTransferDone done = std::move(flow.on_done);
  if (flow.sender_done) free_flows_.push_back(f);
  done();
}

}  // namespace weft
