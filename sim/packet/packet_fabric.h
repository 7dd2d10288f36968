// The packet-level fabric: transfers are cut into packets that cross every link of their path
// through egress ports (per-priority queues, strict priority or DWRR, a serialiser) and the link's
// propagation delay. Link-level flow control depends on the link kind:
//  - Ethernet: PFC per ingress port x priority (XOFF/XON, headroom, pause quanta with refresh,
//    pause frames that take wire time upstream) over a shared-buffer switch; with PFC off, drops;
//  - InfiniBand, NVLink, PCIe (and generic links): credits per link and priority in 64-byte blocks,
//    returned one link latency after the packet leaves the receiver's buffer; never a drop.
// ECN is marked at dequeue (RED, thresholds scaled with the port rate); senders react with DCQCN
// (rate-paced RDMA) or DCTCP (window); lossy paths recover with go-back-N or selective repeat,
// driven by NACKs and a retransmission timeout. A PFC cycle where nothing can move is reported as a
// deadlock (ModelError naming the ports; stats().deadlocked).
//
// PacketFabric is a facade owning the parts, each in its own file (namespace weft::packet):
//   packet.h                Packet, PacketPool (packets by index)
//   packet_queue.h          PacketQueue: one egress FIFO
//   stable_table.h          StableTable: the chunked table behind the packet and flow tables
//   egress_port.h           EgressPort: one link's port (queues, DWRR state, serialiser, counters)
//   egress.h/.cpp           Egress: enqueue, scheduler pick, serialiser, wake-ups, arrival at the
//                           far end; reports link bytes to the Recorder (Egress::transmit)
//   pfc_state.h/.cpp        PfcState: XOFF/XON, headroom, pause frames and their refresh
//   credit_state.h/.cpp     CreditState: credits per link and priority, their return
//   shared_buffer.h/.cpp    SharedBuffer: admission, leaving, XOFF thresholds
//   flow.h                  Flow (shared, sender and receiver state), FlowTable
//   queue_pairs.h/.cpp      QueuePairs: queue pairs and the ports they feed
//   sender.h/.cpp           Sender: starting flows, pulling packets, pacing
//   sender_feedback.h/.cpp  SenderFeedback: ACK/NACK/CNP at the sender, retransmission timeout
//   receiver.h/.cpp         Receiver: in-order tracking, ACK/NACK/CNP, finishing flows
//   group_stripe.h/.cpp     GroupStripes: group transfers, in-switch reduction
//   stall_watchdog.h/.cpp   StallWatchdog: deadlock detection and its description
//   queue_sampler.h/.cpp    QueueSampler: queue depths for the Recorder
//   fabric_context.h        FabricContext: what every part shares
//   congestion.h/.cpp       RED, DCQCN, DCTCP;  packet_config.h/.cpp: knobs, profiles, validation
#pragma once

#include <string>
#include <vector>

#include "sim/core/rng.h"
#include "sim/fabric.h"
#include "sim/packet/credit_state.h"
#include "sim/packet/egress.h"
#include "sim/packet/fabric_context.h"
#include "sim/packet/flow.h"
#include "sim/packet/group_stripe.h"
#include "sim/packet/packet.h"
#include "sim/packet/packet_config.h"
#include "sim/packet/pfc_state.h"
#include "sim/packet/queue_pairs.h"
#include "sim/packet/queue_sampler.h"
#include "sim/packet/receiver.h"
#include "sim/packet/sender.h"
#include "sim/packet/sender_feedback.h"
#include "sim/packet/shared_buffer.h"
#include "sim/packet/stall_watchdog.h"
#include "sim/stripes.h"
#include "topologies/routing.h"

namespace weft {

class PacketFabric final : public Fabric {
 public:
  // Validates `config` (ConfigError) and checks that every link can carry the packets.
  PacketFabric(Engine& engine, Router& router, Recorder& recorder, packet::PacketConfig config,
               bool check_invariants = false);
  ~PacketFabric() override;

  std::string_view name() const override { return "packet"; }
  TransferId start(const Transfer& transfer, OnTransferDone on_done) override;
  // Striped over the reducing switches next to the group: every source sends its share to the
  // switch; the switch forwards packet k to every destination once it has packet k from every
  // source (reduction), or at once with one source (multicast). Needs lossless links.
  TransferId start_group(const GroupTransfer& group, OnTransferDone on_done) override;
  FabricStats stats() const override;
  std::vector<LinkStats> link_stats() const override;
  // Runs the engine; throws ModelError when transfers are left that can never finish.
  void run(Engine& engine) override;

  // Inspection for tests: bytes queued at the egress port of `link` (all priorities).
  uint64_t queued_bytes(LinkId link) const;

 private:
  // `config`, once packet::validate has accepted it (ConfigError).
  static packet::PacketConfig checked(const packet::PacketConfig& config);
  packet::Control control_of(LinkKind kind) const;
  void build_links();

  Engine& engine_;
  Router& router_;
  Recorder& recorder_;
  packet::PacketConfig config_;
  bool check_;
  Rng rng_;
  FabricStats stats_;
  packet::PacketPool packets_;
  packet::FlowTable flows_;
  packet::FabricContext context_;
  // The parts; each holds references to the ones it talks to (some declared after it).
  packet::PfcState pfc_;
  packet::CreditState credits_;
  packet::SharedBuffer buffer_;
  packet::Egress egress_;
  packet::QueuePairs queue_pairs_;
  packet::Sender sender_;
  packet::SenderFeedback feedback_;
  packet::Receiver receiver_;
  packet::GroupStripes groups_;
  packet::StallWatchdog watchdog_;
  packet::QueueSampler sampler_;
  PartJoin joins_;  // of transfers striped over NVLink paths
};

}  // namespace weft
