// Receiving data, acknowledging it and finishing flows (see receiver.h).
#include "sim/packet/receiver.h"

#include <algorithm>

#include "sim/packet/group_stripe.h"
#include "sim/packet/sender_feedback.h"

namespace weft::packet {

Receiver::Receiver(const FabricContext& c, Egress& egress, SenderFeedback& feedback, GroupStripes& stripes)
    : engine_(c.engine),
      config_(c.config),
      router_(c.router),
      recorder_(c.recorder),
      stats_(c.stats),
      packets_(c.packets),
      flows_(c.flows),
      egress_(egress),
      feedback_(feedback),
      stripes_(stripes) {}

void Receiver::deliver(uint32_t p) {
  const Packet& pkt = packets_[p];
  if (flows_.current(pkt)) {  // else the flow finished and its slot was reused
    if (pkt.kind == Kind::data) {
      receive_data(p);
    } else {
      feedback_.on_control(p);
    }
  }
  packets_.release(p);
}

void Receiver::receive_data(uint32_t p) {
  const Packet pkt = packets_[p];  // a copy: sending a control packet may reuse the pool
  Flow& flow = flows_[pkt.flow];
  ReceiveState& r = flow.receive;
  if (r.done) return;  // a retransmitted copy of something already complete
  if (flow.stripe >= 0) stripes_.arrival(static_cast<uint32_t>(flow.stripe), pkt);
  if (pkt.ecn) {
    if (r.cnp && r.cnp->should_send(engine_.now())) send_control(pkt.flow, Kind::cnp, 0, 0);
    ++r.echo;
  }
  if (!flow.reliable) {
    if (++r.received == flow.packets) finish(pkt.flow);
    return;
  }
  if (flow.selective) {
    track_selective(flow, pkt);
  } else {
    track_in_order(flow, pkt);
  }
  // A window-limited (DCTCP) sender needs every packet acknowledged, or a window smaller than the
  // ack interval would stall until the timeout; rate-paced RDMA coalesces ack_every packets.
  uint32_t every = flow.windowed ? 1 : config_.lossy.ack_every;
  if (++r.since_ack >= every || r.expected == flow.packets) {
    send_control(pkt.flow, Kind::ack, r.expected, static_cast<uint16_t>(std::min<uint32_t>(r.echo, UINT16_MAX)));
    r.since_ack = 0;
    r.echo = 0;
  }
  if (r.expected == flow.packets) finish(pkt.flow);
}

// Selective repeat: keep what arrives; NACK each newly seen gap once, as a range.
void Receiver::track_selective(Flow& flow, const Packet& pkt) {
  ReceiveState& r = flow.receive;
  if (pkt.seq > r.highest_seen) {
    uint32_t missing = pkt.seq - r.highest_seen;
    send_control(pkt.flow, Kind::nack, r.highest_seen, static_cast<uint16_t>(std::min<uint32_t>(missing, UINT16_MAX)));
  }
  r.highest_seen = std::max(r.highest_seen, pkt.seq + 1);
  if (pkt.seq >= r.expected && !r.got[pkt.seq]) {
    r.got[pkt.seq] = true;
    ++r.received;
    while (r.expected < flow.packets && r.got[r.expected]) ++r.expected;
  }
}

// Go-back-N: only the next in order is kept; one NACK per hole.
void Receiver::track_in_order(Flow& flow, const Packet& pkt) {
  ReceiveState& r = flow.receive;
  if (pkt.seq == r.expected) {
    ++r.expected;
    ++r.received;
  } else if (pkt.seq > r.expected && r.nacked != r.expected) {
    r.nacked = r.expected;
    send_control(pkt.flow, Kind::nack, r.expected, 1);
  }
}

// ACK, NACK or CNP from the receiver back to the sender, on the reverse route at control priority.
void Receiver::send_control(uint32_t f, Kind kind, uint32_t seq, uint16_t echo) {
  Flow& flow = flows_[f];
  const Path& back = router_.route(flow.transfer.dst, flow.transfer.src, flow.transfer.entropy);
  if (kind == Kind::cnp) ++stats_.cnps;
  uint32_t p = packets_.acquire();
  Packet& pkt = packets_[p];
  pkt.path = &back;
  pkt.flow = f;
  pkt.flow_id = flow.id;
  pkt.seq = seq;
  pkt.echo = echo;
  pkt.kind = kind;
  pkt.priority = config_.control_priority;
  egress_.enqueue(back.links[0], p);
}

void Receiver::finish(uint32_t f) {
  Flow& flow = flows_[f];
  flow.receive.done = true;
  count_delivered(stats_, recorder_, flow.id, flow.transfer, flow.start, engine_.now());
  OnTransferDone done = std::move(flow.on_done);
  flows_.release_if_done(f);
  done();
}

}  // namespace weft::packet
