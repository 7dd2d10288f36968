// The sending end of every flow: starting a transfer (segment size, whether it needs acks, its
// congestion controller, its path choices), and making its data packets when the first port of its
// path pulls from its queue pair, as pacing (DCQCN rate, the transfer's own limit) and the DCTCP
// window allow. What the sender does with ACKs, NACKs, CNPs and timeouts is SenderFeedback's.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "sim/packet/egress.h"
#include "sim/packet/fabric_context.h"
#include "sim/packet/queue_pairs.h"

namespace weft::packet {

class QueueSampler;
class Receiver;
class SenderFeedback;
class StallWatchdog;

class Sender {
 public:
  // The peers may be constructed after this object.
  Sender(const FabricContext& context, Egress& egress, QueuePairs& queue_pairs, SenderFeedback& feedback,
         Receiver& receiver, StallWatchdog& watchdog, QueueSampler& sampler);

  // Starts a transfer; returns its flow's slot. Throws ConfigError for a priority with no queue.
  uint32_t start(const Path& path, const Transfer& transfer, OnTransferDone on_done);
  // `port` is idle with nothing queued: a data packet from the queue pairs that start on it, round
  // robin (within a queue pair, transfers go in order). False when none may send now; then the
  // port wakes when pacing next allows one.
  bool pull(EgressPort& port, uint32_t& packet);
  // The sender is finished with the flow: it leaves its queue pair, which may start the next one.
  void retire(uint32_t f);
  // Something changed for the queue pair (an ack, a loss): its first port looks again.
  void wake(uint32_t queue_pair) { egress_.try_send(queue_pairs_.first_link(queue_pair)); }

 private:
  struct RouteKey {
    NodeIndex src, dst;
    uint64_t entropy;
    bool operator==(const RouteKey&) const = default;
  };
  struct RouteKeyHash {
    size_t operator()(const RouteKey& k) const;
  };

  void shape(Flow& flow, const Path& path);
  void attach_spray(Flow& flow);
  bool eligible(Flow& flow, Time& retry_at);
  uint32_t make_data_packet(uint32_t f);
  uint32_t next_seq(Flow& flow);
  void pace(Flow& flow, uint32_t payload);
  Time first_hop_time(const Flow& flow, uint32_t payload);
  bool limit_allows(const Flow& flow, Time& retry_at);
  const Path* path_for_packet(Flow& flow);

  Engine& engine_;
  const PacketConfig& config_;
  Router& router_;
  Rng& rng_;
  FabricStats& stats_;
  PacketPool& packets_;
  FlowTable& flows_;
  Egress& egress_;
  QueuePairs& queue_pairs_;
  SenderFeedback& feedback_;
  Receiver& receiver_;
  StallWatchdog& watchdog_;
  QueueSampler& sampler_;
  std::unordered_map<RouteKey, PathSet, RouteKeyHash> spray_paths_;  // equal-cost variants per flow
};

}  // namespace weft::packet
