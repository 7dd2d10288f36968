// The receiving end of every flow, where each packet leaves the network: data is counted and
// tracked in order (go-back-N keeps only the next expected packet; selective repeat keeps all and
// NACKs each new gap once), acknowledged every ack_every packets (every packet for DCTCP), and
// answered with a CNP when ECN-marked (at most one per CNP interval). Control packets go on to the
// sender (SenderFeedback). A flow is done when its last byte arrives.
#pragma once

#include <cstdint>

#include "sim/packet/egress.h"
#include "sim/packet/fabric_context.h"

namespace weft::packet {

class GroupStripes;
class SenderFeedback;

class Receiver {
 public:
  // The peers may be constructed after this object.
  Receiver(const FabricContext& context, Egress& egress, SenderFeedback& feedback, GroupStripes& stripes);

  // Packet `p` reached the end of its path; it is released here.
  void deliver(uint32_t p);
  // Every byte of the flow arrived: counts it, tells the recorder and calls its on_done.
  void finish(uint32_t f);

 private:
  void receive_data(uint32_t p);
  void track_selective(Flow& flow, const Packet& pkt);
  void track_in_order(Flow& flow, const Packet& pkt);
  void send_control(uint32_t f, Kind kind, uint32_t seq, uint16_t echo);

  Engine& engine_;
  const PacketConfig& config_;
  Router& router_;
  Recorder& recorder_;
  FabricStats& stats_;
  PacketPool& packets_;
  FlowTable& flows_;
  Egress& egress_;
  SenderFeedback& feedback_;
  GroupStripes& stripes_;
};

}  // namespace weft::packet
