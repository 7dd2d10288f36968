// ACKs, NACKs, CNPs and the retransmission timeout at the sender (see sender_feedback.h).
#include "sim/packet/sender_feedback.h"

#include <algorithm>

#include "sim/packet/sender.h"

namespace weft::packet {

SenderFeedback::SenderFeedback(const FabricContext& c, Sender& sender)
    : engine_(c.engine), config_(c.config), packets_(c.packets), flows_(c.flows), sender_(sender) {}

void SenderFeedback::on_control(uint32_t p) {
  const Packet pkt = packets_[p];
  Flow& flow = flows_[pkt.flow];
  if (flow.send.done) return;
  switch (pkt.kind) {
    case Kind::cnp:
      if (flow.send.dcqcn) flow.send.dcqcn->on_cnp(engine_.now());
      break;
    case Kind::ack:
      if (on_ack(pkt.flow, pkt.seq, pkt.echo)) return;
      break;
    case Kind::nack:
      go_back(pkt.flow, pkt.seq, pkt.echo);
      if (flow.send.window) flow.send.window->on_loss();
      break;
    case Kind::data:
      break;
  }
  sender_.wake(flow.send.queue_pair);
}

// `seq` is the receiver's next expected packet; `echo` of the packets acknowledged carried ECN.
// True when that was the last: the sender retired.
bool SenderFeedback::on_ack(uint32_t f, uint32_t seq, uint16_t echo) {
  Flow& flow = flows_[f];
  SendState& s = flow.send;
  if (seq <= s.acked) return false;
  uint64_t newly = static_cast<uint64_t>(seq - s.acked) * flow.segment;
  s.acked = seq;
  if (s.window) s.window->on_ack(newly, std::min<uint64_t>(newly, uint64_t{echo} * flow.segment));
  if (s.acked == flow.packets) {
    sender_.retire(f);
    return true;
  }
  arm_rto(f);
  return false;
}

// Resend from `seq` (go-back-N) or just [seq, seq + count) (selective repeat).
void SenderFeedback::go_back(uint32_t f, uint32_t seq, uint32_t count) {
  Flow& flow = flows_[f];
  SendState& s = flow.send;
  if (seq < s.acked || seq >= flow.packets) return;
  if (!flow.selective) {
    s.next_seq = std::min(s.next_seq, seq);
    return;
  }
  if (s.to_resend.empty()) s.to_resend.assign(flow.packets, false);
  for (uint32_t i = seq; i < std::min(seq + count, s.next_seq); ++i) {
    if (!s.to_resend[i]) {
      s.to_resend[i] = true;
      s.resend.push_back(i);
    }
  }
}

// The event, when it fires before the (moved) deadline, sleeps again until the deadline.
void SenderFeedback::arm_rto(uint32_t f) {
  SendState& s = flows_[f].send;
  s.rto_deadline = engine_.now() + config_.lossy.rto;
  if (s.rto_armed) return;
  s.rto_armed = true;
  schedule_rto(f, s.rto_deadline);
}

void SenderFeedback::schedule_rto(uint32_t f, Time at) {
  TransferId id = flows_[f].id;
  engine_.schedule_at(at, [this, f, id] {
    if (flows_[f].id == id) rto_fired(f);
  });
}

void SenderFeedback::rto_fired(uint32_t f) {
  Flow& flow = flows_[f];
  SendState& s = flow.send;
  if (s.done) {
    s.rto_armed = false;
    return;
  }
  if (engine_.now() < s.rto_deadline) {  // progress since: sleep until the new deadline
    schedule_rto(f, s.rto_deadline);
    return;
  }
  s.rto_armed = false;
  // Nothing acknowledged for a whole timeout: resend everything not yet acknowledged (selective
  // repeat queues it; the receiver ignores what it already holds).
  if (flow.selective) {
    go_back(f, s.acked, s.next_seq - s.acked);
  } else {
    s.next_seq = s.acked;
  }
  if (s.window) s.window->on_loss();
  sender_.wake(s.queue_pair);
}

}  // namespace weft::packet
