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
// Files: packet_fabric.cpp (ports, forwarding, flow control), packet_endpoints.cpp (senders and
// receivers), packet_deadlock.cpp (the stall watchdog).
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/rng.h"
#include "sim/fabric.h"
#include "sim/packet/congestion.h"
#include "sim/packet/packet_config.h"
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
  enum class Kind : uint8_t { data, ack, nack, cnp };
  enum class Control : uint8_t { credit, pfc, lossy };

  struct Packet {
    const Path* path = nullptr;
    TransferId flow_id = 0;  // the flow's id: its slot may be reused once it is finished
    uint32_t flow = 0;
    uint32_t seq = 0;      // data: packet number in its flow; ack/nack: the receiver's next expected
    uint32_t payload = 0;  // bytes (data); 0 for control packets
    uint32_t charged = 0;  // bytes held in the current node's buffer / credits taken
    LinkId in_link = 0;    // the link it arrived on (valid when hop > 0)
    uint16_t hop = 0;      // index in path->links of the link it is queued for or crossing
    uint16_t echo = 0;     // ack: ECN-marked packets acknowledged since the previous ack
    Kind kind = Kind::data;
    uint8_t priority = 0;
    bool ecn = false;  // congestion experienced
  };

  // A FIFO of packet indices (ring buffer, grows by doubling).
  class PacketQueue {
   public:
    bool empty() const { return size_ == 0; }
    uint32_t front() const { return slots_[head_]; }
    void push(uint32_t p);
    uint32_t pop();

   private:
    std::vector<uint32_t> slots_;
    size_t head_ = 0;
    size_t size_ = 0;
  };

  struct Port {
    LinkId link = 0;
    NodeIndex from = 0;
    NodeIndex to = 0;
    uint64_t rate = 0;  // bit/s
    Time latency;
    uint32_t mtu = 0;
    uint16_t header = 0;
    Control control = Control::credit;
    uint64_t headroom = 0;  // PFC: bytes accepted above XOFF (in flight when the pause left)
    bool busy = false;
    bool wake_pending = false;  // a wake-up (pause expiry, pacing) is scheduled
    Time wake_at;
    uint8_t rr = 0;  // DWRR: priority whose turn it is
    std::array<PacketQueue, packet::kPriorities> queue;
    std::array<uint64_t, packet::kPriorities> queued{};    // bytes
    std::array<int64_t, packet::kPriorities> credits{};    // credit links: bytes the receiver can take
    std::array<int64_t, packet::kPriorities> deficit{};    // DWRR
    std::array<Time, packet::kPriorities> paused_until{};  // PFC: set by the downstream node's pauses
    std::array<Time, packet::kPriorities> paused_since{};
    // Ingress side of this link at `to` (PFC): bytes buffered that arrived over it, and whether
    // `to` has paused this port.
    std::array<uint64_t, packet::kPriorities> ingress{};
    std::array<bool, packet::kPriorities> pausing{};
    std::array<uint64_t, packet::kPriorities> pause_level{};  // ingress bytes when the pause left
    uint8_t nonempty = 0;                                     // bit p set when queue[p] holds packets
    LinkStats counters;                                       // per-link summary (link_stats)
    std::vector<uint32_t> feeders;                            // queue pairs whose packets start on this port
    uint32_t next_feeder = 0;
  };

  struct Flow {
    Transfer transfer;
    OnTransferDone on_done;
    TransferId id = 0;
    const Path* path = nullptr;
    const PathSet* spray = nullptr;  // per-packet path choices (adaptive routing)
    uint32_t queue_pair = 0;
    uint32_t segment = 0;  // payload bytes per packet
    uint32_t packets = 0;
    uint32_t next_seq = 0;         // sender: next packet to send
    uint32_t acked = 0;            // sender: packets acknowledged (lossy / dctcp)
    uint32_t expected = 0;         // receiver: next in-order packet
    uint32_t received = 0;         // receiver: distinct packets received
    uint32_t since_ack = 0;        // receiver: packets since the last ack
    uint32_t echo = 0;             // receiver: ECN-marked packets since the last ack
    uint32_t nacked = UINT32_MAX;  // receiver: the expected seq last NACKed
    Time start;
    Time next_send;  // pacing
    Time rto_deadline;
    bool rto_armed = false;
    bool reliable = false;        // needs acks: some link on the path may drop, or DCTCP
    bool sender_done = false;     // every packet sent (and, when reliable, acknowledged)
    bool receiver_done = false;   // every byte arrived
    uint32_t highest_sent = 0;    // packets sent at least once (to count retransmissions)
    std::vector<bool> got;        // receiver, selective repeat: packets held
    std::deque<uint32_t> resend;  // sender, selective repeat: packets to send again
    std::vector<bool> to_resend;  // sender, selective repeat: listed in `resend`
    uint32_t highest_seen = 0;    // receiver, selective repeat: one past the highest seq seen
    std::unique_ptr<packet::DcqcnSender> dcqcn;
    std::unique_ptr<packet::CnpLimiter> cnp;
    std::unique_ptr<packet::DctcpWindow> window;
    int32_t stripe = -1;  // a source's share of a group stripe: arrivals feed the switch
  };

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

  struct QueuePairState {
    std::deque<uint32_t> flows;  // in order; the first with packets to send goes next
    LinkId first_link = 0;
  };
  struct QueuePairId {
    NodeIndex src;
    LinkId first_link;
    uint64_t entropy;
    bool operator==(const QueuePairId&) const = default;
  };
  struct QueuePairIdHash {
    size_t operator()(const QueuePairId& k) const;
  };

  // packet_fabric.cpp: ports and forwarding
  void build_ports();
  Control control_of(LinkKind kind) const;
  uint32_t wire_bytes(const Port& port, const Packet& p) const;
  void check_static_pfc_fits(const Topology& t) const;
  uint64_t headroom_for(const Port& port, LinkId link) const;
  uint32_t allocate_packet();
  void free_packet(uint32_t p);
  void enqueue(uint32_t port, uint32_t p);
  void try_send(uint32_t port);
  bool sendable(Port& port, uint8_t priority, uint32_t wire);
  bool pick_queued(Port& port, uint32_t& packet);
  void transmit(uint32_t port, uint32_t p);
  void arrive(uint32_t p);
  void leave_buffer(const Packet& p, NodeIndex node);
  bool admit(uint32_t p, NodeIndex node);
  void send_pause(LinkId link, uint8_t priority, bool pause);
  void pause_arrived(LinkId link, uint8_t priority, Time until);
  void refresh_pause(LinkId link, uint8_t priority);
  uint64_t xoff(NodeIndex node) const;
  void schedule_wake(uint32_t port, Time at);

  // packet_endpoints.cpp: senders and receivers
  uint32_t start_flow(const Transfer& transfer, OnTransferDone on_done);  // the flow's index
  uint32_t queue_pair_of(const Transfer& t, LinkId first_link);
  bool pull(Port& port, uint32_t& packet);
  bool eligible(Flow& flow, Time& retry_at);
  uint32_t make_data_packet(uint32_t f);
  const Path* path_for_packet(Flow& flow);
  void deliver(uint32_t p);
  void receive_data(uint32_t p);
  void send_control(uint32_t f, Kind kind, uint32_t seq, uint16_t echo);
  void receive_control(uint32_t p);
  void arm_rto(uint32_t f);
  void schedule_rto(uint32_t f, Time at);
  void rto_fired(uint32_t f);
  void go_back(uint32_t f, uint32_t seq, uint32_t count);
  void finish_receive(uint32_t f);
  void retire_sender(uint32_t f);
  void wake_queue_pair(uint32_t qp);

  void sample_queues();

  // packet_groups.cpp
  uint32_t new_flow();
  uint32_t start_down_flow(uint32_t stripe, NodeIndex dst, const Flow& up, const GroupTransfer& group);
  void stripe_arrival(uint32_t stripe, const Packet& up);

  // packet_deadlock.cpp: the watchdog
  void arm_watchdog();
  void watchdog();
  std::string describe_stall();

  Engine& engine_;
  Router& router_;
  Recorder& recorder_;
  packet::PacketConfig config_;
  bool check_;
  Rng rng_;
  std::vector<Port> ports_;            // by LinkId
  std::vector<uint64_t> buffer_used_;  // by node: bytes in its shared buffer
  std::vector<uint64_t> buffer_size_;  // by node
  std::deque<Packet> packets_;         // deques: references stay valid as they grow
  std::vector<uint32_t> free_packets_;
  std::deque<Flow> flows_;
  std::vector<uint32_t> free_flows_;
  std::vector<QueuePairState> queue_pairs_;
  std::unordered_map<QueuePairId, uint32_t, QueuePairIdHash> queue_pair_index_;
  struct FlowRouteKey {
    NodeIndex src, dst;
    uint64_t entropy;
    bool operator==(const FlowRouteKey&) const = default;
  };
  struct FlowRouteKeyHash {
    size_t operator()(const FlowRouteKey& k) const;
  };
  std::unordered_map<FlowRouteKey, PathSet, FlowRouteKeyHash> spray_paths_;  // equal-cost variants per flow
  std::deque<Stripe> stripes_;
  std::deque<GroupState> groups_;
  FabricStats stats_;
  TransferId next_id_ = 0;
  uint64_t in_network_ = 0;  // packets queued or on a wire
  Time last_progress_;
  bool watchdog_armed_ = false;
  bool sampling_ = false;  // a queue-sampling event is pending
};

}  // namespace weft
