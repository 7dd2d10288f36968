// What a sender does with its receiver's feedback and with its own timer: an ACK moves the
// acknowledged edge (and the DCTCP window), a NACK rewinds (go-back-N: from the hole; selective
// repeat: just the missing range), a CNP cuts the DCQCN rate, and a retransmission timeout with
// nothing acknowledged resends everything outstanding. One timer event per flow at a time.
#pragma once

#include <cstdint>

#include "sim/packet/fabric_context.h"

namespace weft::packet {

class Sender;

class SenderFeedback {
 public:
  // `sender` may be constructed after this object.
  SenderFeedback(const FabricContext& context, Sender& sender);

  // An ACK, NACK or CNP packet `p` reached the flow's source.
  void on_control(uint32_t p);
  // (Re)starts the flow's retransmission timeout: progress only moves the deadline.
  void arm_rto(uint32_t f);

 private:
  bool on_ack(uint32_t f, uint32_t seq, uint16_t echo);
  void go_back(uint32_t f, uint32_t seq, uint32_t count);
  void schedule_rto(uint32_t f, Time at);
  void rto_fired(uint32_t f);

  Engine& engine_;
  const PacketConfig& config_;
  PacketPool& packets_;
  FlowTable& flows_;
  Sender& sender_;
};

}  // namespace weft::packet
