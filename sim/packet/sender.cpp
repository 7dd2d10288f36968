// Starting flows and making their data packets (see sender.h).
#include "sim/packet/sender.h"

#include <fmt/format.h>
#include <algorithm>

#include "sim/core/errors.h"
#include "sim/packet/queue_sampler.h"
#include "sim/packet/receiver.h"
#include "sim/packet/sender_feedback.h"
#include "sim/packet/stall_watchdog.h"

namespace weft::packet {
namespace {

// Payload per packet on paths without network links: NVLink and PCIe switches forward cut-through
// (an NVLink packet carries at most 256 B of data), which whole store-and-forward segments would
// delay by a segment's serialisation per extra hop. A transfer is cut into at least kHostPieces
// segments of 256 B to 4 KiB, so that delay stays under 1/kHostPieces of its time per hop, while
// large transfers keep 4 KiB packets (the event count of the fabric grows with packets).
constexpr uint32_t kHostSegment = 4096;
constexpr uint32_t kHostMinSegment = 256;
constexpr uint64_t kHostPieces = 32;

uint32_t host_segment(uint64_t bytes) {
  const uint64_t piece = (bytes + kHostPieces - 1) / kHostPieces;
  return static_cast<uint32_t>(std::clamp<uint64_t>(piece, kHostMinSegment, kHostSegment));
}
// Spraying and adaptive routing choose among up to this many equal-cost switch paths per flow
// (a k=16 fat-tree has 64 between pods).
constexpr uint32_t kChoices = 64;

bool network_link(LinkKind kind) { return kind == LinkKind::ethernet || kind == LinkKind::infiniband; }

}  // namespace

Sender::Sender(const FabricContext& c, Egress& egress, QueuePairs& queue_pairs, SenderFeedback& feedback,
               Receiver& receiver, StallWatchdog& watchdog, QueueSampler& sampler)
    : engine_(c.engine),
      config_(c.config),
      router_(c.router),
      rng_(c.rng),
      stats_(c.stats),
      packets_(c.packets),
      flows_(c.flows),
      egress_(egress),
      queue_pairs_(queue_pairs),
      feedback_(feedback),
      receiver_(receiver),
      watchdog_(watchdog),
      sampler_(sampler) {}

size_t Sender::RouteKeyHash::operator()(const RouteKey& k) const {
  uint64_t state = (static_cast<uint64_t>(k.src) << 32 | k.dst) ^ (k.entropy * 0x9E3779B97F4A7C15ULL);
  return splitmix64(state);
}

// ---------------------------------------------------------------------------------------------
// Starting a transfer

uint32_t Sender::start(const Path& path, const Transfer& transfer, OnTransferDone on_done) {
  if (transfer.priority >= kPriorities) {
    throw ConfigError(
        fmt::format("packet fabric: priority {} has no queue (expected 0 to {})", transfer.priority, kPriorities - 1));
  }
  uint32_t f = flows_.add();
  Flow& flow = flows_[f];
  flow.transfer = transfer;
  flow.on_done = std::move(on_done);
  flow.path = &path;
  flow.start = engine_.now();
  flow.send.next_send = engine_.now();
  ++stats_.transfers_started;
  if (path.links.empty() || transfer.bytes.count() == 0) {  // nothing to carry: done one path latency later
    flow.send.done = true;
    engine_.schedule_at(engine_.now() + path.latency, [this, f] { receiver_.finish(f); });
    return f;
  }
  shape(flow, path);
  if (router_.options().policy != RoutingPolicy::ecmp) attach_spray(flow);
  flow.send.queue_pair = queue_pairs_.of(transfer.src, path.links[0], transfer.entropy);
  std::deque<uint32_t>& in_queue = queue_pairs_.flows(flow.send.queue_pair);
  if (in_queue.empty()) {  // an idle queue pair's limit starts now; else it goes on behind the flows in front
    Time& clock = queue_pairs_.limit_clock(flow.send.queue_pair);
    clock = std::max(clock, engine_.now());
  }
  in_queue.push_back(f);
  watchdog_.arm();
  sampler_.start();
  egress_.try_send(path.links[0]);
  return f;
}

// Packets are as large as every network link on the path allows (its RDMA MTU); off the network
// they are 4 KiB chunks, which PCIe and NVLink carry as several TLPs / flit groups. A path with an
// Ethernet link without PFC may drop, so it needs acks; so does DCTCP everywhere.
void Sender::shape(Flow& flow, const Path& path) {
  const Topology& topo = router_.topology();
  flow.segment = kHostSegment;  // a NIC cuts at the MTU whatever the message
  bool lossy = config_.transport == Transport::dctcp;
  bool ethernet = false;
  bool network = false;
  for (LinkId l : path.links) {
    const LinkProps& link = topo.link(l);
    if (network_link(link.kind)) {
      flow.segment = std::min(flow.segment, link.mtu);
      network = true;
    }
    if (link.kind == LinkKind::ethernet) {
      ethernet = true;
      lossy |= !config_.pfc.enabled;
    }
  }
  if (!network) flow.segment = host_segment(flow.transfer.bytes.count());
  flow.packets = static_cast<uint32_t>((flow.transfer.bytes.count() + flow.segment - 1) / flow.segment);
  flow.reliable = lossy;
  flow.selective = config_.lossy.mode == Retransmit::selective && flow.reliable;
  Bandwidth line = Bandwidth::bps(egress_.port(path.links[0]).rate);
  for (LinkId l : path.links) {  // DCQCN works at the NIC's line rate
    if (topo.link(l).kind == LinkKind::ethernet) {
      line = topo.link(l).rate;
      break;
    }
  }
  if (config_.transport == Transport::dctcp) {
    flow.send.window = std::make_unique<DctcpWindow>(config_.dctcp, flow.segment);
    flow.windowed = true;
  } else if (ethernet && config_.dcqcn.enabled) {
    flow.send.dcqcn = std::make_unique<DcqcnSender>(config_.dcqcn, line, engine_.now());
    flow.receive.cnp = std::make_unique<CnpLimiter>(config_.dcqcn.cnp_interval);
  }
  if (flow.selective) flow.receive.got.assign(flow.packets, false);
}

// Spraying and adaptive routing: the equal-cost variants of the flow's path, shared by every flow
// with the same ends and entropy (the NICs follow the entropy).
void Sender::attach_spray(Flow& flow) {
  const Transfer& t = flow.transfer;
  RouteKey key{t.src, t.dst, t.entropy};
  auto it = spray_paths_.find(key);
  if (it == spray_paths_.end())
    it = spray_paths_.emplace(key, router_.variants(t.src, t.dst, t.entropy, kChoices)).first;
  flow.spray = &it->second;
}

// ---------------------------------------------------------------------------------------------
// Sending

// Can the flow send a packet now? If only pacing holds it back, `retry_at` says when.
bool Sender::eligible(Flow& flow, Time& retry_at) {
  SendState& s = flow.send;
  while (!s.resend.empty() && s.resend.front() < s.acked) {  // acknowledged meanwhile
    s.to_resend[s.resend.front()] = false;
    s.resend.pop_front();
  }
  bool has_data = !s.resend.empty() || s.next_seq < flow.packets;
  if (!has_data) return false;
  if (s.window) {
    uint64_t in_flight = static_cast<uint64_t>(s.next_seq - s.acked) * flow.segment;
    if (s.resend.empty() && in_flight >= s.window->cwnd()) return false;  // an ack will wake it
  }
  if (s.next_send > engine_.now()) {
    retry_at = std::min(retry_at, s.next_send);
    return false;
  }
  return flow.transfer.max_rate == 0 || limit_allows(flow, retry_at);
}

// The sender's limit holds its bytes to the limit as flow's fluid does, its first packet included:
// a packet may leave once its last byte, serialised at the first link's rate, would not get ahead of
// the queue pair's limit clock plus the packet at the limit. A transfer of one packet so takes
// payload / limit, not payload / line rate; a queue pair's next transfer goes on from the clock.
bool Sender::limit_allows(const Flow& flow, Time& retry_at) {
  const uint32_t payload = flow.payload(flow.send.resend.empty() ? flow.send.next_seq : flow.send.resend.front());
  const Time earliest = queue_pairs_.limit_clock(flow.send.queue_pair) +
                        transmit_time(Bytes(payload), Bandwidth::bps(flow.transfer.max_rate)) -
                        first_hop_time(flow, payload);
  if (earliest <= engine_.now()) return true;
  retry_at = std::min(retry_at, earliest);
  return false;
}

Time Sender::first_hop_time(const Flow& flow, uint32_t payload) {
  const EgressPort& port = egress_.port(flow.path->links[0]);
  Packet probe;
  probe.payload = payload;
  return transmit_time(Bytes(port.wire_bytes(probe)), Bandwidth::bps(port.rate));
}

bool Sender::pull(EgressPort& port, uint32_t& packet) {
  QueuePairs::Feeders& feeders = queue_pairs_.feeders(port.link);
  size_t n = feeders.queue_pairs.size();
  Time retry_at = Time::max();
  // Round robin from `next`; a division only when `next` lies beyond a list that shrank.
  size_t at = feeders.next < n ? feeders.next : (n == 0 ? 0 : feeders.next % n);
  for (size_t i = 0; i < n; ++i, at = at + 1 == n ? 0 : at + 1) {
    uint32_t qp = feeders.queue_pairs[at];
    for (uint32_t f : queue_pairs_.flows(qp)) {
      Flow& flow = flows_[f];
      if (!eligible(flow, retry_at)) {
        if (flow.send.resend.empty() && flow.send.next_seq >= flow.packets) continue;  // all sent; awaiting acks
        break;
      }
      Packet probe;
      probe.payload = flow.payload(flow.send.resend.empty() ? flow.send.next_seq : flow.send.resend.front());
      if (!egress_.sendable(port, flow.transfer.priority, port.wire_bytes(probe))) break;
      packet = make_data_packet(f);
      feeders.next = static_cast<uint32_t>(at + 1 == n ? 0 : at + 1);
      return true;
    }
  }
  if (retry_at != Time::max()) egress_.schedule_wake(port.link, retry_at);
  return false;
}

const Path* Sender::path_for_packet(Flow& flow) {
  if (!flow.spray || flow.spray->size() < 2) return flow.path;
  const PathSet& set = *flow.spray;
  if (router_.options().policy == RoutingPolicy::spray) return &set[rng_.uniform_below(set.size())];
  // Adaptive: the path whose egress queues hold the fewest bytes now (switches choosing their
  // least-loaded output, seen from the source); ties go to the flow's own ECMP path.
  const Path* best = flow.path;
  uint64_t best_load = UINT64_MAX;
  for (const Path& p : set) {
    uint64_t load = 0;
    for (LinkId l : p.links) load += egress_.port(l).queued_total();
    if (load < best_load || (load == best_load && &p == flow.path)) {
      best = &p;
      best_load = load;
    }
  }
  return best;
}

// The next packet to send: the first listed for selective repeat (eligible() dropped what was
// acknowledged meanwhile), else the next new one.
uint32_t Sender::next_seq(Flow& flow) {
  SendState& s = flow.send;
  if (s.resend.empty()) return s.next_seq++;
  uint32_t seq = s.resend.front();
  s.resend.pop_front();
  s.to_resend[seq] = false;
  return seq;
}

uint32_t Sender::make_data_packet(uint32_t f) {
  Flow& flow = flows_[f];
  uint32_t seq = next_seq(flow);
  if (seq < flow.send.highest_sent) ++stats_.retransmits;
  flow.send.highest_sent = std::max(flow.send.highest_sent, seq + 1);
  uint32_t p = packets_.acquire();
  Packet& pkt = packets_[p];
  pkt.path = path_for_packet(flow);
  pkt.flow = f;
  pkt.flow_id = flow.id;
  pkt.seq = seq;
  pkt.payload = flow.payload(seq);
  pkt.priority = flow.transfer.priority;
  pkt.kind = Kind::data;
  ++stats_.packets_sent;
  if (flow.send.dcqcn) pace(flow, pkt.payload);
  if (flow.transfer.max_rate > 0) {  // the limit clock goes on by this packet at the limit
    Time& clock = queue_pairs_.limit_clock(flow.send.queue_pair);
    clock = std::max(clock + transmit_time(Bytes(pkt.payload), Bandwidth::bps(flow.transfer.max_rate)),
                     engine_.now() + first_hop_time(flow, pkt.payload));
  }
  if (flow.reliable) feedback_.arm_rto(f);
  if (!flow.reliable && flow.send.next_seq == flow.packets) retire(f);
  return p;
}

// The next packet leaves once this one would have at the DCQCN rate (the sender's own limit is
// the queue pair's limit clock: limit_allows).
void Sender::pace(Flow& flow, uint32_t payload) {
  const Bandwidth rate = flow.send.dcqcn->rate(engine_.now());
  flow.send.dcqcn->on_sent(Bytes(payload), engine_.now());
  flow.send.next_send = engine_.now() + transmit_time(Bytes(payload), rate);
}

void Sender::retire(uint32_t f) {
  Flow& flow = flows_[f];
  flow.send.done = true;
  auto& list = queue_pairs_.flows(flow.send.queue_pair);
  list.erase(std::find(list.begin(), list.end(), f));
  flows_.release_if_done(f);
}

}  // namespace weft::packet
