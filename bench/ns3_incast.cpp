#include "bench/ns3_incast.h"

#include <ns3/boolean.h>
#include <ns3/bulk-send-helper.h>
#include <ns3/config.h>
#include <ns3/data-rate.h>
#include <ns3/double.h>
#include <ns3/inet-socket-address.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-address-helper.h>
#include <ns3/ipv4-global-routing-helper.h>
#include <ns3/node-container.h>
#include <ns3/nstime.h>
#include <ns3/packet-sink-helper.h>
#include <ns3/packet-sink.h>
#include <ns3/packet.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/queue-disc.h>
#include <ns3/queue-size.h>
#include <ns3/simulator.h>
#include <ns3/string.h>
#include <ns3/traffic-control-helper.h>
#include <ns3/uinteger.h>

#include <chrono>
#include <ctime>
#include <stdexcept>

// The scenario is fabric_models.md Part 2 §A's, and reproduces its counters exactly (357,999 packet-hops,
// 18,966 ECN marks, 0 drops, 13.266 ms for 16 x 10 MB at 100 Gb/s): MSS 1448 (MTU 1500 with the TCP
// timestamp option), 4 MB socket buffers, IW10, MinRTO 1 ms, TcpDctcp; the router's egress to the
// receiver is RED with QW = 1 (instantaneous queue, as DCTCP wants), MinTh 65 / MaxTh 66 packets, 4000
// packets of capacity, marking instead of dropping. RED keeps ns-3's default Gentle = true (as the
// reference did: Gentle = false gave 34,201 marks): the marking probability climbs from 1/LInterm = 1/50
// at 66 packets to 1 at 132, so this is DCTCP's step smoothed over 66..132 packets, not a hard K.
// Every other egress keeps ns-3's default queue disc (FqCoDel, installed by Ipv4AddressHelper::Assign);
// those queues stay short. Delayed ACKs are ns-3's default (every 2nd segment, 200 ms timeout).

namespace weft::bench {
namespace {

constexpr uint16_t kPort = 5000;
constexpr uint32_t kMss = 1448;              // bytes: 1500 - 20 (IPv4) - 20 (TCP) - 12 (timestamp option)
constexpr uint32_t kSocketBuffer = 4 << 20;  // bytes, send and receive
constexpr uint32_t kDataPacketMin = 100;     // bytes at the device: above any pure ACK, SYN or FIN (< 90 B)
constexpr double kSafetyStop = 100.0;        // simulated seconds: give up if the transfers never finish

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Trace sinks. ns-3 callbacks bind to a raw object pointer; this object outlives Simulator::Run().
struct Counters {
  uint64_t target_bytes = 0;
  uint64_t received_bytes = 0;
  double done_at = -1;  // simulated seconds
  uint64_t packets_delivered = 0;
  uint64_t packet_hops = 0;

  void on_sink_rx(ns3::Ptr<const ns3::Packet> packet, const ns3::Address& /*from*/) {
    received_bytes += packet->GetSize();
    if (done_at < 0 && received_bytes >= target_bytes) {
      done_at = ns3::Simulator::Now().GetSeconds();
      // Stop at the last byte, as weft's run ends at the last transfer's completion: the FIN
      // exchange and TCP's teardown timers are not part of the measured transfer.
      ns3::Simulator::Stop();
    }
  }
  void on_receiver_phy_rx(ns3::Ptr<const ns3::Packet> packet) {
    if (packet->GetSize() > kDataPacketMin) ++packets_delivered;
  }
  void on_phy_tx(ns3::Ptr<const ns3::Packet> /*packet*/) { ++packet_hops; }
};

bool g_called = false;  // ns-3's simulator and node list are process-wide: one scenario per process

void check_arguments(int senders, uint64_t bytes_per_sender, double rate_bps, double link_delay_s) {
  if (senders < 1) throw std::invalid_argument("ns3_incast: senders must be at least 1");
  if (bytes_per_sender < 1) throw std::invalid_argument("ns3_incast: bytes_per_sender must be at least 1");
  if (!(rate_bps > 0) || !(link_delay_s >= 0)) {
    throw std::invalid_argument("ns3_incast: rate_bps must be positive and link_delay_s not negative");
  }
  if (g_called) throw std::logic_error("ns3_incast: ns-3's simulator is a singleton; one call per process");
  g_called = true;
}

// TCP: every socket (senders' and the sink's) is a TcpDctcp socket, so ECN is negotiated and echoed.
void set_dctcp_defaults() {
  using namespace ns3;
  Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpDctcp"));
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kMss));
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(kSocketBuffer));
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kSocketBuffer));
  Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));  // segments
  Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(1)));
  Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));  // TcpDctcp turns it on too
}

