// Group transfers (multicast, in-switch reduction: NVLS, SHARP) as packets. The group's bytes are
// striped over its reducing switches; on each, every source's share arrives as an ordinary flow,
// and the switch sends packet k on to every destination once it holds packet k from every source
// (reduced; with one source, as is). The switch's flows down have no sender of their own.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/packet/egress.h"
#include "sim/packet/fabric_context.h"

namespace weft::packet {

class Receiver;
class Sender;

class GroupStripes {
 public:
  // The peers may be constructed after this object.
  GroupStripes(const FabricContext& context, Egress& egress, Sender& sender, Receiver& receiver);

  // Starts the group; returns the id of its first flow. Throws ModelError when a source's path may
  // drop (groups need credits or PFC).
  TransferId start(const GroupTransfer& group, OnTransferDone on_done);
  // Packet `up` of a source's share reached stripe `s`'s switch.
  void arrival(uint32_t s, const Packet& up);

 private:
  // One switch's part of a group transfer.
  struct Stripe {
    NodeIndex via = 0;
    uint32_t sources = 0;
    std::vector<uint16_t> arrived;  // per packet: sources whose copy reached the switch
    std::vector<uint32_t> down;     // flows from the switch to each destination
    uint32_t group = 0;
  };
  struct GroupState {
    uint32_t pending = 0;  // destination flows still receiving
    OnTransferDone on_done;
  };

  uint32_t start_down_flow(uint32_t s, NodeIndex dst, const Flow& up, const GroupTransfer& group);

  Engine& engine_;
  Router& router_;
  FabricStats& stats_;
  PacketPool& packets_;
  FlowTable& flows_;
  Egress& egress_;
  Sender& sender_;
  Receiver& receiver_;
  std::deque<Stripe> stripes_;
  std::deque<GroupState> groups_;
};

}  // namespace weft::packet
