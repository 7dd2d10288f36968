// The shared buffer of each node that buffers Ethernet packets (switches; NICs from the wire):
// admission of an arriving packet, its leaving, and the PFC XOFF threshold (static, or a fraction
// of the free buffer). Credit links never come here: the sender held credits for the space.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/packet/egress_port.h"
#include "sim/packet/packet.h"
#include "sim/packet/packet_config.h"
#include "sim/packet/pfc_state.h"
#include "topologies/topology.h"

namespace weft::packet {

class SharedBuffer {
 public:
  SharedBuffer(const PacketConfig& config, const Topology& topology, PfcState& pfc);

  // With a static XOFF a switch must hold XOFF plus the headroom of every lossless ingress port at
  // once; throws ConfigError for a switch whose buffer is smaller.
  void check_static_pfc_fits(const std::vector<EgressPort>& ports) const;

  // `pkt` arrives at `node` over the (Ethernet) link `in`, headed for the egress port `out`: charges
  // the buffer and the link's ingress counter and pauses the link above XOFF. False (a drop) when
  // the buffer is full, when lossy and `out` already holds its share, or beyond PFC headroom.
  bool admit(const Packet& pkt, NodeIndex node, const EgressPort& in, const EgressPort& out) {
    uint64_t free = size_[node] - std::min(size_[node], used_[node]);
    if (pkt.charged > free) return false;
    // Drop-tail with a dynamic threshold of alpha = 1: an egress queue may hold up to the free buffer.
    if (in.control == Control::lossy && out.queued[pkt.priority] + pkt.charged > free) return false;
    if (in.control == Control::pfc && pfc_.beyond_headroom(in.link, pkt.priority, pkt.charged)) return false;
    used_[node] += pkt.charged;
    pfc_.add_ingress(in.link, pkt.priority, pkt.charged);
    if (in.control == Control::pfc && !pfc_.pausing(in.link, pkt.priority) &&
        pfc_.ingress(in.link, pkt.priority) > xoff(node)) {
      pfc_.pause(in.link, pkt.priority);
    }
    return true;
  }
  // `pkt`, which arrived over `in_link`, leaves `node` (it starts on its next link); resumes the
  // link below XON (XOFF - xon_offset).
  void leave(const Packet& pkt, NodeIndex node) {
    used_[node] -= pkt.charged;
    pfc_.remove_ingress(pkt.in_link, pkt.priority, pkt.charged);
    uint64_t threshold = xoff(node);
    uint64_t offset = config_.pfc.xon_offset.count();
    uint64_t resume = threshold > offset ? threshold - offset : 0;
    if (pfc_.pausing(pkt.in_link, pkt.priority) && pfc_.ingress(pkt.in_link, pkt.priority) <= resume) {
      pfc_.resume(pkt.in_link, pkt.priority);
    }
  }
  // Bytes of ingress per (port, priority) above which `node` pauses the port.
  uint64_t xoff(NodeIndex node) const {
    if (!config_.pfc.dynamic) return config_.pfc.xoff.count();
    uint64_t size = size_[node] == UINT64_MAX ? config_.switches.buffer.count() : size_[node];
    uint64_t free = size - std::min(size, used_[node]);
    return static_cast<uint64_t>(config_.pfc.alpha * static_cast<double>(free));
  }
  uint64_t used(NodeIndex node) const { return used_[node]; }

 private:
  const PacketConfig& config_;
  const Topology& topology_;
  PfcState& pfc_;
  std::vector<uint64_t> used_;  // by node: bytes in its shared buffer
  std::vector<uint64_t> size_;  // by node; UINT64_MAX: unbounded (hosts, NVSwitches)
};

}  // namespace weft::packet