struct IncastNodes {
  ns3::NodeContainer hosts;  // 0 .. senders-1: the senders
  ns3::Ptr<ns3::Node> router;
  ns3::Ptr<ns3::Node> receiver;
};

IncastNodes create_nodes(int senders) {
  IncastNodes nodes;
  nodes.hosts.Create(static_cast<uint32_t>(senders));
  nodes.router = ns3::CreateObject<ns3::Node>();
  nodes.receiver = ns3::CreateObject<ns3::Node>();
  ns3::InternetStackHelper stack;
  stack.Install(nodes.hosts);
  stack.Install(nodes.router);
  stack.Install(nodes.receiver);
  return nodes;
}

ns3::PointToPointHelper point_to_point(double rate_bps, double link_delay_s) {
  using namespace ns3;
  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(rate_bps))));
  p2p.SetDeviceAttribute("Mtu", UintegerValue(1500));  // bytes of IP packet
  p2p.SetChannelAttribute("Delay", TimeValue(Seconds(link_delay_s)));
  // The device keeps ns-3's default 100-packet DropTail transmit queue, as in the reference run: the
  // queue disc only fills once it is full (flow control), so RED marks from ~66 + 100 packets of backlog.
  // A 1-packet device queue (RED sees the whole backlog) costs 1.28x the events (1.30 M, 27,189 marks);
  // with it and Gentle = false (a hard step at 66), 4 of the 16 flows fell into a DCTCP livelock in
  // ns-3.37: cwnd pinned at 1 MSS, every ACK echoing ECE, one segment per 1 ms RTO, 6.9 simulated seconds.
  return p2p;
}

void count_hops(const ns3::NetDeviceContainer& devices, Counters& counters) {
  for (uint32_t i = 0; i < devices.GetN(); ++i) {
    devices.Get(i)->TraceConnectWithoutContext("PhyTxEnd", ns3::MakeCallback(&Counters::on_phy_tx, &counters));
  }
}

// The router's egress toward the receiver: RED marking ECN (see the top of this file).
ns3::QueueDiscContainer install_red(const ns3::Ptr<ns3::NetDevice>& egress, double rate_bps, double link_delay_s) {
  using namespace ns3;
  TrafficControlHelper red;
  red.SetRootQueueDisc("ns3::RedQueueDisc",                            //
                       "UseEcn", BooleanValue(true),                   // ECT packets are marked, not dropped
                       "UseHardDrop", BooleanValue(false),             // mark above MaxTh too
                       "Gentle", BooleanValue(true),                   // ramp to 1 at 2 * MaxTh
                       "QW", DoubleValue(1.0),                         // instantaneous queue
                       "MinTh", DoubleValue(65),                       // packets
                       "MaxTh", DoubleValue(66),                       // packets
                       "MaxSize", QueueSizeValue(QueueSize("4000p")),  //
                       "MeanPktSize", UintegerValue(1500),             // bytes
                       "LinkBandwidth", DataRateValue(DataRate(static_cast<uint64_t>(rate_bps))), "LinkDelay",
                       TimeValue(Seconds(link_delay_s)));
  return red.Install(egress);
}

