// One transfer of the packet fabric as the sender and the receiver see it, and the table of them.
// A flow's slot is reused once both ends are done, so packets carry the flow's id as well as its
// slot and are ignored when the two no longer match.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "sim/fabric.h"
#include "sim/packet/congestion.h"
#include "sim/packet/packet.h"
#include "sim/packet/stable_table.h"
#include "topologies/routing.h"

namespace weft::packet {

// The sender's end: what to send next, what was acknowledged, pacing, the retransmission timer and
// the congestion controllers (DCQCN pacing or a DCTCP window).
struct SendState {
  uint32_t queue_pair = 0;
  uint32_t next_seq = 0;      // next packet to send
  uint32_t acked = 0;         // packets acknowledged (lossy / dctcp)
  uint32_t highest_sent = 0;  // packets sent at least once (to count retransmissions)
  Time next_send;             // pacing: not before this
  Time rto_deadline;
  bool rto_armed = false;
  bool done = false;            // every packet sent (and, when reliable, acknowledged)
  std::deque<uint32_t> resend;  // selective repeat: packets to send again
  std::vector<bool> to_resend;  // selective repeat: listed in `resend`
  std::unique_ptr<DcqcnSender> dcqcn;
  std::unique_ptr<DctcpWindow> window;
};

// The receiver's end: in-order tracking, what the next ACK carries, and the CNP limiter.
struct ReceiveState {
  uint32_t expected = 0;         // next in-order packet
  uint32_t received = 0;         // distinct packets received
  uint32_t since_ack = 0;        // packets since the last ack
  uint32_t echo = 0;             // ECN-marked packets since the last ack
  uint32_t nacked = UINT32_MAX;  // the expected seq last NACKed
  uint32_t highest_seen = 0;     // selective repeat: one past the highest seq seen
  bool done = false;             // every byte arrived
  std::vector<bool> got;         // selective repeat: packets held
  std::unique_ptr<CnpLimiter> cnp;
};

struct Flow {
  Transfer transfer;
  OnTransferDone on_done;
  TransferId id = 0;
  const Path* path = nullptr;
  const PathSet* spray = nullptr;  // per-packet path choices (adaptive routing)
  uint32_t segment = 0;            // payload bytes per packet
  uint32_t packets = 0;
  Time start;
  bool reliable = false;   // needs acks: some link on the path may drop, or DCTCP
  bool selective = false;  // reliable with selective repeat (else go-back-N)
  bool windowed = false;   // a DCTCP window: the receiver acknowledges every packet
  int32_t stripe = -1;     // a source's share of a group stripe: arrivals feed the switch
  SendState send;
  ReceiveState receive;

  // Payload bytes of packet `seq`: a segment, less in the last packet.
  uint32_t payload(uint32_t seq) const {
    return static_cast<uint32_t>(
        std::min<uint64_t>(segment, transfer.bytes.count() - static_cast<uint64_t>(seq) * segment));
  }
};

class FlowTable {
 public:
  // A fresh flow with the next transfer id; the slot of a finished one when there is one.
  uint32_t add() {
    uint32_t f = 0;
    if (free_.empty()) {
      f = flows_.add();
    } else {
      f = free_.back();
      free_.pop_back();
      flows_[f] = Flow{};
    }
    flows_[f].id = next_id_++;
    return f;
  }
  Flow& operator[](uint32_t f) { return flows_[f]; }
  // Whether `pkt` still belongs to the flow in its slot (else that finished and the slot was reused).
  bool current(const Packet& pkt) const { return flows_[pkt.flow].id == pkt.flow_id; }
  // Frees the slot once both ends are done with it.
  void release_if_done(uint32_t f) {
    if (flows_[f].send.done && flows_[f].receive.done) free_.push_back(f);
  }
  TransferId next_id() const { return next_id_; }

 private:
  StableTable<Flow, 6> flows_;  // 64 flows per chunk
  std::vector<uint32_t> free_;
  TransferId next_id_ = 0;
};

}  // namespace weft::packet