// The links, their addresses and routes; returns the bottleneck's RED queue disc and sets the
// receiver's address.
ns3::QueueDiscContainer build_network(const IncastNodes& nodes, int senders, double rate_bps, double link_delay_s,
                                      Counters& counters, ns3::Ipv4Address& receiver_address) {
  using namespace ns3;
  PointToPointHelper p2p = point_to_point(rate_bps, link_delay_s);
  // The bottleneck first: its RED queue disc must be in place before Ipv4AddressHelper::Assign,
  // which installs the default queue disc on every device that has none.
  const NetDeviceContainer bottleneck = p2p.Install(nodes.router, nodes.receiver);  // 0: router's egress, 1: receiver
  count_hops(bottleneck, counters);
  bottleneck.Get(1)->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&Counters::on_receiver_phy_rx, &counters));
  QueueDiscContainer red_queue = install_red(bottleneck.Get(0), rate_bps, link_delay_s);

  Ipv4AddressHelper addresses;
  addresses.SetBase("10.0.0.0", "255.255.255.252");  // one /30 per link
  const Ipv4InterfaceContainer receiver_interfaces = addresses.Assign(bottleneck);
  receiver_address = receiver_interfaces.GetAddress(1);
  addresses.NewNetwork();
  for (int i = 0; i < senders; ++i) {
    const NetDeviceContainer link = p2p.Install(nodes.hosts.Get(static_cast<uint32_t>(i)), nodes.router);
    count_hops(link, counters);
    addresses.Assign(link);
    addresses.NewNetwork();
  }
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();
  return red_queue;
}

// The receiver's sink and one BulkSend of `bytes_per_sender` per sender, all from time 0.
void start_transfers(const IncastNodes& nodes, ns3::Ipv4Address receiver_address, uint64_t bytes_per_sender,
                     Counters& counters) {
  using namespace ns3;
  PacketSinkHelper sink_helper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), kPort));
  ApplicationContainer sink = sink_helper.Install(nodes.receiver);
  sink.Start(Seconds(0));
  DynamicCast<PacketSink>(sink.Get(0))
      ->TraceConnectWithoutContext("Rx", MakeCallback(&Counters::on_sink_rx, &counters));

  BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(receiver_address, kPort));
  bulk.SetAttribute("MaxBytes", UintegerValue(bytes_per_sender));
  bulk.SetAttribute("SendSize", UintegerValue(kMss));  // bytes per socket write
  ApplicationContainer sources = bulk.Install(nodes.hosts);
  sources.Start(Seconds(0));
}

// Runs the simulation to the last byte (or the safety stop) and reads the counters.
Ns3IncastResult run_and_measure(const Counters& counters, const ns3::QueueDiscContainer& red_queue) {
  using namespace ns3;
  Simulator::Stop(Seconds(kSafetyStop));
  const double cpu0 = process_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  Simulator::Run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = process_cpu_seconds() - cpu0;

  Ns3IncastResult result;
  result.wall_seconds = wall;
  result.cpu_seconds = cpu;
  result.complete = counters.done_at >= 0;
  result.simulated_seconds = result.complete ? counters.done_at : Simulator::Now().GetSeconds();
  result.packets_delivered = counters.packets_delivered;
  result.packet_hops = counters.packet_hops;
  result.events = Simulator::GetEventCount();
  const QueueDisc::Stats& stats = red_queue.Get(0)->GetStats();
  result.ecn_marks = stats.nTotalMarkedPackets;
  result.drops = stats.nTotalDroppedPackets;
  return result;
}

}  // namespace

Ns3IncastResult ns3_incast(int senders, uint64_t bytes_per_sender, double rate_bps, double link_delay_s) {
  check_arguments(senders, bytes_per_sender, rate_bps, link_delay_s);
  set_dctcp_defaults();
  const IncastNodes nodes = create_nodes(senders);
  Counters counters;
  counters.target_bytes = static_cast<uint64_t>(senders) * bytes_per_sender;
  ns3::Ipv4Address receiver_address;
  const ns3::QueueDiscContainer red_queue =
      build_network(nodes, senders, rate_bps, link_delay_s, counters, receiver_address);
  start_transfers(nodes, receiver_address, bytes_per_sender, counters);
  const Ns3IncastResult result = run_and_measure(counters, red_queue);
  ns3::Simulator::Destroy();
  return result;
}

}  // namespace weft::bench
